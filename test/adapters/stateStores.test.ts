import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileStateStore, StateFileError } from '../../src/adapters/fileStateStore.ts';
import { createMemoryStateStore } from '../../src/adapters/memoryStateStore.ts';
import type { TargetState } from '../../src/core/alerts/types.ts';

const state = (target: string, failures = 0): TargetState => ({
  target,
  evaluatedAt: '2026-11-22T12:00:00.000Z',
  consecutiveFailures: failures,
  counters: { totalAccesses: 10, uptimeSeconds: 4, sslRetrieveHits: null, sslRetrieveMisses: null },
  alerts: {},
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'state-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('createFileStateStore', () => {
  it('loses no update when ten stores save different targets into one file at once', async () => {
    const path = join(dir, 'state.json');
    const targets = Array.from({ length: 10 }, (_, i) => `web-${i + 1}`);

    // Act: ten separate stores, as ten check processes would have, all saving at once
    await Promise.all(targets.map((t, i) => createFileStateStore(path).save(state(t, i))));

    // Assess
    const saved = JSON.parse(await readFile(path, 'utf8')).targets;
    expect(Object.keys(saved).sort()).toEqual([...targets].sort());
    expect(targets.map((t) => saved[t].consecutiveFailures)).toEqual(targets.map((_, i) => i));
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('waits a bounded time for a lock another run holds, then says so', async () => {
    const path = join(dir, 'state.json');
    await writeFile(`${path}.lock`, '123\n');
    const store = createFileStateStore(path, { waitMs: 150, retryMs: 10, staleMs: 60_000 });

    const error = await store.save(state('web-1')).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toBe(
      `cannot lock the state file ${path}: ${path}.lock held by another check for more than 0.15 s (remove it if no check is running)`,
    );
    expect(await store.load('web-1')).toBeNull();
  });

  it('takes over a lock older than any save (a crashed run), and removes it after', async () => {
    const path = join(dir, 'state.json');
    await writeFile(`${path}.lock`, '123\n');
    const old = new Date(Date.now() - 120_000);
    await utimes(`${path}.lock`, old, old);

    await createFileStateStore(path, { waitMs: 150, retryMs: 10, staleMs: 60_000 }).save(state('web-1'));

    expect(await createFileStateStore(path).load('web-1')).toEqual(state('web-1'));
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('keeps every target in one file, replaced atomically (no temporary file left)', async () => {
    // Prepare
    const path = join(dir, 'state.json');
    const store = createFileStateStore(path);

    // Act
    const before = await store.load('web-1');
    await store.save(state('web-1'));
    await store.save(state('web-2', 3));
    await store.save(state('web-1', 1));

    // Assess
    expect(before).toBeNull();
    expect(await store.load('web-1')).toEqual(state('web-1', 1));
    expect(await store.load('web-2')).toEqual(state('web-2', 3));
    expect(Object.keys(JSON.parse(await readFile(path, 'utf8')).targets)).toEqual(['web-1', 'web-2']);
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it.each([
    ['invalid JSON', '{', 'expected a state file { "version": 1, "targets": {...} } at PATH, found invalid JSON'],
    [
      'another shape',
      '{"web-1": {}}',
      'expected a state file { "version": 1, "targets": {...} } at PATH, found another shape',
    ],
  ])('refuses a file with %s', async (_, text, message) => {
    const path = join(dir, 'state.json');
    await writeFile(path, text);
    const error = await createFileStateStore(path)
      .load('web-1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toBe(message.replace('PATH', path));
  });
});

describe('createFileStateStore: the file as the user has it', () => {
  const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

  it('creates the file mode 600 whatever the umask, and keeps a mode the user chose on every rewrite', async () => {
    const fresh = join(dir, 'fresh.json');
    const shared = join(dir, 'shared.json');
    const previous = process.umask(0o022);
    try {
      await createFileStateStore(fresh).save(state('web-1'));
      await writeFile(shared, '{"version":1,"targets":{}}');
      await chmod(shared, 0o640);
      await createFileStateStore(shared).save(state('web-1'));
      await createFileStateStore(shared).save(state('web-2'));
    } finally {
      process.umask(previous);
    }
    expect([await modeOf(fresh), await modeOf(shared)]).toEqual([0o600, 0o640]);
  });

  it.each([
    ['a character device', () => '/dev/zero', 'found a character device'],
    [
      'a directory',
      async () => {
        await mkdir(join(dir, 'sub'));
        return join(dir, 'sub');
      },
      'found a directory',
    ],
    [
      'a FIFO (not waited on)',
      async () => {
        execFileSync('mkfifo', [join(dir, 'fifo')]);
        return join(dir, 'fifo');
      },
      'found a FIFO',
    ],
  ])('refuses %s without reading it, naming the path', async (_, makePath, found) => {
    const path = await makePath();
    const error = await createFileStateStore(path)
      .load('web-1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toBe(
      `expected a state file { "version": 1, "targets": {...} } at ${path}, ${found}`,
    );
  });

  it("names the user's path when the file cannot be used", async () => {
    // A path under a regular file: no temporary file can be made there, even by root.
    await writeFile(join(dir, 'plain'), 'x');
    const path = join(dir, 'plain', 'state.json');
    const error = await createFileStateStore(path)
      .save(state('web-1'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFileError);
    // The lock beside it is made first.
    expect((error as Error).message).toBe(`cannot lock the state file ${path}: ENOTDIR on ${path}.lock`);
  });
});

describe('createMemoryStateStore', () => {
  it('returns copies, so later changes by the caller do not leak in', async () => {
    const store = createMemoryStateStore([state('web-1')]);
    const loaded = (await store.load('web-1')) as TargetState;
    loaded.consecutiveFailures = 9;
    expect(await store.load('web-1')).toEqual(state('web-1'));
    await store.save(state('web-2'));
    expect(store.targets()).toEqual(['web-1', 'web-2']);
    expect(await store.load('web-3')).toBeNull();
  });
});
