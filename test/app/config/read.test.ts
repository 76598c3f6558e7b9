/**
 * Reading a run's configuration (memory table): what it answers, from where, and that it writes
 * nothing, whatever it finds.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStateTable } from '../../../src/adapters/memoryStateStore.ts';
import { readConfig } from '../../../src/app/config/read.ts';
import { resolveConfig } from '../../../src/app/config/resolve.ts';
import type { CycleDeps, StateTable, WarmConfig } from '../../../src/app/ports.ts';
import { startRun } from '../../../src/app/runContext.ts';
import type { RawConfig } from '../../../src/core/monitorConfig.ts';

const NOW = new Date('2026-11-22T12:00:00Z');

const raw = (...targets: string[]): RawConfig => ({
  targets: Object.fromEntries(targets.map((t) => [`/p/targets/${t}`, JSON.stringify({ url: `http://${t}.test/s` })])),
  rules: {},
  silences: {},
});
const BROKEN: RawConfig = { targets: { '/p/targets/a0': '{"url": 42}' }, rules: {}, silences: {} };

/** The table with every write counted. */
function counted(table: StateTable): StateTable & { writes: string[] } {
  const writes: string[] = [];
  return {
    ...table,
    writes,
    put: (key, ...rest) => {
      writes.push(key);
      return table.put(key, ...rest);
    },
    remove: (key, ...rest) => {
      writes.push(key);
      return table.remove(key, ...rest);
    },
    putMeta: (key, ...rest) => {
      writes.push(key);
      return table.putMeta(key, ...rest);
    },
    deleteMeta: (key, ...rest) => {
      writes.push(key);
      return table.deleteMeta(key, ...rest);
    },
  };
}

function deps(table: StateTable, config: RawConfig, loads: unknown[], warmConfig: WarmConfig): CycleDeps {
  return {
    config: {
      loadRaw: async (options) => {
        loads.push(options ?? null);
        return structuredClone(config);
      },
      getSecret: async () => '',
    },
    secretScope: { prefix: '/p', sharedSecretParameters: [] },
    table,
    notifier: { publish: async () => {} },
    fetch: async () => {
      throw new Error('readConfig fetches nothing');
    },
    metrics: { target: () => {}, run: () => {} },
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    concurrency: 1,
    evaluate: {},
    claimLeaseMs: 60_000,
    warm: new Map(),
    warmConfig,
  };
}

/** `config` applied by another container's run (its own warm memory), so the table holds it. */
async function appliedElsewhere(table: StateTable, config: RawConfig): Promise<void> {
  const ctx = startRun(deps(table, config, [], { applied: null }), NOW);
  await resolveConfig(ctx, { publish: async () => null });
}

describe('readConfig', () => {
  it.each([
    { case: 'valid, nothing stored', stored: null, current: raw('a0'), valid: true, targets: ['a0'], problems: [] },
    {
      case: 'invalid, the last valid one stored: it stays in force',
      stored: raw('a0', 'b0'),
      current: BROKEN,
      valid: false,
      targets: ['a0', 'b0'],
      problems: ['/p/targets/a0 (field url): expected a string, found 42'],
    },
    {
      case: 'invalid, none stored: nothing in force',
      stored: null,
      current: BROKEN,
      valid: false,
      targets: null,
      problems: ['/p/targets/a0 (field url): expected a string, found 42'],
    },
  ])('$case; writes nothing', async ({ stored, current, valid, targets, problems }) => {
    // Prepare
    const memory = createMemoryStateTable();
    if (stored !== null) await appliedElsewhere(memory, stored);
    const table = counted(memory);
    const ctx = startRun(deps(table, current, [], { applied: null }), NOW);
    // Act
    const read = await readConfig(ctx);
    // Assess
    expect({
      valid: read.valid,
      targets: read.valid
        ? read.config.targets.map((t) => t.name)
        : (read.fallback?.config.targets.map((t) => t.name) ?? null),
      problems: read.valid ? [] : read.problems,
      writes: table.writes,
      failures: ctx.ledger.stateFailures,
    }).toEqual({ valid, targets, problems, writes: [], failures: [] });
  });

  it.each([
    { case: 'cold, nothing stored: the source may answer from its cache', warm: false, elsewhere: false, fresh: null },
    {
      case: 'cold, a configuration stored: read afresh (a cache may predate it)',
      warm: false,
      elsewhere: true,
      fresh: { fresh: true },
    },
    { case: 'warm, the table still at what this container applied', warm: true, elsewhere: false, fresh: null },
    {
      case: 'warm, another container applied one since: read afresh',
      warm: true,
      elsewhere: true,
      fresh: { fresh: true },
    },
  ])('$case', async ({ warm, elsewhere, fresh }) => {
    // Prepare
    const table = createMemoryStateTable();
    const warmConfig: WarmConfig = { applied: null };
    if (warm) await resolveConfig(startRun(deps(table, raw('a0'), [], warmConfig), NOW), { publish: async () => null });
    if (elsewhere) await appliedElsewhere(table, raw('b0'));
    const loads: unknown[] = [];
    // Act
    await readConfig(startRun(deps(table, raw('a0'), loads, warmConfig), NOW));
    // Assess
    expect(loads).toEqual([fresh]);
  });

  it.each([
    {
      case: 'the table still at the generation its parameters were read at: the cache may answer',
      between: false,
      loads: [null, null],
    },
    {
      case: 'another container stored a configuration since its parameters were read: read afresh',
      between: true,
      loads: [null, { fresh: true }],
    },
  ])('nothing applied here (its first apply failed): $case', async ({ between, loads: expected }) => {
    // Prepare: a container reads its parameters with nothing stored, and applies nothing
    const table = createMemoryStateTable();
    const warmConfig: WarmConfig = { applied: null };
    const loads: unknown[] = [];
    await readConfig(startRun(deps(table, raw('a0'), loads, warmConfig), NOW));
    if (between) await appliedElsewhere(table, raw('b0'));
    // Act
    await readConfig(startRun(deps(table, raw('a0'), loads, warmConfig), NOW));
    // Assess
    expect(loads).toEqual(expected);
  });

  it('the pointer unreadable: the configuration still read afresh, the failure in the ledger', async () => {
    // Prepare
    const memory = createMemoryStateTable();
    const failing: StateTable = {
      ...memory,
      getMeta: async () => {
        throw new Error('throttled');
      },
    };
    const warmConfig: WarmConfig = { applied: null };
    await resolveConfig(startRun(deps(memory, raw('a0'), [], warmConfig), NOW), { publish: async () => null });
    const loads: unknown[] = [];
    const ctx = startRun(deps(failing, raw('a0'), loads, warmConfig), NOW);
    // Act
    const read = await readConfig(ctx);
    // Assess
    expect({ valid: read.valid, loads, failures: ctx.ledger.stateFailures }).toEqual({
      valid: true,
      loads: [{ fresh: true }],
      failures: [new Error('throttled')],
    });
  });
});
