/**
 * A StateStore in one JSON file holding every target (`check --state`). Writes go to a temporary
 * file that is then renamed over the old one, so a crash never leaves half a file.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { StateStore } from '../core/alerts/store.ts';
import type { TargetState } from '../core/alerts/types.ts';

interface StateFile {
  version: 1;
  targets: Record<string, TargetState>;
}

/** The state file exists but is not one this store wrote. */
class StateFileError extends Error {
  constructor(path: string, found: string, options?: ErrorOptions) {
    super(`expected a state file { "version": 1, "targets": {...} } at ${path}, found ${found}`, options);
    this.name = 'StateFileError';
  }
}

async function readStateFile(path: string): Promise<StateFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, targets: {} };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new StateFileError(path, 'invalid JSON', { cause: error });
  }
  const file = parsed as Partial<StateFile> | null;
  if (file?.version !== 1 || typeof file.targets !== 'object' || file.targets === null) {
    throw new StateFileError(path, text.length === 0 ? 'an empty file' : 'another shape');
  }
  return file as StateFile;
}

/**
 * A store over the JSON file at `path` (created on the first save).
 *
 * @example
 * const store = createFileStateStore('/var/tmp/httpd-alerts.json');
 * await store.save(result.state);
 */
function createFileStateStore(path: string): StateStore {
  return {
    async load(target) {
      return (await readStateFile(path)).targets[target] ?? null;
    },
    async save(state) {
      const file = await readStateFile(path);
      file.targets[state.target] = state;
      const temp = `${path}.${randomUUID()}.tmp`;
      try {
        await writeFile(temp, `${JSON.stringify(file, null, 2)}\n`, 'utf8');
        await rename(temp, path);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    },
  };
}

export { createFileStateStore, StateFileError };
