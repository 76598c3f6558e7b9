/**
 * Applying a configuration while another run applies it too (memory table, DynamoDB's
 * conditional semantics): a removal one run still owes is never dropped by the other.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStateTable } from '../../../src/adapters/memoryStateStore.ts';
import { resolveConfig } from '../../../src/app/config/resolve.ts';
import { readStoredConfig } from '../../../src/app/config/stored.ts';
import type { CycleDeps, PageRouter, StateTable } from '../../../src/app/ports.ts';
import { startRun } from '../../../src/app/runContext.ts';
import type { AlertRecord, Notification } from '../../../src/core/alerts/types.ts';
import type { RawConfig } from '../../../src/core/monitorConfig.ts';
import { packTargets } from '../../../src/core/targetDocuments.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const at = (minute: number) => new Date(T0 + minute * 60_000);
const LEASE_MS = 90_000;

const raw = (...targets: string[]): RawConfig => ({
  targets: Object.fromEntries(targets.map((t) => [`/p/targets/${t}`, JSON.stringify({ url: `http://${t}.test/s` })])),
  rules: {
    '/p/rules/all': JSON.stringify({ rules: [{ name: 'closing', metric: 'slots_closing', op: '>=', threshold: 1 }] }),
  },
  silences: {},
});

const firing: AlertRecord = {
  fingerprint: 'fp-a0',
  target: 'a0',
  rule: 'closing',
  severity: 'warning',
  state: 'firing',
  activeAt: at(0).toISOString(),
  firedAt: at(0).toISOString(),
  resolvedAt: null,
  lastSentAt: at(0).toISOString(),
  lastSentStatus: 'firing',
  value: 3,
  threshold: 1,
};

function deps(table: StateTable, config: RawConfig, pages: Notification[]): CycleDeps {
  return {
    config: { loadRaw: async () => structuredClone(config), getSecret: async () => '' },
    secretScope: { prefix: '/p', sharedSecretParameters: [] },
    table,
    notifier: { publish: async (n) => void pages.push(n) },
    fetch: async () => {
      throw new Error('resolveConfig fetches nothing');
    },
    metrics: { target: () => {}, run: () => {} },
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    concurrency: 1,
    evaluate: {},
    claimLeaseMs: LEASE_MS,
    warm: new Map(),
    warmConfig: { applied: null },
  };
}

/** Pages straight to the notifier (no run's groups hold them here): null, no group holds it. */
const alone = (notifier: CycleDeps['notifier']): PageRouter => ({
  publish: async (page) => {
    await notifier.publish(page);
    return null;
  },
});

/** The configuration step of one run at `now`, with the state failures its ledger kept. */
async function resolve(d: CycleDeps, now: Date) {
  const ctx = startRun(d, now);
  const resolved = await resolveConfig(ctx, alone(d.notifier));
  return { ...resolved, stateFailures: ctx.ledger.stateFailures };
}

describe('two runs applying a configuration that removes a target whose item another run holds', () => {
  it('both leave the removal owed in the pointer; a run after the lease sends its resolve once', async () => {
    const table = createMemoryStateTable();
    const pages: Notification[] = [];
    await resolve(deps(table, raw('a0', 'b0'), pages), at(0));
    // a0 fired, and a run that died holds its item until minute 1.5.
    const state = { target: 'a0', evaluatedAt: at(0).toISOString(), consecutiveFailures: 0, counters: null };
    const claim = { token: 'dead', expiresAtMs: at(0).getTime() + LEASE_MS, pages: [], deleteAfter: false };
    expect(await table.put('target#a0', { state: { ...state, alerts: { 'fp-a0': firing } }, claim }, null, at(0))).toBe(
      true,
    );

    // Run A reads the old pointer; run B applies the new configuration whole before A reads the
    // old chunks (B owes the removal: the item is claimed) and deletes them.
    let raced = false;
    const racing: StateTable = {
      ...table,
      getMeta: async (key) => {
        if (key.startsWith('config#') && !raced) {
          raced = true;
          const b = await resolve(deps(table, raw('b0'), pages), at(1));
          expect(b.applied).toBe(true);
          expect((await readStoredConfig(table))?.pointer.removing).toEqual(['a0']);
        }
        return table.getMeta(key);
      },
    };
    const a = await resolve(deps(racing, raw('b0'), pages), at(1));
    expect(raced).toBe(true);
    expect(a.applied).toBe(true);
    expect((await readStoredConfig(table))?.pointer.removing).toEqual(['a0']);
    expect(pages).toEqual([]);

    // Past the dead run's lease: the resolve goes out once, the item and the owed removal go.
    await resolve(deps(table, raw('b0'), pages), at(2));
    expect(pages.map((p) => p.subject)).toEqual(['[RESOLVED warning] a0: closing (target removed from configuration)']);
    expect((await readStoredConfig(table))?.pointer.removing).toEqual([]);
    expect(await table.loadMany(['target#a0'])).toEqual(new Map());
  });
});

describe('a target removed while its grouped alert is firing', () => {
  it.each<[string, number, string[], boolean]>([
    ['within the longest group interval plus the retention (5m + 15m): item and owed removal kept', 20, ['a0'], true],
    ['past it: the item is deleted and the removal finished', 21, [], false],
  ])('%s', async (_, minute, removing, itemKept) => {
    const table = createMemoryStateTable();
    const pages: Notification[] = [];
    await resolve(deps(table, raw('a0', 'b0'), pages), at(0));
    const state = { target: 'a0', evaluatedAt: at(0).toISOString(), consecutiveFailures: 0, counters: null };
    const grouped = { ...firing, group: '{"rule":"closing"}' };
    expect(
      await table.put('target#a0', { state: { ...state, alerts: { 'fp-a0': grouped } }, claim: null }, null, at(0)),
    ).toBe(true);

    await resolve(deps(table, raw('b0'), pages), at(1));
    expect(pages.map((p) => [p.subject, p.group?.key])).toEqual([
      ['[RESOLVED warning] a0: closing (target removed from configuration)', '{"rule":"closing"}'],
    ]);
    expect((await readStoredConfig(table))?.pointer.removing).toEqual(['a0']);

    await resolve(deps(table, raw('b0'), pages), at(minute));
    expect(pages).toHaveLength(1);
    expect((await readStoredConfig(table))?.pointer.removing).toEqual(removing);
    expect((await table.loadMany(['target#a0'])).has('target#a0')).toBe(itemKept);
  });
});

describe('a pointer another run moves on under every attempt', () => {
  it('the configuration is not applied this run: ContentionError, after five attempts', async () => {
    const table = createMemoryStateTable();
    await resolve(deps(table, raw('a0', 'b0'), []), at(0));
    let attempts = 0;
    const busy: StateTable = {
      ...table,
      putMeta: async (key, value, version) => {
        if (key === 'last-valid-config') {
          attempts++;
          const now = await table.getMeta(key);
          await table.putMeta(key, now?.value ?? {}, now?.version ?? null); // the other run, first
        }
        return table.putMeta(key, value, version);
      },
    };
    const result = await resolve(deps(busy, raw('b0'), []), at(1));
    expect(attempts).toBe(5);
    expect(result.applied).toBe(false);
    expect(result.stateFailures.map((e) => (e as Error).name)).toEqual(['ContentionError']);
    expect((result.stateFailures[0] as Error).message).toBe(
      'expected to write meta#last-valid-config within 5 attempts, found it changed by another run each time',
    );
  });
});

describe('a target written straight to SSM with what the one validation refuses', () => {
  const NO_CREDENTIALS =
    'expected a URL without credentials (put "user:password" in a SecureString named by authParameter)';
  const B0_SECRETS = '/p/secrets/b0 or a parameter below it, or a shared secret (sharedSecretParameters: none)';
  it.each([
    {
      what: 'credentials in its URL',
      b0: { url: 'http://ops:pw@b0.test/s' },
      problem: `/p/targets/b0 (field url): ${NO_CREDENTIALS}, found "http://ops:***@b0.test/s"`,
    },
    {
      what: 'percent-encoded credentials in its URL',
      b0: { url: 'http://ops%3Apw@b0.test/s' },
      problem: `/p/targets/b0 (field url): ${NO_CREDENTIALS}, found "http://***@b0.test/s"`,
    },
    {
      what: "another target's secret",
      b0: { url: 'http://evil.test/s', authParameter: '/p/secrets/a0' },
      problem: `/p/targets/b0 (field authParameter): expected ${B0_SECRETS}, found "/p/secrets/a0"`,
    },
  ])(
    '$what: the last valid configuration stays in force and the configuration alert fires',
    async ({ b0, problem }) => {
      // Prepare: a0 and b0 applied
      const table = createMemoryStateTable();
      const pages: Notification[] = [];
      const valid = raw('a0', 'b0');
      await resolve(deps(table, valid, pages), at(0));
      const changed = { ...valid, targets: { ...valid.targets, '/p/targets/b0': JSON.stringify(b0) } };
      // Act
      const resolved = await resolve(deps(table, changed, pages), at(1));
      // Assess
      expect(resolved.error).toBe(problem);
      expect(resolved.config?.targets.map((t) => [t.name, t.url, t.authParameter])).toEqual([
        ['a0', 'http://a0.test/s', undefined],
        ['b0', 'http://b0.test/s', undefined],
      ]);
      expect(pages.map((p) => p.subject)).toEqual(['[FIRING warning] httpd-status-alerts: invalid configuration']);
      expect(JSON.stringify(pages)).not.toContain('ops:pw');
    },
  );
});

describe('targets in list documents', () => {
  /** `targets` in one list document, `/p/targets/list-0001`. */
  const listed = (...targets: Array<string | { name: string; url: string }>): RawConfig => ({
    ...raw(),
    targets: {
      '/p/targets/list-0001': JSON.stringify({
        targets: targets.map((t) => (typeof t === 'string' ? { name: t, url: `http://${t}.test/s` } : t)),
      }),
    },
  });
  const firingOf = (target: string) => ({
    state: {
      target,
      evaluatedAt: at(0).toISOString(),
      consecutiveFailures: 0,
      counters: null,
      alerts: { [`fp-${target}`]: { ...firing, fingerprint: `fp-${target}`, target } },
    },
    claim: null,
  });

  it('an entry taken out of its list is removed: its alert resolved, its item deleted, the others kept', async () => {
    const table = createMemoryStateTable();
    const pages: Notification[] = [];
    await resolve(deps(table, listed('a0', 'b0', 'c0'), pages), at(0));
    expect(await table.put('target#b0', firingOf('b0'), null, at(0))).toBe(true);
    expect(await table.put('target#c0', firingOf('c0'), null, at(0))).toBe(true);

    const resolved = await resolve(deps(table, listed('a0', 'c0'), pages), at(1));
    expect(resolved.config?.targets.map((t) => t.name)).toEqual(['a0', 'c0']);
    expect(pages.map((p) => p.subject)).toEqual(['[RESOLVED warning] b0: closing (target removed from configuration)']);
    expect([...(await table.loadMany(['target#b0', 'target#c0'])).keys()]).toEqual(['target#c0']);
    expect((await readStoredConfig(table))?.pointer.removing).toEqual([]);
  });

  it('a bad entry: the last valid configuration stays in force, the problem names the parameter and the index', async () => {
    const table = createMemoryStateTable();
    const pages: Notification[] = [];
    await resolve(deps(table, listed('a0', 'b0'), pages), at(0));
    const resolved = await resolve(
      deps(table, listed('a0', 'b0', { name: 'c0', url: 'ftp://c0.test/s' }), pages),
      at(1),
    );
    expect(resolved.error).toBe(
      '/p/targets/list-0001 (field targets[2].url): expected an http:// or https:// URL, found "ftp://c0.test/s"',
    );
    expect(resolved.config?.targets.map((t) => t.name)).toEqual(['a0', 'b0']);
    expect(pages.map((p) => p.subject)).toEqual(['[FIRING warning] httpd-status-alerts: invalid configuration']);
  });

  it('targets moved from their own parameters into a list: no page, no removal, read between the two writes too', async () => {
    const table = createMemoryStateTable();
    const pages: Notification[] = [];
    await resolve(deps(table, raw('a0', 'b0'), pages), at(0));
    expect(await table.put('target#a0', firingOf('a0'), null, at(0))).toBe(true);
    // The list written, the old parameters not yet deleted; then deleted.
    const between = { ...raw('a0', 'b0'), targets: { ...raw('a0', 'b0').targets, ...listed('a0', 'b0').targets } };
    for (const [minute, config] of [
      [1, between],
      [2, listed('a0', 'b0')],
    ] as const) {
      const resolved = await resolve(deps(table, config, pages), at(minute));
      expect(resolved.error).toBeNull();
      expect(resolved.config?.targets.map((t) => t.name)).toEqual(['a0', 'b0']);
    }
    expect(pages).toEqual([]);
    expect((await readStoredConfig(table))?.pointer.removing).toEqual([]);
    expect((await table.loadMany(['target#a0'])).has('target#a0')).toBe(true);
  });

  it('targets moved into a list with defaults, as targets pack writes it: equal once merged, one target each', async () => {
    const fields = (t: string) => ({ url: `http://${t}.test/s`, timeoutMs: 5000, labels: { env: 'prod', role: t } });
    const singles: RawConfig = {
      ...raw(),
      targets: Object.fromEntries(['a0', 'b0'].map((t) => [`/p/targets/${t}`, JSON.stringify(fields(t))])),
    };
    const [list] = packTargets(
      ['a0', 'b0'].map((name) => ({ name, document: { name, ...fields(name) } })),
      'standard',
      '/p/targets',
      new Set(),
    );
    expect(list?.defaults).toEqual(['timeoutMs', 'labels.env']);
    const packed: RawConfig = { ...raw(), targets: { [list?.parameter as string]: list?.text as string } };
    const table = createMemoryStateTable();
    const pages: Notification[] = [];
    await resolve(deps(table, singles, pages), at(0));
    expect(await table.put('target#a0', firingOf('a0'), null, at(0))).toBe(true);
    const between = { ...singles, targets: { ...singles.targets, ...packed.targets } };
    for (const [minute, config] of [
      [1, between],
      [2, packed],
    ] as const) {
      const resolved = await resolve(deps(table, config, pages), at(minute));
      expect(resolved.error).toBeNull();
      expect(resolved.config?.targets.map((t) => [t.name, t.timeoutMs, t.labels])).toEqual([
        ['a0', 5000, { env: 'prod', role: 'a0' }],
        ['b0', 5000, { env: 'prod', role: 'b0' }],
      ]);
    }
    expect(pages).toEqual([]);
    expect((await readStoredConfig(table))?.pointer.removing).toEqual([]);
    expect((await table.loadMany(['target#a0'])).has('target#a0')).toBe(true);
  });
});
