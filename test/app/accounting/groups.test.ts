/**
 * Grouping through whole runs on the memory table: time stepped one minute at a time, the closing
 * slots of each target set per step, every accepted page recorded with the alerts it names.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStateTable } from '../../../src/adapters/memoryStateStore.ts';
import { flushGroups, GroupInbox, groupItemKey, openGroups } from '../../../src/app/accounting/groups.ts';
import type { CycleDeps, StateTable } from '../../../src/app/ports.ts';
import { type CycleSummary, runCycle } from '../../../src/app/run.ts';
import type { Notification } from '../../../src/core/alerts/types.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const at = (minute: number) => new Date(T0 + minute * 60_000);

/** A page as the test reads it: its status, reason, and `target/rule status` of each alert it names. */
interface Seen {
  minute: number;
  status: string;
  reason: string;
  alerts: string[];
}

function named(page: Notification): string[] {
  const alerts = page.payload.alerts;
  if (page.payload.kind !== 'group' || !Array.isArray(alerts)) return [`${page.target}/${page.rule} ${page.status}`];
  return (alerts as Array<{ target: string; rule: string; status: string }>).map(
    (a) => `${a.target}/${a.rule} ${a.status}`,
  );
}

const rule = (name: string, threshold: number, extra: Record<string, unknown> = {}) => ({
  name,
  metric: 'slots_closing',
  op: '>=',
  threshold,
  severity: 'critical',
  ...extra,
});

class Fleet {
  readonly table: StateTable = createMemoryStateTable();
  readonly closing = new Map<string, number>();
  readonly pages: Seen[] = [];
  /** Each published page's `order` (issue 21), in publish order. */
  readonly orders: unknown[] = [];
  readonly warm = new Map();
  minute = 0;
  silences: object[] = [];
  summary: CycleSummary | null = null;
  readonly targets: Record<string, Record<string, string>>;
  readonly rules: object[];

  constructor(targets: Record<string, Record<string, string>>, rules: object[]) {
    this.targets = targets;
    this.rules = rules;
    for (const t of Object.keys(targets)) this.closing.set(t, 0);
  }

  deps(): CycleDeps {
    const targets: Record<string, string> = {};
    for (const [t, labels] of Object.entries(this.targets))
      targets[`/g/targets/${t}`] = JSON.stringify({ url: `http://${t}.test/server-status`, labels });
    const silences: Record<string, string> =
      this.silences.length > 0 ? { '/g/silences/all': JSON.stringify({ silences: this.silences }) } : {};
    const raw = { targets, rules: { '/g/rules/all': JSON.stringify({ rules: this.rules }) }, silences };
    return {
      config: { loadRaw: async () => structuredClone(raw), getSecret: async () => '' },
      table: this.table,
      notifier: {
        publish: async (page) => {
          this.orders.push(page.payload.order);
          this.pages.push({ minute: this.minute, status: page.status, reason: page.reason, alerts: named(page) });
        },
      },
      fetch: async (target) => {
        const c = this.closing.get(new URL(target.url).hostname.replace('.test', '')) ?? 0;
        const body = `Total Accesses: 100\nUptime: 1000\nScoreboard: ${'C'.repeat(c)}${'_'.repeat(8 - c)}\n`;
        return { ok: true, body, status: 200, contentType: 'text/plain', latencyMs: 1, url: target.url };
      },
      metrics: { target: () => {}, run: () => {} },
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      concurrency: 4,
      evaluate: {},
      claimLeaseMs: 90_000,
      warm: this.warm,
    };
  }

  /** Set the closing slots, run at `minute`, and answer the pages that run sent. */
  async step(minute: number, closing: Record<string, number> = {}): Promise<Seen[]> {
    for (const [t, c] of Object.entries(closing)) this.closing.set(t, c);
    this.minute = minute;
    const before = this.pages.length;
    this.summary = await runCycle(this.deps(), at(minute));
    return this.pages.slice(before);
  }
}

const page = (minute: number, status: string, reason: string, alerts: string[]): Seen => ({
  minute,
  status,
  reason,
  alerts,
});

describe('grouping by rule (the default), group interval 5m', () => {
  const fleet = new Fleet({ 'web-1': {}, 'web-2': {}, 'web-3': {} }, [rule('closing-seen', 1)]);
  it.each<[string, number, Record<string, number>, Seen[]]>([
    [
      'the first alert of a group pages at once, as its own page',
      0,
      { 'web-1': 2 },
      [page(0, 'firing', 'first', ['web-1/closing-seen firing'])],
    ],
    ['alerts that join wait for the group interval', 1, { 'web-2': 2, 'web-3': 2 }, []],
    ['still waiting a minute before it elapses', 4, {}, []],
    [
      'one update names every firing alert once the interval has passed',
      5,
      {},
      [
        page(5, 'firing', 'first', [
          'web-1/closing-seen firing',
          'web-2/closing-seen firing',
          'web-3/closing-seen firing',
        ]),
      ],
    ],
    ['a partial resolve waits too', 6, { 'web-1': 0 }, []],
    [
      'the update carries the resolve beside the alerts still firing',
      10,
      {},
      [
        page(10, 'firing', 'first', [
          'web-2/closing-seen firing',
          'web-3/closing-seen firing',
          'web-1/closing-seen resolved',
        ]),
      ],
    ],
    ['the rest resolve', 11, { 'web-2': 0, 'web-3': 0 }, []],
    [
      'one resolved page closes the group',
      15,
      {},
      [page(15, 'resolved', 'resolved', ['web-2/closing-seen resolved', 'web-3/closing-seen resolved'])],
    ],
    [
      'a new incident after the group closed pages at once',
      16,
      { 'web-3': 4 },
      [page(16, 'firing', 'first', ['web-3/closing-seen firing'])],
    ],
  ])('minute %#: %s', async (_name, minute, closing, expected) => {
    expect(await fleet.step(minute, closing)).toEqual(expected);
  });

  it('no group is left open once every alert resolved and was paged (and its tombstones expired)', async () => {
    await fleet.step(17, { 'web-3': 0 });
    expect(await fleet.step(21)).toEqual([page(21, 'resolved', 'resolved', ['web-3/closing-seen resolved'])]);
    await fleet.step(31);
    expect(await openGroups(fleet.table)).toHaveLength(1); // resolved alerts kept 15 minutes against replays
    await fleet.step(32);
    expect(await openGroups(fleet.table)).toEqual([]);
  });
});

describe('overlapping groups: one alert in a rule group, another rule grouped by cluster, one ungrouped', () => {
  const fleet = new Fleet({ 'a-1': { cluster: 'a' }, 'a-2': { cluster: 'a' }, 'b-1': { cluster: 'b' } }, [
    rule('closing-seen', 1),
    rule('closing-many', 3, { groupBy: ['labels.cluster'] }),
    rule('closing-all', 8, { groupBy: [] }),
  ]);
  it.each<[string, number, Record<string, number>, Seen[]]>([
    [
      'each group pages its first alerts at once; the ungrouped rule pages each alert',
      0,
      { 'a-1': 8, 'b-1': 3 },
      [
        page(0, 'firing', 'first', ['a-1/closing-all firing']),
        page(0, 'firing', 'first', ['a-1/closing-seen firing', 'b-1/closing-seen firing']),
        page(0, 'firing', 'first', ['a-1/closing-many firing']),
        page(0, 'firing', 'first', ['b-1/closing-many firing']),
      ],
    ],
    ['a joiner in cluster a waits for its own group only', 2, { 'a-2': 4 }, []],
    [
      'the cluster-a group and the rule group update on their own clocks',
      5,
      {},
      [
        page(5, 'firing', 'first', ['a-1/closing-seen firing', 'a-2/closing-seen firing', 'b-1/closing-seen firing']),
        page(5, 'firing', 'first', ['a-1/closing-many firing', 'a-2/closing-many firing']),
      ],
    ],
  ])('minute %#: %s', async (_name, minute, closing, expected) => {
    const pages = await fleet.step(minute, closing);
    const order = (p: Seen) => p.alerts.join();
    expect([...pages].sort((x, y) => order(x).localeCompare(order(y)))).toEqual(
      [...expected].sort((x, y) => order(x).localeCompare(order(y))),
    );
  });
});

describe('a silence covering one alert of a group', () => {
  const fleet = new Fleet({ 'web-1': {}, 'web-2': {} }, [rule('closing-seen', 1)]);
  fleet.silences = [{ target: 'web-2', rule: 'closing-seen', until: at(8).toISOString() }];
  it.each<[string, number, Record<string, number>, Seen[]]>([
    ['the first alert pages', 0, { 'web-1': 2 }, [page(0, 'firing', 'first', ['web-1/closing-seen firing'])]],
    ['the silenced alert fires', 1, { 'web-2': 2 }, []],
    ['the group interval passes: nothing to say while it is silenced', 5, {}, []],
    [
      'the silence ends: the group pages it',
      8,
      {},
      [page(8, 'firing', 'first', ['web-1/closing-seen firing', 'web-2/closing-seen firing'])],
    ],
  ])('minute %#: %s', async (_name, minute, closing, expected) => {
    expect(await fleet.step(minute, closing)).toEqual(expected);
  });
});

describe('a silence made after an alert joined its group, before the group paged', () => {
  it('keeps the alert out of the update until the silence ends', async () => {
    const fleet = new Fleet({ 'web-1': {}, 'web-2': {} }, [rule('closing-seen', 1)]);
    expect(await fleet.step(0, { 'web-1': 2 })).toEqual([page(0, 'firing', 'first', ['web-1/closing-seen firing'])]);
    expect(await fleet.step(1, { 'web-2': 2 })).toEqual([]); // joined, waiting for the interval
    fleet.silences = [{ target: 'web-2', rule: 'closing-seen', until: at(8).toISOString() }];
    // web-1 resolves: the group's update tells that, and says nothing of the silenced web-2.
    expect(await fleet.step(5, { 'web-1': 0 })).toEqual([
      page(5, 'resolved', 'resolved', ['web-1/closing-seen resolved']),
    ]);
    expect(await fleet.step(8)).toEqual([page(8, 'firing', 'first', ['web-2/closing-seen firing'])]);
  });
});

describe('the list of open groups under races', () => {
  const REF = { key: '{"rule":"closing-seen"}', labels: { rule: 'closing-seen' }, intervalMs: 300_000 };
  const OTHER = { key: '{"rule":"other"}', labels: { rule: 'other' }, intervalMs: 300_000 };
  const handed = (target: string, status: 'firing' | 'resolved', minute: number, group = REF) => ({
    fingerprint: `fp-${target}-${group.key}`,
    status,
    reason: status === 'resolved' ? ('resolved' as const) : ('first' as const),
    target,
    rule: group.labels.rule,
    severity: 'critical' as const,
    value: 3,
    threshold: 1,
    subject: `${target} ${status}`,
    message: 'text',
    payload: { evaluatedAt: at(minute).toISOString(), firedAt: at(0).toISOString() },
    labels: {},
    group,
  });
  const flush = (table: StateTable, minute: number, keys: string[]) =>
    flushGroups(
      table,
      { publish: async () => {} },
      keys,
      at(minute),
      { token: `t-${minute}`, leaseMs: 90_000, repeatIntervalMs: 4 * 3_600_000, silences: [] },
      { info: () => {}, warn: () => {}, error: () => {} },
    );
  /** A group that fired at 0, resolved at 1, was paged both times: empty once its tombstone expires (16). */
  async function closedOnce(table: StateTable) {
    await new GroupInbox(table, at(0)).add(handed('web-1', 'firing', 0));
    await flush(table, 0, [groupItemKey(REF.key)]);
    await new GroupInbox(table, at(1)).add(handed('web-1', 'resolved', 1));
    await flush(table, 5, [groupItemKey(REF.key)]);
  }

  it('a group a hand-over re-creates after the run read the list is listed again', async () => {
    const table = createMemoryStateTable();
    await closedOnce(table);
    const inbox = new GroupInbox(table, at(16));
    await inbox.add(handed('web-9', 'firing', 16, OTHER)); // this run reads the list: the group is on it
    await flush(table, 17, [groupItemKey(REF.key)]); // another run closes the group
    expect(await openGroups(table)).toEqual([groupItemKey(OTHER.key)]);
    await inbox.add(handed('web-2', 'firing', 16)); // re-created by the first run
    expect((await openGroups(table)).sort()).toEqual([groupItemKey(REF.key), groupItemKey(OTHER.key)].sort());
  });

  it('a group handed a page while it is being closed stays listed', async () => {
    const memory = createMemoryStateTable();
    await closedOnce(memory);
    const inbox = new GroupInbox(memory, at(17));
    await inbox.add(handed('web-9', 'firing', 17, OTHER)); // this run read the list: the group is on it
    const racing: StateTable = {
      ...memory,
      deleteMeta: async (key, version) => {
        await inbox.add(handed('web-3', 'firing', 17)); // lands between unlist and delete
        return memory.deleteMeta(key, version);
      },
    };
    await flush(racing, 17, [groupItemKey(REF.key)]);
    expect((await openGroups(memory)).sort()).toEqual([groupItemKey(REF.key), groupItemKey(OTHER.key)].sort());
  });
});

describe('a target removed while its alert is firing in a group', () => {
  it('resolves in the group page, counted once as a page sent', async () => {
    const fleet = new Fleet({ 'web-1': {}, 'web-2': {} }, [rule('closing-seen', 1)]);
    await fleet.step(0, { 'web-1': 2, 'web-2': 2 });
    expect(fleet.summary?.sent).toBe(1);
    delete (fleet.targets as Record<string, unknown>)['web-2'];
    expect(await fleet.step(5)).toEqual([
      page(5, 'firing', 'first', ['web-1/closing-seen firing', 'web-2/closing-seen resolved']),
    ]);
    expect(fleet.summary?.sent).toBe(1);
  });
});

describe('group page order (issue 21)', () => {
  it("orders each group page at its claim's minute, strictly increasing, the single page at its alert's claim", async () => {
    const fleet = new Fleet({ 'web-1': {}, 'web-2': {} }, [rule('closing-seen', 1)]);
    await fleet.step(0, { 'web-1': 2 }); // the group's first page (its own page, ordered by the group)
    await fleet.step(1, { 'web-2': 2 });
    await fleet.step(5); // the update
    await fleet.step(6, { 'web-1': 0, 'web-2': 0 });
    await fleet.step(10); // the resolve
    expect(fleet.pages.map((p) => p.minute)).toEqual([0, 5, 10]);
    expect(fleet.orders).toEqual([at(0).getTime(), at(5).getTime(), at(10).getTime()]);
  });
});
