/**
 * Grouping through whole runs on the memory table: time stepped one minute at a time, the closing
 * slots of each target set per step, every accepted page recorded with the alerts it names.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStateTable } from '../../../src/adapters/memoryStateStore.ts';
import { GroupInbox } from '../../../src/app/accounting/groupInbox.ts';
import { flushGroups, groupItemKey } from '../../../src/app/accounting/groupItems.ts';
import { openGroups } from '../../../src/app/accounting/groupRegistry.ts';
import type { CycleDeps, StateTable } from '../../../src/app/ports.ts';
import { type CycleSummary, runCycle } from '../../../src/app/run.ts';
import type { Notification } from '../../../src/core/alerts/types.ts';
import { EVENTS_PER, pagerDutyEvents } from '../../../src/core/pagerduty/events.ts';
import { messageFields, partialMessage } from '../../support/messages.ts';
import { onlyTheseRules } from '../../support/rulesDocuments.ts';

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
  const alerts = messageFields(page.payload).alerts;
  if (messageFields(page.payload).kind !== 'group' || !Array.isArray(alerts))
    return [`${page.target}/${page.rule} ${page.status}`];
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

/** How a fleet's runs differ from the defaults: fewer alerts per group item, one target at a time. */
interface FleetOptions {
  groupLimits?: CycleDeps['groupLimits'];
  concurrency?: number;
}

class Fleet {
  readonly table: StateTable = createMemoryStateTable();
  readonly closing = new Map<string, number>();
  readonly pages: Seen[] = [];
  /** Every page published, whole. */
  readonly published: Notification[] = [];
  readonly warnings: string[] = [];
  readonly options: FleetOptions;
  /** Each published page's `order`, in publish order. */
  readonly orders: unknown[] = [];
  readonly warm = new Map();
  minute = 0;
  silences: object[] = [];
  summary: CycleSummary | null = null;
  readonly targets: Record<string, Record<string, string>>;
  readonly rules: object[];

  constructor(targets: Record<string, Record<string, string>>, rules: object[], options: FleetOptions = {}) {
    this.options = options;
    this.targets = targets;
    this.rules = rules;
    for (const t of Object.keys(targets)) this.closing.set(t, 0);
  }

  /** A target whose next commit (the write after its pages went out) fails: the run dies there, its claim left. */
  crashAfterPublish: string | null = null;

  /** The table as a run sees it: the memory table, but for `crashAfterPublish`. */
  runTable(): StateTable {
    const table = this.table;
    return {
      ...table,
      put: async (key, item, expected, now) => {
        if (this.crashAfterPublish !== null && key === `target#${this.crashAfterPublish}` && item.claim === null) {
          this.crashAfterPublish = null;
          throw new Error('the run died after publishing');
        }
        return table.put(key, item, expected, now);
      },
    };
  }

  deps(): CycleDeps {
    const targets: Record<string, string> = {};
    for (const [t, labels] of Object.entries(this.targets))
      targets[`/g/targets/${t}`] = JSON.stringify({ url: `http://${t}.test/server-status`, labels });
    const silences: Record<string, string> =
      this.silences.length > 0 ? { '/g/silences/all': JSON.stringify({ silences: this.silences }) } : {};
    const raw = {
      targets,
      rules: { '/g/rules/all': onlyTheseRules(this.rules as Array<Record<string, unknown>>) },
      silences,
    };
    return {
      config: { loadRaw: async () => structuredClone(raw), getSecret: async () => '' },
      secretScope: { prefix: '/g', sharedSecretParameters: [] },
      table: this.runTable(),
      notifier: {
        publish: async (page) => {
          this.published.push(page);
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
      logger: { info: () => {}, warn: (message) => this.warnings.push(message), error: () => {} },
      concurrency: this.options.concurrency ?? 4,
      evaluate: {},
      claimLeaseMs: 90_000,
      warm: this.warm,
      warmConfig: { applied: null },
      ...(this.options.groupLimits === undefined ? {} : { groupLimits: this.options.groupLimits }),
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

/** A target's page as a run hands it over to its group, `minute` after the test's start. */
const handedPage = (
  target: string,
  status: 'firing' | 'resolved',
  minute: number,
  group: { key: string; labels: Record<string, string>; intervalMs: number; continuation?: number },
  fingerprint = `fp-${target}`,
) => ({
  fingerprint,
  status,
  reason: status === 'resolved' ? ('resolved' as const) : ('first' as const),
  target,
  rule: group.labels.rule as string,
  severity: 'critical' as const,
  value: 3,
  threshold: 1,
  subject: `${target} ${status}`,
  message: 'text',
  payload: partialMessage({ evaluatedAt: at(minute).toISOString(), firedAt: at(0).toISOString() }),
  labels: {},
  group,
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
  const handed = (target: string, status: 'firing' | 'resolved', minute: number, group = REF) =>
    handedPage(target, status, minute, group, `fp-${target}-${group.key}`);
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

  it.each<[string, 'firing' | 'resolved', number, string]>([
    ['the same status, older: held (nothing to say)', 'firing', 1, 'held 0'],
    ['a resolve as new as the firing it holds: held', 'resolved', 2, 'held 0'],
    ['a resolve older than the firing it holds: refused, still owed', 'resolved', 1, 'OlderHandOverError'],
  ])('a late hand-over after one evaluated at minute 2: %s', async (_, status, minute, expected) => {
    const table = createMemoryStateTable();
    await new GroupInbox(table, at(2)).add(handed('web-1', 'firing', 2));
    const answer = await new GroupInbox(table, at(3))
      .add(handed('web-1', status, minute))
      .then((held) => `held ${held}`)
      .catch((error: Error) => error.name);
    expect(answer).toBe(expected);
  });

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

describe('group page order', () => {
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

/** The pages of a step in a fixed order (groups flush concurrently): by the alerts they name. */
const sorted = (pages: Seen[]) => [...pages].sort((x, y) => x.alerts.join().localeCompare(y.alerts.join()));

describe('a group past one item: its continuations (2 alerts an item, one target at a time)', () => {
  const fleet = new Fleet(
    { 'web-1': {}, 'web-2': {}, 'web-3': {}, 'web-4': {}, 'web-5': {} },
    [rule('closing-seen', 1)],
    { groupLimits: { maxMembers: 2 }, concurrency: 1 },
  );
  it.each<[string, number, Record<string, number>, Seen[]]>([
    [
      'five alerts fire: the first item pages two, its continuations two and one, no alert alone',
      0,
      { 'web-1': 2, 'web-2': 2, 'web-3': 2, 'web-4': 2, 'web-5': 2 },
      [
        page(0, 'firing', 'first', ['web-1/closing-seen firing', 'web-2/closing-seen firing']),
        page(0, 'firing', 'first', ['web-3/closing-seen firing', 'web-4/closing-seen firing']),
        page(0, 'firing', 'first', ['web-5/closing-seen firing']),
      ],
    ],
    ["an alert of the first continuation resolves: it waits for that item's interval", 1, { 'web-3': 0 }, []],
    [
      'the continuation pages its resolve beside its alert still firing; the first item says nothing',
      5,
      {},
      [page(5, 'firing', 'first', ['web-4/closing-seen firing', 'web-3/closing-seen resolved'])],
    ],
    ["the continuation's last alert resolves", 6, { 'web-4': 0 }, []],
    [
      'the continuation resolves on its own while the first item still fires',
      10,
      {},
      [page(10, 'resolved', 'resolved', ['web-4/closing-seen resolved'])],
    ],
    [
      'the rest resolve: the first item and the second continuation each resolve their own page',
      11,
      { 'web-1': 0, 'web-2': 0, 'web-5': 0 },
      [
        page(11, 'resolved', 'resolved', ['web-1/closing-seen resolved', 'web-2/closing-seen resolved']),
        page(11, 'resolved', 'resolved', ['web-5/closing-seen resolved']),
      ],
    ],
  ])('minute %#: %s', async (_name, minute, closing, expected) => {
    expect(sorted(await fleet.step(minute, closing))).toEqual(sorted(expected));
  });

  it('each item pages as its own group: its own id and fingerprint, a continuation saying so', () => {
    const first = fleet.published.filter((p) => messageFields(p.payload).evaluatedAt === at(0).toISOString());
    const groups = first.map((p) => messageFields(p.payload).group as { id: string; continuation?: number });
    const id = groupItemKey('{"rule":"closing-seen"}').slice('group#'.length);
    expect(groups.map((g) => [g.id, g.continuation]).sort()).toEqual([
      [id, undefined],
      [`${id}-1`, 1],
      [`${id}-2`, 2],
    ]);
    const continued = first.find(
      (p) => (messageFields(p.payload).group as { continuation?: number }).continuation === 1,
    );
    expect(continued?.fingerprint).toBe(`group-${id}-1`);
    expect(continued?.subject).toBe('[FIRING critical] closing-seen on 2 more targets: web-3, web-4 (continuation 1)');
    expect(continued?.message.split('\n').slice(0, 2)).toEqual([
      'FIRING critical: closing-seen on 2 more targets',
      "Continuation 1 of this group: it has more alerts than one group page holds; the group's first page and its other continuations name the others.",
    ]);
  });

  it('every item is closed once its tombstones expire', async () => {
    expect((await openGroups(fleet.table)).length).toBe(3);
    await fleet.step(31);
    expect(await openGroups(fleet.table)).toEqual([]);
    expect(fleet.warnings).toEqual([]);
  });
});

describe('an alert no item of its group could hold (1 alert an item, 1 item)', () => {
  const fleet = new Fleet({ 'web-1': {}, 'web-2': {} }, [rule('closing-seen', 1)], {
    groupLimits: { maxMembers: 1, maxItems: 1 },
    concurrency: 1,
  });
  it.each<[string, number, Record<string, number>, Seen[], boolean[]]>([
    [
      'the second alert is paged alone at once; the group pages the first',
      0,
      { 'web-1': 2, 'web-2': 2 },
      [
        page(0, 'firing', 'first', ['web-2/closing-seen firing']),
        page(0, 'firing', 'first', ['web-1/closing-seen firing']),
      ],
      [false, true],
    ],
    ['the grouped alert resolves', 1, { 'web-1': 0 }, [], []],
    ['its group pages the resolve', 5, {}, [page(5, 'resolved', 'resolved', ['web-1/closing-seen resolved'])], [true]],
    ['its tombstone expires: the group closes, with room again', 21, {}, [], []],
    [
      'the alert paged alone resolves alone, closing its own page, not through the group',
      22,
      { 'web-2': 0 },
      [page(22, 'resolved', 'resolved', ['web-2/closing-seen resolved'])],
      [false],
    ],
  ])('minute %#: %s', async (_name, minute, closing, expected, grouped) => {
    const before = fleet.published.length;
    expect(await fleet.step(minute, closing)).toEqual(expected);
    expect(fleet.published.slice(before).map((p) => messageFields(p.payload).group !== undefined)).toEqual(grouped);
  });

  it('the page alone was logged, and no group was opened for the resolve', async () => {
    expect(fleet.warnings).toEqual(['group full: paged alone']);
    expect(await openGroups(fleet.table)).toEqual([]);
  });
});

describe('a run that died after handing an alert over to a continuation', () => {
  const fleet = new Fleet({ 'web-1': {}, 'web-2': {} }, [rule('closing-seen', 1)], {
    groupLimits: { maxMembers: 1 },
    concurrency: 1,
  });
  it('replays the hand-over into the same continuation, pages nothing twice, and resolves it there', async () => {
    fleet.crashAfterPublish = 'web-2';
    await expect(fleet.step(0, { 'web-1': 2, 'web-2': 2 })).rejects.toThrow();
    expect(sorted(fleet.pages)).toEqual([
      page(0, 'firing', 'first', ['web-1/closing-seen firing']),
      page(0, 'firing', 'first', ['web-2/closing-seen firing']),
    ]);
    expect(await fleet.step(2)).toEqual([]); // the claim's lease ran out: replayed, nothing new
    const item = (await fleet.table.loadMany(['target#web-2'])).get('target#web-2');
    expect(Object.values(item?.state.alerts ?? {}).map((a) => [a.group, a.groupContinuation])).toEqual([
      ['{"rule":"closing-seen"}', 1],
    ]);
    expect(await fleet.step(3, { 'web-2': 0 })).toEqual([]);
    const resolved = await fleet.step(5);
    expect(resolved).toEqual([page(5, 'resolved', 'resolved', ['web-2/closing-seen resolved'])]);
    expect(messageFields(fleet.published.at(-1)?.payload).group).toMatchObject({ continuation: 1 });
  });
});

/** Per group page, most alerts first: the alerts it names by status, and the SNS messages (parts of its payload) it took. */
function byGroupPage(
  published: readonly Notification[],
): Array<{ firing: number; resolved: number; messages: number }> {
  const pages = new Map<string, { firing: number; resolved: number; messages: number }>();
  for (const message of published) {
    const counts = pages.get(message.fingerprint) ?? { firing: 0, resolved: 0, messages: 0 };
    for (const a of messageFields(message.payload).alerts ?? []) counts[a.status]++;
    counts.messages++;
    pages.set(message.fingerprint, counts);
  }
  return [...pages.values()].sort((a, b) => b.firing + b.resolved - (a.firing + a.resolved));
}

// A thousand targets through the accounting take 11-22 s on a quiet machine: room beyond the default 30 s.
describe('a fleet incident of 1,000 targets', { tags: ['slow'], timeout: 180_000 }, () => {
  const targets = Object.fromEntries(
    Array.from({ length: 1000 }, (_, i) => [`web-${String(i).padStart(4, '0')}`, {}] as const),
  );
  const all = (closing: number) => Object.fromEntries(Object.keys(targets).map((t) => [t, closing]));
  // Each group page: [alerts it names, SNS messages it takes firing, then resolved (its payload's
  // parts; each is one PagerDuty event, all within the forwarder's first 10-second window of 17)].
  it.each<[string, number | undefined, Array<[number, number, number]>]>([
    [
      '300 alerts an item: 4 group pages',
      300,
      [
        [300, 4, 4],
        [300, 4, 4],
        [300, 4, 4],
        [100, 2, 2],
      ],
    ],
    [
      '600 alerts an item (MAX_GROUP_MEMBERS): 2 group pages',
      undefined,
      [
        [600, 8, 8],
        [400, 5, 6],
      ],
    ],
  ])('%s when they fire, as many when they resolve, none alone', async (_name, maxMembers, sizes) => {
    const fleet = new Fleet(targets, [rule('closing-seen', 1)], {
      ...(maxMembers === undefined ? {} : { groupLimits: { maxMembers } }),
    });
    await fleet.step(0, all(2));
    expect(byGroupPage(fleet.published)).toEqual(
      sizes.map(([firing, messages]) => ({ firing, resolved: 0, messages })),
    );
    expect(fleet.published.every((p) => messageFields(p.payload).kind === 'group')).toBe(true);
    const firing = fleet.published.length;
    await fleet.step(1, all(0));
    await fleet.step(5);
    const resolves = fleet.published.slice(firing);
    expect(byGroupPage(resolves)).toEqual(sizes.map(([resolved, , messages]) => ({ firing: 0, resolved, messages })));
    // Every alert named exactly once when it fired and once when it resolved.
    expect(new Set(fleet.pages.flatMap((p) => p.alerts)).size).toBe(2000);
    expect(fleet.pages.flatMap((p) => p.alerts)).toHaveLength(2000);
    expect(fleet.warnings).toEqual([]);
    // As the PagerDuty forwarder maps them by default: one incident per group page, opened and resolved.
    const incidents = new Map<string, string[]>();
    for (const message of fleet.published)
      for (const e of pagerDutyEvents(JSON.stringify(message.payload), 'KEY', EVENTS_PER.group))
        incidents.set(e.dedup_key, [...(incidents.get(e.dedup_key) ?? []), e.event_action]);
    expect([...incidents.values()].map((actions) => [actions.at(0), actions.at(-1)])).toEqual(
      sizes.map(() => ['trigger', 'resolve']),
    );
  });
});

describe('a replayed hand-over when an item before its continuation has room again (1 alert an item)', () => {
  const REF = { key: '{"rule":"closing-seen"}', labels: { rule: 'closing-seen' }, intervalMs: 300_000 };
  const handed = (target: string, status: 'firing' | 'resolved', minute: number, continuation?: number) =>
    handedPage(target, status, minute, continuation === undefined ? REF : { ...REF, continuation });
  const flush = (table: StateTable, minute: number) =>
    flushGroups(
      table,
      { publish: async () => {} },
      [groupItemKey(REF.key), groupItemKey(REF.key, 1)],
      at(minute),
      { token: `t-${minute}`, leaseMs: 90_000, repeatIntervalMs: 4 * 3_600_000, silences: [] },
      { info: () => {}, warn: () => {}, error: () => {} },
    );
  const limits = { maxMembers: 1 };

  it.each<[string, boolean, number]>([
    ['a replay finds the continuation holding its alert and goes back there', true, 1],
    ['a first hand-over (nothing holds it) joins the first item with room', false, 0],
  ])('%s', async (_name, replay, expected) => {
    const table = createMemoryStateTable();
    const inbox = new GroupInbox(table, at(0), limits);
    expect(await inbox.add(handed('web-1', 'firing', 0))).toBe(0);
    expect(await inbox.add(handed('web-2', 'firing', 0))).toBe(1); // its run dies before its commit
    await flush(table, 0);
    await new GroupInbox(table, at(1), limits).add(handed('web-1', 'resolved', 1));
    await flush(table, 5); // the first item pages the resolve
    await flush(table, 21); // its tombstone expires: the first item closes, room again
    expect(await openGroups(table)).toEqual([groupItemKey(REF.key, 1)]);
    const page = replay ? handed('web-2', 'firing', 0) : handed('web-3', 'firing', 22);
    expect(await new GroupInbox(table, at(22), limits).add(page, { replay })).toBe(expected);
  });
});
