/**
 * A StateStore in one JSON file holding every target (`check --state`). Writes go to a temporary
 * file that is then renamed over the old one, so a crash never leaves half a file. The file is
 * the user's: created mode 600 (it names servers and their alerts), its mode kept on every
 * rewrite, read only when it is a regular file and under a size cap (a wrong path such as
 * /dev/zero or a FIFO is refused, not read until killed), and every error names the user's path,
 * not the temporary one.
 *
 * Parallel checks of several targets may share one file (Nagios runs many services at once): each
 * save re-reads the file and replaces only its target, under an exclusive lock file beside it
 * (`<path>.lock`, created with O_EXCL), so no run's update is lost. A run waits for the lock a
 * bounded time, retrying with jitter, and then fails with a clear line (UNKNOWN) rather than hang;
 * a lock older than a save could ever take is a crashed run's and is taken over.
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, type FileHandle, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StateStore } from '../core/alerts/store.ts';
import type { TargetState } from '../core/alerts/types.ts';

/** Far above a real state file (a few KiB per target); a larger file is a wrong path. */
const STATE_FILE_MAX_BYTES = 64 * 1024 * 1024;
/** A new state file is readable by its owner only. */
const NEW_FILE_MODE = 0o600;

/** How long a save waits for the lock, how often it retries, when a lock is a crashed run's. */
interface LockOptions {
  waitMs: number;
  retryMs: number;
  staleMs: number;
}

/**
 * A save takes milliseconds; ten seconds of waiting covers a burst of parallel checks on a loaded
 * host, well inside a Nagios service check timeout (60 s by default).
 */
const DEFAULT_LOCK: LockOptions = { waitMs: 10_000, retryMs: 25, staleMs: 30_000 };

interface StateFile {
  version: 1;
  targets: Record<string, TargetState>;
}

/** The state file cannot be used: not one this store wrote, not a regular file, too large, unreadable or unwritable. */
class StateFileError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StateFileError';
  }
}

const expected = (path: string, found: string, options?: ErrorOptions) =>
  new StateFileError(`expected a state file { "version": 1, "targets": {...} } at ${path}, found ${found}`, options);

/** What a path that is not a regular file is, for the message. */
function kindOf(stats: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean }): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  return 'not a regular file';
}

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);

/** The file's text and mode, or null when it does not exist. */
async function readCapped(path: string): Promise<{ text: string; mode: number } | null> {
  let handle: FileHandle;
  try {
    // Non-blocking: opening a FIFO must not wait for a writer.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return null;
    throw new StateFileError(`cannot read the state file ${path}: ${codeOf(error)}`, { cause: error });
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw expected(path, kindOf(stats));
    if (stats.size > STATE_FILE_MAX_BYTES)
      throw expected(path, `${stats.size} bytes (more than the ${STATE_FILE_MAX_BYTES}-byte cap)`);
    // Read at most one byte past the cap: a file growing meanwhile is still refused.
    const buffer = Buffer.alloc(Math.min(stats.size, STATE_FILE_MAX_BYTES) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) throw expected(path, 'a file that grew while it was read');
    }
    return { text: buffer.toString('utf8', 0, length), mode: stats.mode & 0o777 };
  } catch (error) {
    if (error instanceof StateFileError) throw error;
    throw new StateFileError(`cannot read the state file ${path}: ${codeOf(error)}`, { cause: error });
  } finally {
    await handle.close();
  }
}

async function readStateFile(path: string): Promise<{ file: StateFile; mode: number }> {
  const read = await readCapped(path);
  if (read === null) return { file: { version: 1, targets: {} }, mode: NEW_FILE_MODE };
  let parsed: unknown;
  try {
    parsed = JSON.parse(read.text);
  } catch (error) {
    throw expected(path, 'invalid JSON', { cause: error });
  }
  const file = parsed as Partial<StateFile> | null;
  if (file?.version !== 1 || typeof file.targets !== 'object' || file.targets === null)
    throw expected(path, read.text.length === 0 ? 'an empty file' : 'another shape');
  return { file: file as StateFile, mode: read.mode };
}

/**
 * Holds `<path>.lock` while `work` runs. Retries every `retryMs` (plus up to as much again of
 * jitter, so parallel runs do not retry in step) until `waitMs` have passed.
 */
async function withLock<T>(path: string, lock: LockOptions, work: () => Promise<T>): Promise<T> {
  const lockPath = `${path}.lock`;
  const deadline = Date.now() + lock.waitMs;
  let handle: FileHandle | null = null;
  while (handle === null) {
    try {
      handle = await open(lockPath, 'wx', NEW_FILE_MODE);
    } catch (error) {
      if (codeOf(error) !== 'EEXIST')
        throw new StateFileError(`cannot lock the state file ${path}: ${codeOf(error)} on ${lockPath}`, {
          cause: error,
        });
      const age = await lockAge(lockPath);
      // A crashed run's lock: removed, then created afresh like any other.
      if (age !== null && age > lock.staleMs) await rm(lockPath, { force: true });
      else if (Date.now() >= deadline)
        throw new StateFileError(
          `cannot lock the state file ${path}: ${lockPath} held by another check for more than ${lock.waitMs / 1000} s (remove it if no check is running)`,
        );
      else await sleep(lock.retryMs + Math.random() * lock.retryMs);
    }
  }
  try {
    await handle.writeFile(`${process.pid}\n`);
    return await work();
  } finally {
    await handle.close();
    await rm(lockPath, { force: true });
  }
}

/** Milliseconds since the lock file was written; null when it is gone already. */
async function lockAge(lockPath: string): Promise<number | null> {
  try {
    return Date.now() - (await stat(lockPath)).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * A store over the JSON file at `path` (created on the first save, mode 600).
 *
 * @example
 * const store = createFileStateStore('/var/tmp/httpd-alerts.json');
 * await store.save(result.state);
 */
function createFileStateStore(path: string, lock: LockOptions = DEFAULT_LOCK): StateStore {
  return {
    async load(target) {
      return (await readStateFile(path)).file.targets[target] ?? null;
    },
    async save(state) {
      await withLock(path, lock, async () => {
        const { file, mode } = await readStateFile(path);
        file.targets[state.target] = state;
        const temp = `${path}.${randomUUID()}.tmp`;
        try {
          await writeFile(temp, `${JSON.stringify(file, null, 2)}\n`, { encoding: 'utf8', mode, flag: 'wx' });
          // The umask may have taken bits off: the mode is the old file's (or 600), exactly.
          await chmod(temp, mode);
          await rename(temp, path);
        } catch (error) {
          await rm(temp, { force: true });
          throw new StateFileError(`cannot write the state file ${path}: ${codeOf(error)}`, { cause: error });
        }
      });
    },
  };
}

export type { LockOptions };
export { createFileStateStore, DEFAULT_LOCK, STATE_FILE_MAX_BYTES, StateFileError };
