/**
 * The last valid configuration in the table (memory table, DynamoDB's conditional semantics):
 * reads that race a newer save, and saves that race each other.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createMemoryStateTable } from '../../../src/adapters/memoryStateStore.ts';
import {
  readConfigGeneration,
  readStoredConfig,
  saveRemoving,
  saveRetiringDiscovery,
  saveStoredConfig,
} from '../../../src/app/config/stored.ts';
import type { StateTable } from '../../../src/app/ports.ts';
import type { RawConfig } from '../../../src/core/monitorConfig.ts';

const NOW = new Date('2026-11-22T12:00:00Z');
const raw = (...targets: string[]): RawConfig => ({
  targets: Object.fromEntries(targets.map((t) => [`/p/targets/${t}`, JSON.stringify({ url: `http://${t}/s` })])),
  rules: {},
  silences: {},
});
const names = (config: RawConfig | null | undefined) => Object.keys(config?.targets ?? {}).sort();

/** The table with `first` stored (hash h1) and nothing being removed. */
async function storedTable(first: RawConfig = raw('a0', 'b0')) {
  const table = createMemoryStateTable();
  const saved = await saveStoredConfig(table, first, 'h1', [], NOW, null);
  expect(saved).toMatchObject({ writes: 2, saved: { hash: 'h1', chunksId: 'h1.1', chunks: 1, removing: [] } });
  expect(saved.saved?.generation).toMatch(/^[0-9a-f-]{36}$/);
  return table;
}

describe('readStoredConfig', () => {
  it('answers null when nothing was stored', async () => {
    expect(await readStoredConfig(createMemoryStateTable())).toBeNull();
  });

  it('answers the configuration with the version a conditional write names', async () => {
    const stored = await readStoredConfig(await storedTable());
    expect(names(stored?.raw)).toEqual(['/p/targets/a0', '/p/targets/b0']);
    expect(stored?.pointer).toMatchObject({ hash: 'h1', chunks: 1, removing: [] });
    expect(stored?.version).toBe(1);
  });

  it('reads the pointer again when another run replaced it and deleted its chunks meanwhile', async () => {
    const table = await storedTable();
    let raced = false;
    // Why: the other run saves between this run's read of the pointer and of its chunk.
    const racing: StateTable = {
      ...table,
      getMeta: async (key) => {
        if (key === 'config#h1.1#0' && !raced) {
          raced = true;
          const theirs = await readStoredConfig(table);
          await saveStoredConfig(table, raw('b0'), 'h2', ['a0'], NOW, theirs);
        }
        return table.getMeta(key);
      },
    };
    const stored = await readStoredConfig(racing);
    expect(raced).toBe(true);
    expect(stored?.pointer).toMatchObject({ hash: 'h2', removing: ['a0'] });
    expect(names(stored?.raw)).toEqual(['/p/targets/b0']);
    expect(stored?.version).toBe(2);
  });

  it('reads a pointer stored before chunks were named per save (by the hash alone)', async () => {
    const table = createMemoryStateTable();
    const data = gzipSync(JSON.stringify(raw('a0'))).toString('base64');
    await table.putMeta('config#h0#0', { data });
    await table.putMeta('last-valid-config', { hash: 'h0', chunks: 1, savedAt: NOW.toISOString(), removing: [] });
    const stored = await readStoredConfig(table);
    expect(stored?.pointer).toMatchObject({ hash: 'h0', chunksId: 'h0' });
    expect(names(stored?.raw)).toEqual(['/p/targets/a0']);
  });

  it('answers no configuration (raw null) when a chunk is missing and the pointer did not move', async () => {
    const table = await storedTable();
    await table.deleteMeta('config#h1.1#0');
    const stored = await readStoredConfig(table);
    expect(stored).toMatchObject({ raw: null, version: 1, pointer: { hash: 'h1' } });
  });
});

describe('saveStoredConfig and saveRemoving from a read another run has overtaken', () => {
  it.each<
    [string, (table: StateTable, stale: NonNullable<Awaited<ReturnType<typeof readStoredConfig>>>) => Promise<unknown>]
  >([
    [
      'a new configuration',
      async (table, stale) => (await saveStoredConfig(table, raw('b0'), 'h3', [], NOW, stale)).saved,
    ],
    ['the removals still owed', (table, stale) => saveRemoving(table, stale, [])],
  ])("%s: not written, and the other run's pointer (its removals owed) stays", async (_, save) => {
    const table = await storedTable();
    const stale = await readStoredConfig(table);
    if (stale === null) throw new Error('expected a stored configuration');
    const theirs = await saveStoredConfig(table, raw('b0'), 'h2', ['a0'], NOW, stale);
    expect(theirs.saved).not.toBeNull();
    expect(await save(table, stale)).toBeNull();
    const after = await readStoredConfig(table);
    expect(after?.pointer).toMatchObject({ hash: 'h2', removing: ['a0'] });
    expect(names(after?.raw)).toEqual(['/p/targets/b0']);
  });

  it('a save that wins deletes the chunks of the configuration it replaced', async () => {
    const table = await storedTable();
    const stored = await readStoredConfig(table);
    expect(await saveStoredConfig(table, raw('b0'), 'h2', [], NOW, stored)).toMatchObject({
      writes: 3,
      saved: { hash: 'h2' },
    });
    expect(await table.getMeta('config#h1.1#0')).toBeNull();
    expect(await table.getMeta('config#h2.2#0')).not.toBeNull();
  });

  it('a configuration saved again (changed, then changed back) has chunks of its own', async () => {
    // Why: a run that replaced the first save may delete its chunks late, after the same
    // configuration was saved again; with chunks named by the hash alone that tore the pointer.
    const table = await storedTable(raw('a0', 'b0'));
    await saveStoredConfig(table, raw('b0'), 'h2', [], NOW, await readStoredConfig(table));
    await saveStoredConfig(table, raw('a0', 'b0'), 'h1', [], NOW, await readStoredConfig(table));
    await table.deleteMeta('config#h1.1#0'); // the late deletion of the first save's chunks
    const stored = await readStoredConfig(table);
    expect(stored?.pointer).toMatchObject({ hash: 'h1', chunksId: 'h1.3' });
    expect(names(stored?.raw)).toEqual(['/p/targets/a0', '/p/targets/b0']);
  });
});

describe('the pointer generation', () => {
  it('is new at every write of the pointer, even for the same configuration, and read alone by readConfigGeneration', async () => {
    const table = createMemoryStateTable();
    expect(await readConfigGeneration(table)).toBeNull();
    const first = (await saveStoredConfig(table, raw('a0'), 'h1', [], NOW, null)).saved;
    expect(await readConfigGeneration(table)).toBe(first?.generation);
    const stored = await readStoredConfig(table);
    if (stored === null) throw new Error('expected a stored configuration');
    const removing = await saveRemoving(table, stored, ['b0']);
    expect(removing?.generation).not.toBe(first?.generation);
    expect(await readConfigGeneration(table)).toBe(removing?.generation);
    const again = await readStoredConfig(table);
    if (again === null) throw new Error('expected a stored configuration');
    const resaved = (await saveStoredConfig(table, raw('a0'), 'h1', [], NOW, again)).saved;
    expect(new Set([first?.generation, removing?.generation, resaved?.generation]).size).toBe(3);
  });

  it('reads as empty on a pointer stored before generations were kept', async () => {
    const table = createMemoryStateTable();
    await table.putMeta('last-valid-config', { hash: 'h0', chunks: 0, savedAt: NOW.toISOString(), removing: [] });
    expect(await readConfigGeneration(table)).toBe('');
  });
});

describe('the deleted discovery parameters owed (retiringDiscovery)', () => {
  it('reads as none on a pointer stored before they were kept', async () => {
    const table = createMemoryStateTable();
    await table.putMeta('last-valid-config', { hash: 'h0', chunks: 0, savedAt: NOW.toISOString(), removing: [] });
    expect((await readStoredConfig(table))?.pointer.retiringDiscovery).toEqual([]);
  });

  it('are stored with the configuration, kept by saveRemoving, and cleared keeping the generation', async () => {
    const table = createMemoryStateTable();
    const owed = ['/p/discovery/web'];
    const saved = (await saveStoredConfig(table, raw('a0'), 'h1', ['b0'], NOW, null, owed)).saved;
    expect(saved).toMatchObject({ removing: ['b0'], retiringDiscovery: owed });
    const first = await readStoredConfig(table);
    if (first === null) throw new Error('expected a stored configuration');
    expect(await saveRemoving(table, first, [])).toMatchObject({ removing: [], retiringDiscovery: owed });
    const second = await readStoredConfig(table);
    if (second === null) throw new Error('expected a stored configuration');
    expect(await saveRetiringDiscovery(table, first, [])).toBeNull(); // at an older version: refused
    const cleared = await saveRetiringDiscovery(table, second, []);
    expect(cleared).toMatchObject({ removing: [], retiringDiscovery: [], generation: second.pointer.generation });
    expect((await readStoredConfig(table))?.pointer.retiringDiscovery).toEqual([]);
  });
});
