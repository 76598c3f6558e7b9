/**
 * The forwarder's promise, end to end: at the end, every incident the monitor opened in PagerDuty
 * is closed or stands for an alert still firing, and every alert still firing has an open
 * incident (its own, its group's, or its group's overflow). Pages are built as the monitor
 * publishes them (a group page in parts of `PART_SIZE` alerts, firing first, part i carrying
 * `order + i - 1`), forwarded by the real `forwardToPagerDuty` with the real Events API client to
 * the PagerDuty stand-in (incident state per routing key, 120 events per minute), and a memory
 * ledger whose records expire as the table's TTL makes them. Time is stepped explicitly. Fixed
 * scenarios first, then seeded random runs mixing them (`FORWARDER_SOAK_RUNS`, `npm run soak:forwarder`).
 */
import type { SNSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPagerDutySender } from '../../src/adapters/pagerDutyEventsClient.ts';
import { EVENTS_PER, type EventsPer } from '../../src/core/pagerduty/events.ts';
import { forwardToPagerDuty } from '../../src/forwarder/forward.ts';
import { type ForwarderDeps, PagerDutyDeliveryError, type PagerDutyLedger } from '../../src/forwarder/ports.ts';
import { createMemoryLedger } from '../support/forwarderModel.ts';
import { type PagerDutyStandIn, startPagerDutyStandIn } from '../support/pagerDutyStandIn.ts';

const KEY_1 = 'R0UT1NGKEY1111111111111111111111';
const KEY_2 = 'R0UT1NGKEY2222222222222222222222';
const KEY_3 = 'R0UT1NGKEY3333333333333333333333';
/** Random runs: a quick default; `FORWARDER_SOAK_RUNS=n` (`npm run soak:forwarder`) for many more. */
const RANDOM_RUNS = Number(process.env.FORWARDER_SOAK_RUNS ?? 0) || 8;
/** Targets of the random runs' group: past the 120 seats, so per alert the overflow is in play. */
const RANDOM_TARGETS = 130;
const T0 = Date.parse('2026-11-22T12:00:00Z');
const GROUP_ID = '0123456789abcdef0123456789abcdef';
const GROUP = `group-${GROUP_ID}`;
const INVOCATION_MS = 900_000;
const DAY_MS = 86_400_000;
/** Alerts per part of a group page (the monitor splits by bytes; a count keeps the model readable). */
const PART_SIZE = 50;

type Status = 'firing' | 'resolved';
const targetOf = (i: number) => `web-${String(i).padStart(4, '0')}`;

/** The monitor's truth: which alerts of the one group fire, when they fired, and what the last page said. */
class Monitor {
  firing = new Map<string, number>();
  /** Alerts the last page said firing (a page names those, and those resolved since). */
  said = new Set<string>();
  order = T0;

  fire(targets: string[], atMs: number): void {
    for (const t of targets) if (!this.firing.has(t)) this.firing.set(t, atMs);
  }
  resolve(targets: string[]): void {
    for (const t of targets) this.firing.delete(t);
  }

  /** The group's page now, in parts (firing first, then by target), as SNS messages. */
  page(nowMs: number): string[] {
    const named = new Map<string, Status>();
    for (const t of this.said) named.set(t, 'resolved');
    for (const t of this.firing.keys()) named.set(t, 'firing');
    const alerts = [...named]
      .sort(([a, sa], [b, sb]) => (sa === sb ? (a < b ? -1 : 1) : sa === 'firing' ? -1 : 1))
      .map(([target, status]) => ({
        version: 1,
        fingerprint: `fp-${target}`,
        status,
        target,
        rule: 'closing-pileup',
        severity: 'warning',
        metric: 'slots_closing',
        op: '>=',
        threshold: 20,
        value: status === 'firing' ? 23 : 2,
        firedAt: new Date(this.firing.get(target) ?? T0).toISOString(),
      }));
    const firing = alerts.filter((a) => a.status === 'firing').length;
    const count = Math.max(1, Math.ceil(alerts.length / PART_SIZE));
    this.order = Math.max(this.order + count + 1, nowMs);
    const base = this.order;
    this.said = new Set(this.firing.keys());
    return Array.from({ length: count }, (_, i) =>
      JSON.stringify({
        version: 1,
        kind: 'group',
        status: firing > 0 ? 'firing' : 'resolved',
        reason: firing > 0 ? 'update' : 'resolved',
        fingerprint: GROUP,
        group: { id: GROUP_ID, key: '{"rule":"closing-pileup"}', labels: {} },
        severity: 'warning',
        rule: 'closing-pileup',
        evaluatedAt: new Date(nowMs).toISOString(),
        counts: { firing, resolved: alerts.length - firing, new: 0 },
        part: { index: i + 1, count },
        alerts: alerts.slice(i * PART_SIZE, (i + 1) * PART_SIZE),
        order: base + i,
      }),
    );
  }
}

/** A small seeded generator (mulberry32), so a failing run is replayed from its seed. */
function randomOf(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const snsEvent = (message: string): SNSEvent =>
  ({ Records: [{ EventSource: 'aws:sns', Sns: { MessageId: 'm', Message: message } }] }) as SNSEvent;

describe('Model: every incident the monitor opened is closed or stands for an alert still firing', () => {
  let api: PagerDutyStandIn;
  let clock = T0;
  let ledger: PagerDutyLedger;
  /** The routing key's versions in SSM; the newest is what a fresh read gives. */
  let versions: string[] = [KEY_1];

  beforeAll(async () => {
    api = await startPagerDutyStandIn({ now: () => clock, routingKeys: [KEY_1, KEY_2, KEY_3] });
  });
  afterAll(async () => {
    await api.stop();
  });
  beforeEach(() => {
    api.requests.length = 0;
    api.incidents.clear();
    clock = Math.ceil((clock + 3_600_000) / 60_000) * 60_000;
    ledger = createMemoryLedger(() => clock);
    versions = [KEY_1];
  });

  /** One invocation's dependencies, reading the routing key version `version` (the newest by default). */
  function deps(eventsPer: EventsPer, version = versions.length): ForwarderDeps {
    const started = clock;
    const sleep = async (ms: number) => {
      clock += ms;
    };
    return {
      routingKey: async () => ({ key: versions[version - 1] as string, version }),
      routingKeyAt: async (v: number) => versions[v - 1] as string,
      sender: createPagerDutySender({ url: api.url, sleep }),
      ledger,
      eventsPer,
      now: () => clock,
      sleep,
      remainingMs: () => started + INVOCATION_MS - clock,
      log: () => {},
    } as unknown as ForwarderDeps;
  }

  /** Every message forwarded once, in the order given; a failed invocation retried (as Lambda does) up to twice. */
  async function forward(messages: string[], eventsPer: EventsPer, version?: number): Promise<void> {
    for (const message of messages) {
      for (let attempt = 1; attempt <= 3; attempt++) {
        clock += 1_000;
        try {
          await forwardToPagerDuty(snsEvent(message), deps(eventsPer, version));
          break;
        } catch (error) {
          if (attempt === 3) throw error;
        }
      }
    }
  }

  /** What breaks the promise in PagerDuty's state, given the alerts still firing. */
  function broken(monitor: Monitor, eventsPer: EventsPer): string[] {
    const firing = new Set([...monitor.firing.keys()].map((t) => `fp-${t}`));
    const open = [...api.incidents].filter(([, i]) => i.status === 'triggered').map(([id]) => id.split(' ')[1]);
    const openOwn = new Set(open.filter((k) => k?.startsWith('fp-')));
    const out: string[] = [];
    for (const key of open) {
      if (key === undefined) continue;
      if (key.startsWith('fp-') && !firing.has(key)) out.push(`${key} open, its alert resolved`);
      if (key === GROUP && firing.size === 0) out.push(`${key} open, no alert of the group fires`);
      if (key === `${GROUP}-more` && [...firing].every((fp) => openOwn.has(fp)))
        out.push(`${key} open, every firing alert of the group has its own incident`);
    }
    const covered = (fp: string) =>
      eventsPer === EVENTS_PER.group ? open.includes(GROUP) : openOwn.has(fp) || open.includes(`${GROUP}-more`);
    const bare = [...firing].filter((fp) => !covered(fp));
    if (bare.length > 0) out.push(`${bare.length} firing alerts without an open incident, e.g. ${bare[0]}`);
    if (api.throttled() > 0) out.push(`${api.throttled()} events refused for the rate limit`);
    return out;
  }

  /** The alerts the newest trigger PagerDuty accepted for the overflow lists. */
  function overflowListed(): number {
    const last = api.requests.findLast((r) => {
      const body = r.body as { dedup_key?: string; event_action?: string };
      return r.status === 202 && body.dedup_key === `${GROUP}-more` && body.event_action === 'trigger';
    });
    const details = (last?.body as { payload?: { custom_details?: { alerts?: unknown[] } } } | undefined)?.payload
      ?.custom_details;
    return details?.alerts?.length ?? 0;
  }

  const targets = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => targetOf(from + i));

  it('per alert, a partial recovery of 300 targets past the seats leaves every firing alert with an incident', async () => {
    // Prepare: 300 targets fire (the first 120 by when they fired take the seats), all forwarded.
    const monitor = new Monitor();
    for (let i = 0; i < 300; i++) monitor.fire([targetOf(i)], T0 + i * 1_000);
    await forward(monitor.page(clock), EVENTS_PER.alert);

    // Act: 150 of them recover, among them 100 seat holders; the page goes out in parts, firing first.
    clock += 300_000;
    monitor.resolve([...targets(20, 120), ...targets(250, 300)]);
    await forward(monitor.page(clock), EVENTS_PER.alert);

    // Assess
    expect(broken(monitor, EVENTS_PER.alert)).toEqual([]);
  });

  it('per alert, the overflow lists every alert it stands for whichever part arrives first', async () => {
    // Prepare: 300 targets fire: 120 own incidents, 180 in the overflow, spread over 6 parts.
    const monitor = new Monitor();
    for (let i = 0; i < 300; i++) monitor.fire([targetOf(i)], T0 + i * 1_000);

    // Act: the parts reach the forwarder last part first.
    await forward(monitor.page(clock).reverse(), EVENTS_PER.alert);

    // Assess
    expect(broken(monitor, EVENTS_PER.alert)).toEqual([]);
    expect(overflowListed()).toBe(180);
  });

  it.each([EVENTS_PER.group, EVENTS_PER.alert])(
    '%s: an incident left silent for 15 days still closes when its alert resolves',
    async (eventsPer) => {
      // Prepare: one alert fires and is forwarded; nothing is paged for 15 days (silenced, or no repeat).
      const monitor = new Monitor();
      monitor.fire(['web-1', 'web-2'], clock);
      await forward(monitor.page(clock), eventsPer);

      // Act
      clock += 15 * DAY_MS;
      monitor.resolve(['web-1', 'web-2']);
      await forward(monitor.page(clock), eventsPer);

      // Assess
      expect(broken(monitor, eventsPer)).toEqual([]);
      expect(api.incidents.size).toBeGreaterThan(0);
    },
  );

  it.each([EVENTS_PER.group, EVENTS_PER.alert])(
    '%s: a routing-key change closes on the old key what was opened there, while containers still cache it',
    async (eventsPer) => {
      // Prepare: web-1 fires under the first key.
      const monitor = new Monitor();
      monitor.fire(['web-1'], clock);
      await forward(monitor.page(clock), eventsPer);

      // Act: the key changes; web-2 fires, forwarded by a container still caching the old key; then all resolve.
      versions = [KEY_1, KEY_2];
      clock += 60_000;
      monitor.fire(['web-2'], clock);
      await forward(monitor.page(clock), eventsPer, 1);
      clock += 60_000;
      monitor.resolve(['web-1', 'web-2']);
      await forward(monitor.page(clock), eventsPer, 2);

      // Assess: nothing open under either key.
      expect(broken(monitor, eventsPer)).toEqual([]);
      expect([...api.incidents.values()].filter((i) => i.status === 'triggered')).toEqual([]);
    },
  );

  it('a trigger PagerDuty took after its newer resolve, every answer lost, is closed again', async () => {
    // Prepare: web-1 fires; container X sends its trigger, slowly: while it travels, container Y
    // forwards the newer resolve (a no-op for PagerDuty, nothing open yet), then X's trigger arrives.
    const monitor = new Monitor();
    monitor.fire(['web-1'], clock);
    const [firing] = monitor.page(clock) as [string];
    clock += 60_000;
    monitor.resolve(['web-1']);
    const [resolved] = monitor.page(clock) as [string];
    const x = deps(EVENTS_PER.group);
    const send = x.sender.send;
    let overtaken = false;
    x.sender = {
      send: async (event) => {
        if (!overtaken) {
          overtaken = true;
          await forwardToPagerDuty(snsEvent(resolved), deps(EVENTS_PER.group));
          await send(event);
          throw new PagerDutyDeliveryError(event, 4, 'no answer', null);
        }
        await send(event);
      },
    };

    // Act: X fails (its answer lost); Lambda retries it.
    await forwardToPagerDuty(snsEvent(firing), x).catch(() => {});
    await forward([firing], EVENTS_PER.group);

    // Assess
    expect(broken(monitor, EVENTS_PER.group)).toEqual([]);
    expect(api.incident(KEY_1, GROUP)?.status).toBe('resolved');
  });

  /** A delivery waiting for an invocation: SNS's, or Lambda's retry of a failed one. */
  interface Pending {
    message: string;
    attempt: number;
    /** The routing key version the invoking container caches. */
    version: number;
  }

  /**
   * One random run: the group's alerts fire and recover in random sets (past the seats, so partial
   * recoveries move seats and the overflow), pages go out in parts delivered in any order, twice
   * at times, by containers caching an older routing key after a change; invocations lose an
   * answer PagerDuty took and are retried as Lambda does, possibly after the next page; silences of
   * 15 days. Then every delivery and retry is invoked, a last page is forwarded, and the promise
   * is checked against the stand-in's incidents per routing key.
   */
  async function randomRun(seed: number): Promise<string[]> {
    const random = randomOf(seed);
    const pick = (n: number) => Math.floor(random() * n);
    const eventsPer = seed % 2 === 0 ? EVENTS_PER.group : EVENTS_PER.alert;
    const monitor = new Monitor();
    const pending: Pending[] = [];
    const all = Array.from({ length: RANDOM_TARGETS }, (_, i) => targetOf(i));
    const some = (from: string[]) => from.filter(() => random() < 0.5);

    async function invoke(p: Pending, lose: boolean): Promise<void> {
      clock += 1_000;
      const d = deps(eventsPer, p.version);
      const send = d.sender.send;
      const at = pick(4);
      let sends = 0;
      // PagerDuty takes the event; its answer is lost (the last attempt is clean, as Lambda's dead-letter queue needs).
      if (lose && p.attempt < 3)
        d.sender = {
          send: async (event) => {
            await send(event);
            if (sends++ === at) throw new PagerDutyDeliveryError(event, 4, 'no answer', null);
          },
        };
      try {
        await forwardToPagerDuty(snsEvent(p.message), d);
      } catch (error) {
        if (p.attempt >= 3) throw error;
        pending.push({ ...p, attempt: p.attempt + 1 });
      }
    }

    for (let step = 0; step < 5; step++) {
      const what = pick(10);
      if (what < 4) monitor.fire(some(all), clock);
      else if (what < 7) monitor.resolve(some([...monitor.firing.keys()]));
      else if (what < 8) clock += 15 * DAY_MS;
      let cached = versions.length;
      if (what >= 8 && versions.length < 3) {
        // The key changes; containers keep the old one up to their 300 s cache.
        versions = [...versions, [KEY_1, KEY_2, KEY_3][versions.length] as string];
        monitor.fire(some(all), clock);
      }
      const parts = monitor.page(clock);
      // The parts in any order, some twice, some by a container still caching the older key.
      for (const message of parts) {
        if (versions.length > 1 && random() < 0.3) cached = versions.length - 1;
        pending.splice(pick(pending.length + 1), 0, { message, attempt: 1, version: cached });
        if (random() < 0.15) pending.push({ message, attempt: 1, version: versions.length });
      }
      // Some deliveries and retries now, the rest after the next page.
      for (let n = pick(pending.length + 1); n > 0 && pending.length > 0; n--)
        await invoke(pending.splice(pick(pending.length), 1)[0] as Pending, random() < 0.2);
      clock += 300_000;
    }
    while (pending.length > 0) await invoke(pending.shift() as Pending, false);
    await forward(monitor.page(clock), eventsPer);
    return broken(monitor, eventsPer);
  }

  it(
    `random runs (${RANDOM_RUNS}): key changes, 15-day silences, lost answers, partial recoveries past the seats`,
    async () => {
      // Act / Assess: each run on a fresh ledger and stand-in state; the seed of a failing run is printed.
      const failures: string[] = [];
      for (let seed = 1; seed <= RANDOM_RUNS; seed++) {
        api.requests.length = 0;
        api.incidents.clear();
        clock = Math.ceil((clock + 3_600_000) / 60_000) * 60_000;
        ledger = createMemoryLedger(() => clock);
        versions = [KEY_1];
        const problems = await randomRun(seed);
        if (problems.length > 0) failures.push(`seed ${seed}: ${problems.join('; ')}`);
      }
      expect(failures).toEqual([]);
    },
    Math.max(120_000, RANDOM_RUNS * 2_000),
  );
});
