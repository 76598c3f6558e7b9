/**
 * The discovery step through whole runs: a source whose answers the test sets, a memory state
 * table, real status pages on loopback. Time is stepped explicitly (a 60 s refresh, one-minute runs).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchStatusPage } from '../../../src/adapters/httpStatusSource.ts';
import { createMemoryStateTable } from '../../../src/adapters/memoryStateStore.ts';
import { readStoredConfig } from '../../../src/app/config/stored.ts';
import type { DiscoveryDeps, DiscoverySource } from '../../../src/app/discovery/ports.ts';
import type { CycleDeps, StateTable } from '../../../src/app/ports.ts';
import { runCycle } from '../../../src/app/run.ts';
import type { Notification } from '../../../src/core/alerts/types.ts';
import { DiscoveryListingError, type ListingOutcome } from '../../../src/core/discovery/listing.ts';
import type { RawConfig } from '../../../src/core/monitorConfig.ts';
import { onlyTheseRules } from '../../support/rulesDocuments.ts';

const BUSY_HTML = readFileSync(
  new URL('../../fixtures/apache-2.4.71/prefork-busy/report.html', import.meta.url),
  'latin1',
);
const T0 = Date.parse('2026-11-22T12:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

const CLOSING_RULES = onlyTheseRules([
  { groupBy: [], name: 'closing-seen', metric: 'slots_closing', op: '>=', threshold: 3, severity: 'critical' },
]);

let server: Server;
let port = 0;
beforeAll(async () => {
  // Every instance's page, by path: /server-status/<instance id>.
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=ISO-8859-1' });
    res.end(BUSY_HTML);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const document = () =>
  JSON.stringify({
    source: 'ec2',
    filters: { 'tag:Role': ['web'] },
    url: `http://{{privateIp}}:${port}/server-status/{{instanceId}}`,
    allowLoopback: true,
  });

/** A source whose next answer the test sets: instances by id, or a failure. */
function scriptedSource() {
  const source = {
    answer: { ids: [] as string[] } as { ids: string[] } | { fails: string },
    calls: 0,
    async list(): Promise<ListingOutcome> {
      source.calls++;
      const { answer } = source;
      if ('fails' in answer) return { ok: false, error: new DiscoveryListingError('ec2', 'throttled', answer.fails) };
      const instances = answer.ids.map((id) => ({ instanceId: id, privateIp: '127.0.0.1', tags: {} }));
      return { ok: true, listing: { instances, skipped: [], calls: 1, throttledRetries: 0 } };
    },
  };
  return source satisfies DiscoverySource<'ec2'>;
}

interface World {
  deps: CycleDeps;
  source: ReturnType<typeof scriptedSource>;
  sent: Notification[];
  logs: Array<{ level: string; message: string; extra: Record<string, unknown> }>;
  failing: Array<{ parameter: string; failing: boolean }>;
}

function world(raw: RawConfig, table: StateTable = createMemoryStateTable(), enabled = true): World {
  const source = scriptedSource();
  const sent: Notification[] = [];
  const logs: World['logs'] = [];
  const failing: World['failing'] = [];
  const log = (level: string) => (message: string, extra: Record<string, unknown>) => {
    logs.push({ level, message, extra });
  };
  const discovery: DiscoveryDeps = {
    sources: enabled ? { ec2: source } : {},
    warm: new Map(),
    listingBudgetMs: () => 5_000,
  };
  const deps: CycleDeps = {
    config: { loadRaw: async () => structuredClone(raw), getSecret: async (n) => Promise.reject(new Error(n)) },
    secretScope: { prefix: '/p', sharedSecretParameters: [] },
    table,
    notifier: { publish: async (n) => void sent.push(n) },
    fetch: (target) => fetchStatusPage(target),
    metrics: { target: () => {}, run: () => {}, discovery: (v) => void failing.push(v) },
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
    concurrency: 4,
    evaluate: {},
    claimLeaseMs: 60_000,
    warm: new Map(),
    warmConfig: { applied: null },
    discovery,
  };
  return { deps, source, sent, logs, failing };
}

const RAW = (targets: Record<string, string> = {}): RawConfig => ({
  targets,
  rules: { '/p/rules/closing': CLOSING_RULES },
  silences: {},
  discovery: { '/p/discovery/web': document() },
});

const subjects = (w: World) => w.sent.map((n) => n.subject);

describe('discoverTargets: through runCycle', () => {
  it('checks an instance launched within the refresh plus one run', async () => {
    const w = world(RAW());
    w.source.answer = { ids: ['i-1'] };
    expect((await runCycle(w.deps, at(0))).targets).toBe(1);
    w.source.answer = { ids: ['i-1', 'i-2'] };
    expect((await runCycle(w.deps, at(0.5))).targets).toBe(1); // not due: 30 s since the listing
    expect((await runCycle(w.deps, at(1))).targets).toBe(2);
    expect(w.source.calls).toBe(2);
  });

  it('names the discovery parameter in the pages of a discovered target', async () => {
    const w = world(RAW());
    w.source.answer = { ids: ['i-1'] };
    await runCycle(w.deps, at(0));
    expect(w.sent.map((n) => [n.subject, n.labels])).toEqual([
      ['[FIRING critical] i-1: closing-seen (3 >= 3)', { discovery: '/p/discovery/web' }],
    ]);
  });

  it('resolves the alerts of an instance scaled in as removed, never target-down', async () => {
    const w = world(RAW());
    w.source.answer = { ids: ['i-1', 'i-2'] };
    await runCycle(w.deps, at(0));
    w.source.answer = { ids: ['i-2'] };
    const summary = await runCycle(w.deps, at(1));
    expect(summary.targets).toBe(1);
    expect(subjects(w)).toEqual([
      '[FIRING critical] i-1: closing-seen (3 >= 3)',
      '[FIRING critical] i-2: closing-seen (3 >= 3)',
      '[RESOLVED critical] i-1: closing-seen (target removed from configuration)',
    ]);
  });

  it('keeps the last good list while the listing fails, pages once, resolves when it lists again', async () => {
    const w = world(RAW());
    w.source.answer = { ids: ['i-1'] };
    await runCycle(w.deps, at(0));
    w.source.answer = { fails: 'Rate exceeded' };
    const during = [await runCycle(w.deps, at(1)), await runCycle(w.deps, at(2)), await runCycle(w.deps, at(3))];
    expect(during.map((s) => s.targets)).toEqual([1, 1, 1]);
    w.source.answer = { ids: ['i-1'] };
    await runCycle(w.deps, at(4));
    expect(subjects(w)).toEqual([
      '[FIRING critical] i-1: closing-seen (3 >= 3)',
      '[FIRING warning] /p/discovery/web: discovery failing (ec2, throttled)',
      '[RESOLVED warning] /p/discovery/web: discovery lists again',
    ]);
    expect(w.sent[1]?.message).toContain('Why: throttled: Rate exceeded');
    expect(w.sent[1]?.message).toContain('The last good list stays in force (1 target(s) still checked)');
    expect(w.failing.map((f) => f.failing)).toEqual([false, true, true, true, false]);
  });

  it('keeps the stored list across a cold start whose listing fails', async () => {
    const table = createMemoryStateTable();
    const warm = world(RAW(), table);
    warm.source.answer = { ids: ['i-1', 'i-2'] };
    await runCycle(warm.deps, at(0));
    const cold = world(RAW(), table);
    cold.source.answer = { fails: 'Rate exceeded' };
    expect((await runCycle(cold.deps, at(1))).targets).toBe(2);
    expect(subjects(cold)).toEqual(['[FIRING warning] /p/discovery/web: discovery failing (ec2, throttled)']);
  });

  it('fails a document whose source the deployment did not enable, removing nothing', async () => {
    const w = world(RAW(), createMemoryStateTable(), false);
    expect((await runCycle(w.deps, at(0))).targets).toBe(0);
    expect(subjects(w)).toEqual(['[FIRING warning] /p/discovery/web: discovery failing (ec2, not-enabled)']);
    expect(w.sent[0]?.message).toContain('source not enabled: the deployment lists through no source');
  });

  it('leaves out a discovered target whose name a configured target holds, logs it, and pages it once', async () => {
    const configured = {
      '/p/targets/i-1': JSON.stringify({ url: `http://127.0.0.1:${port}/server-status/mine`, allowLoopback: true }),
    };
    const w = world(RAW(configured));
    w.source.answer = { ids: ['i-1', 'i-2'] };
    expect((await runCycle(w.deps, at(0))).targets).toBe(2);
    expect(w.logs.filter((l) => l.level === 'warn' && l.message.startsWith('discovered'))).toEqual([
      {
        level: 'warn',
        message: 'discovered target names taken: left out',
        extra: {
          count: 1,
          collisions: [
            '/p/discovery/web: expected a unique target name, found "i-1" again for instance i-1 (also the configured target i-1)',
          ],
        },
      },
    ]);
    expect(w.sent.map((n) => [n.target, n.subject, n.labels])).toEqual([
      [
        '/p/discovery/web',
        '[FIRING warning] /p/discovery/web: discovery names taken (1 left out)',
        { discovery: '/p/discovery/web' },
      ],
      ['i-1', '[FIRING critical] i-1: closing-seen (3 >= 3)', {}],
      ['i-2', '[FIRING critical] i-2: closing-seen (3 >= 3)', { discovery: '/p/discovery/web' }],
    ]);
    expect(w.sent[0]?.message.split('\n')[1]).toBe('- "i-1" for instance i-1: held by the configured target i-1');
    await runCycle(w.deps, at(1));
    await runCycle(w.deps, at(2));
    // The configured target renamed: the instance's name is free, it joins, the alert resolves.
    const renamed = { '/p/targets/mine': configured['/p/targets/i-1'] };
    w.deps.config = { ...w.deps.config, loadRaw: async () => RAW(renamed) };
    expect((await runCycle(w.deps, at(3))).targets).toBe(3);
    await runCycle(w.deps, at(4));
    expect(subjects(w).filter((s) => s.includes('/p/discovery/web'))).toEqual([
      '[FIRING warning] /p/discovery/web: discovery names taken (1 left out)',
      '[RESOLVED warning] /p/discovery/web: discovery names unique again',
    ]);
    expect(w.failing.map((f) => f.failing)).toEqual([false, false, false, false, false]);
  });

  it('pages the names taken of the later document, naming the earlier one that holds them, across a cold start', async () => {
    const table = createMemoryStateTable();
    const two = (): RawConfig => ({ ...RAW(), discovery: { ...RAW().discovery, '/p/discovery/xweb': document() } });
    const w = world(two(), table);
    w.source.answer = { ids: ['i-1'] };
    expect((await runCycle(w.deps, at(0))).targets).toBe(1);
    const cold = world(two(), table);
    cold.source.answer = { ids: ['i-1'] };
    await runCycle(cold.deps, at(1));
    expect([...subjects(w), ...subjects(cold)]).toEqual([
      '[FIRING warning] /p/discovery/xweb: discovery names taken (1 left out)',
      '[FIRING critical] i-1: closing-seen (3 >= 3)',
    ]);
    expect(w.sent[0]?.message.split('\n')[1]).toBe(
      '- "i-1" for instance i-1: held by instance i-1 of /p/discovery/web',
    );
  });

  it.each([
    ['in the container that paged', false],
    ['in a cold container', true],
  ])(
    'resolves the discovery alert of a parameter deleted while it fires, %s, and its targets as removed',
    async (_, cold) => {
      const table = createMemoryStateTable();
      const w = world(RAW(), table);
      w.source.answer = { ids: ['i-1'] };
      await runCycle(w.deps, at(0));
      w.source.answer = { fails: 'Rate exceeded' };
      await runCycle(w.deps, at(1));
      const next = cold ? world(RAW(), table) : w;
      next.deps.config = { ...next.deps.config, loadRaw: async () => ({ ...RAW(), discovery: {} }) };
      expect((await runCycle(next.deps, at(2))).targets).toBe(0);
      await runCycle(next.deps, at(3));
      expect([...subjects(w), ...(cold ? subjects(next) : [])]).toEqual([
        '[FIRING critical] i-1: closing-seen (3 >= 3)',
        '[FIRING warning] /p/discovery/web: discovery failing (ec2, throttled)',
        '[RESOLVED critical] i-1: closing-seen (target removed from configuration)',
        '[RESOLVED warning] /p/discovery/web: discovery document removed',
      ]);
      const resolved = next.sent.at(-1);
      expect([resolved?.reason, resolved?.message]).toEqual([
        'resolved',
        `The discovery parameter /p/discovery/web was deleted: its listing is no longer tried, and the targets it listed leave the configuration as removed (checked at ${at(2).toISOString()}).`,
      ]);
    },
  );

  it('removes the targets of a discovery parameter deleted', async () => {
    const w = world(RAW());
    w.source.answer = { ids: ['i-1'] };
    await runCycle(w.deps, at(0));
    w.deps.config = { ...w.deps.config, loadRaw: async () => ({ ...RAW(), discovery: {} }) };
    expect((await runCycle(w.deps, at(1))).targets).toBe(0);
    expect(subjects(w).at(-1)).toBe('[RESOLVED critical] i-1: closing-seen (target removed from configuration)');
  });
});

/** `table` whose writes of the discovery alert's item fail as `how` says: the run dies there. */
function dyingAt(table: StateTable, how: 'before the claim' | 'after the claim'): StateTable {
  const died = () => Object.assign(new Error('the run died'), { name: 'CrashError' });
  return {
    ...table,
    put: async (key, item, version, now) => {
      if (!key.startsWith('discovery#')) return table.put(key, item, version, now);
      if (how === 'before the claim') throw died();
      await table.put(key, item, version, now);
      throw died();
    },
  };
}

describe('a deleted discovery parameter stays owed until its alert is resolved', () => {
  const DELETED = (): RawConfig => ({ ...RAW(), discovery: {} });
  const FIRING = '[FIRING warning] /p/discovery/web: discovery failing (ec2, throttled)';
  const REMOVED = '[RESOLVED warning] /p/discovery/web: discovery document removed';

  /** A world whose alert fires at 12:00 (listing throttled), on `table`. */
  async function firing(table: StateTable) {
    const w = world(RAW(), table);
    w.source.answer = { fails: 'Rate exceeded' };
    await runCycle(w.deps, at(0));
    expect(subjects(w)).toEqual([FIRING]);
    return w;
  }

  it.each(['before the claim', 'after the claim'] as const)(
    'a run that stored the configuration without it and died %s of the resolve: the next run resolves it',
    async (how) => {
      const table = createMemoryStateTable();
      await firing(table);
      const dying = world(DELETED(), dyingAt(table, how));
      await expect(runCycle(dying.deps, at(1))).rejects.toThrow();
      expect(subjects(dying)).toEqual([]);
      const next = world(DELETED(), table); // a new container: the dead one's memory went with it
      await runCycle(next.deps, at(2));
      await runCycle(next.deps, at(3));
      expect(subjects(next)).toEqual([REMOVED]);
      expect(await table.loadMany(['discovery#web'])).toEqual(new Map());
      expect((await readStoredConfig(table))?.pointer.retiringDiscovery).toEqual([]);
    },
  );

  it('a resolve SNS refused once is sent by the next run of the same container', async () => {
    const table = createMemoryStateTable();
    const w = await firing(table);
    w.deps.config = { ...w.deps.config, loadRaw: async () => DELETED() };
    const publish = w.deps.notifier.publish;
    let refusals = 1;
    w.deps.notifier = {
      publish: async (n) => {
        if (n.rule === 'discovery-failing' && refusals-- > 0) throw new Error('SNS is down');
        return publish(n);
      },
    };
    await expect(runCycle(w.deps, at(1))).rejects.toThrow();
    expect((await readStoredConfig(table))?.pointer.retiringDiscovery).toEqual(['/p/discovery/web']);
    await runCycle(w.deps, at(2));
    await runCycle(w.deps, at(3));
    expect(subjects(w)).toEqual([FIRING, REMOVED]);
    expect((await readStoredConfig(table))?.pointer.retiringDiscovery).toEqual([]);
  });

  it('a run whose claim creates the alert item after another run deleted the document owes its resolve', async () => {
    const table = createMemoryStateTable();
    const other = world(DELETED(), table);
    let raced = false;
    // Why: the other run stores the configuration without the document, finds no alert item (none
    // fired yet), and clears what it owed, between this run's apply and its claim creating the item.
    const racing: StateTable = {
      ...table,
      put: async (key, item, version, now) => {
        if (key === 'discovery#web' && !raced) {
          raced = true;
          await runCycle(other.deps, at(1));
        }
        return table.put(key, item, version, now);
      },
    };
    const w = world(RAW(), racing);
    w.source.answer = { ids: [] };
    await runCycle(w.deps, at(0));
    w.source.answer = { fails: 'Rate exceeded' };
    await runCycle(w.deps, at(1));
    expect(raced).toBe(true);
    expect((await readStoredConfig(table))?.pointer.retiringDiscovery).toEqual(['/p/discovery/web']);
    await runCycle(other.deps, at(2));
    expect([...subjects(w), ...subjects(other)]).toEqual([FIRING, REMOVED]);
    expect((await readStoredConfig(table))?.pointer.retiringDiscovery).toEqual([]);
  });

  it('a parameter that comes back before its resolve went out is no longer owed: its alert stands as it is', async () => {
    const table = createMemoryStateTable();
    await firing(table);
    const dying = world(DELETED(), dyingAt(table, 'before the claim'));
    await expect(runCycle(dying.deps, at(1))).rejects.toThrow();
    expect((await readStoredConfig(table))?.pointer.retiringDiscovery).toEqual(['/p/discovery/web']);
    const back = world(RAW(), table);
    back.source.answer = { fails: 'Rate exceeded' };
    await runCycle(back.deps, at(2));
    expect(subjects(back)).toEqual([]); // still failing: its firing page stands
    expect((await readStoredConfig(table))?.pointer.retiringDiscovery).toEqual([]);
    back.source.answer = { ids: [] };
    await runCycle(back.deps, at(3));
    expect(subjects(back)).toEqual(['[RESOLVED warning] /p/discovery/web: discovery lists again']);
  });
});
