import type { SNSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPagerDutySender } from '../../src/adapters/pagerDutyEventsClient.ts';
import { createDynamoPagerDutyLedger } from '../../src/adapters/pagerDutyLedger.ts';
import { EVENTS_PER, type EventsPer } from '../../src/core/notify/pagerDuty.ts';
import { EnvironmentError } from '../../src/lambda/environment.ts';
import {
  type ForwarderDeps,
  forwardToPagerDuty,
  keyIdOf,
  LOG_MESSAGES,
  readPagerDutyConfig,
} from '../../src/lambda/pagerDutyForwarder.ts';
import { type LocalDynamo, startDynalite } from '../support/emulators.ts';
import { type PagerDutyStandIn, startPagerDutyStandIn } from '../support/pagerDutyStandIn.ts';

const KEY = 'R0UT1NGKEY0000000000000000000000';
const T0 = Date.parse('2026-11-22T12:00:00Z');
/** What Lambda gives the forwarder (the stack's timeout). */
const INVOCATION_MS = 900_000;

const alert = (target: string, status: 'firing' | 'resolved') => ({
  version: 1,
  fingerprint: `fp-${target}`,
  status,
  target,
  rule: 'closing-pileup',
  severity: 'warning',
  metric: 'slots_closing',
  op: '>=',
  threshold: 20,
  value: 23,
});

/** A grouped page as the monitor publishes it (`kind: "group"`), with its order when given. */
function groupPage(
  alerts: ReturnType<typeof alert>[],
  order?: number,
  part = { index: 1, count: 1 },
): Record<string, unknown> {
  const firing = alerts.filter((a) => a.status === 'firing').length;
  return {
    version: 1,
    kind: 'group',
    status: firing > 0 ? 'firing' : 'resolved',
    reason: firing > 0 ? 'first' : 'resolved',
    fingerprint: 'group-0123456789abcdef0123456789abcdef',
    group: { id: '0123456789abcdef0123456789abcdef', key: '{"rule":"closing-pileup"}', labels: {} },
    severity: 'warning',
    rule: 'closing-pileup',
    evaluatedAt: new Date(T0).toISOString(),
    counts: { firing, resolved: alerts.length - firing, new: firing },
    part,
    alerts,
    ...(order === undefined ? {} : { order }),
  };
}

const snsEvent = (...messages: unknown[]): SNSEvent =>
  ({
    Records: messages.map((m, i) => ({
      EventSource: 'aws:sns',
      Sns: { MessageId: `m-${i}`, Message: typeof m === 'string' ? m : JSON.stringify(m) },
    })),
  }) as SNSEvent;

describe('Function: readPagerDutyConfig', () => {
  it('fills the defaults around the parameter name and the table', () => {
    expect(
      readPagerDutyConfig({ PAGERDUTY_ROUTING_KEY_PARAMETER: '/pagerduty/key', STATE_TABLE: 'hsa-state' }),
    ).toEqual({
      routingKeyParameter: '/pagerduty/key',
      eventsUrl: 'https://events.pagerduty.com/v2/enqueue',
      routingKeyMaxAgeSeconds: 300,
      eventsPer: 'group',
      stateTable: 'hsa-state',
    });
  });

  it('lists every problem at once', () => {
    // Act
    let error: unknown;
    try {
      readPagerDutyConfig({
        PAGERDUTY_EVENTS_URL: 'ftp://events',
        ROUTING_KEY_MAX_AGE_SECONDS: 'soon',
        PAGERDUTY_EVENTS_PER: 'incident',
      });
    } catch (e) {
      error = e;
    }
    // Assess
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as EnvironmentError).problems).toEqual([
      'PAGERDUTY_ROUTING_KEY_PARAMETER expects the name of an SSM SecureString, found ""',
      'PAGERDUTY_EVENTS_URL expects an http(s) URL, found "ftp://events"',
      'ROUTING_KEY_MAX_AGE_SECONDS expects a whole number from 0 to 86400, found "soon"',
      'PAGERDUTY_EVENTS_PER expects group or alert, found "incident"',
      'STATE_TABLE expects the name of the DynamoDB state table, found ""',
    ]);
  });
});

describe('Function: forwardToPagerDuty against the stand-in Events API and the state table', () => {
  let api: PagerDutyStandIn;
  let dynamo: LocalDynamo;
  let clock = T0;
  let table = 0;
  let ledger: ReturnType<typeof createDynamoPagerDutyLedger>;
  let keyReads = 0;
  let logs: [string, string, Record<string, unknown>][] = [];

  /** One invocation's dependencies: time is stepped by its waits, its budget starts now. */
  function deps(eventsPer: EventsPer, routingKey = async () => KEY): ForwarderDeps {
    const started = clock;
    const sleep = async (ms: number) => {
      clock += ms;
    };
    return {
      routingKey: async () => {
        keyReads++;
        return routingKey();
      },
      sender: createPagerDutySender({ url: api.url, sleep }),
      ledger,
      eventsPer,
      now: () => clock,
      sleep,
      remainingMs: () => started + INVOCATION_MS - clock,
      log: (level, message, fields) => logs.push([level, message, fields]),
    };
  }

  beforeAll(async () => {
    [api, dynamo] = await Promise.all([startPagerDutyStandIn({ now: () => clock }), startDynalite()]);
  });
  afterAll(async () => {
    await Promise.all([api.stop(), dynamo.stop()]);
  });
  beforeEach(async () => {
    // A fresh table and stand-in state per test; the clock moves on.
    table++;
    await dynamo.createTable(`state-${table}`);
    ledger = createDynamoPagerDutyLedger(dynamo.doc, `state-${table}`);
    api.requests.length = 0;
    api.incidents.clear();
    clock = Math.ceil((clock + 3_600_000) / 60_000) * 60_000;
    keyReads = 0;
    logs = [];
  });

  const sentEvents = () =>
    api.requests.map((r) => {
      const body = r.body as { dedup_key: string; event_action: string };
      return [body.dedup_key, body.event_action, r.status];
    });

  it('sends the other alerts of a message when one fails, then fails naming the failed one', async () => {
    // Prepare: a grouped message of three, one event per alert; PagerDuty answers 503 four times for the second.
    api.script({ status: 202 }, ...Array.from({ length: 4 }, () => ({ status: 503 })));
    const event = snsEvent(groupPage([alert('web-1', 'firing'), alert('web-2', 'firing'), alert('web-3', 'resolved')]));

    // Act
    const forwarding = forwardToPagerDuty(event, deps(EVENTS_PER.alert));

    // Assess
    await expect(forwarding).rejects.toMatchObject({
      name: 'ForwardError',
      message:
        'expected every event to reach PagerDuty, found 1 failed: expected PagerDuty to accept trigger fp-web-2, found HTTP 503 an empty body after 4 attempt(s)',
    });
    expect(sentEvents()).toEqual([
      ['fp-web-1', 'trigger', 202],
      ['fp-web-2', 'trigger', 503],
      ['fp-web-2', 'trigger', 503],
      ['fp-web-2', 'trigger', 503],
      ['fp-web-2', 'trigger', 503],
      ['fp-web-3', 'resolve', 202],
    ]);
  });

  it('reads the routing key once per invocation, and not at all for an empty one', async () => {
    // Act
    const empty = await forwardToPagerDuty({ Records: [] }, deps(EVENTS_PER.alert));
    const two = await forwardToPagerDuty(
      snsEvent(alert('web-1', 'firing'), alert('web-2', 'resolved')),
      deps(EVENTS_PER.alert),
    );

    // Assess
    expect({ empty, two, keyReads }).toEqual({
      empty: { sent: 0, dropped: 0, refused: 0 },
      two: { sent: 2, dropped: 0, refused: 0 },
      keyReads: 1,
    });
    expect(api.requests.map((r) => (r.body as { routing_key: string }).routing_key)).toEqual([KEY, KEY]);
  });

  it.each([
    { per: EVENTS_PER.group, expected: [['group-0123456789abcdef0123456789abcdef', 'trigger', 202]] },
    {
      per: EVENTS_PER.alert,
      expected: [
        ['fp-web-1', 'trigger', 202],
        ['fp-web-2', 'trigger', 202],
        ['fp-web-3', 'trigger', 202],
      ],
    },
  ])('sends a grouped page of three as $expected.length event(s) per $per', async ({ per, expected }) => {
    // Act
    await forwardToPagerDuty(
      snsEvent(groupPage([alert('web-1', 'firing'), alert('web-2', 'firing'), alert('web-3', 'firing')], T0)),
      deps(per),
    );

    // Assess
    expect(sentEvents()).toEqual(expected);
  });

  describe('fault scenario 4: a retried invocation after the group moved on', () => {
    // The group's first page about a and b: a's trigger is accepted, b's fails four times, the
    // invocation fails. The next page (a resolved, b still firing) is forwarded. Then Lambda retries the first.
    async function scenario(first: unknown, next: unknown): Promise<void> {
      api.script({ status: 202 }, ...Array.from({ length: 4 }, () => ({ status: 500 })));
      await expect(forwardToPagerDuty(snsEvent(first), deps(EVENTS_PER.alert))).rejects.toThrow(/fp-b/);
      clock += 60_000;
      await forwardToPagerDuty(snsEvent(next), deps(EVENTS_PER.alert));
      clock += 60_000;
      await forwardToPagerDuty(snsEvent(first), deps(EVENTS_PER.alert));
    }

    it('without orders (messages from before them) the retry re-opens a: what the order check prevents', async () => {
      // Act
      await scenario(
        groupPage([alert('a', 'firing'), alert('b', 'firing')]),
        groupPage([alert('a', 'resolved'), alert('b', 'firing')]),
      );

      // Assess
      expect(api.incident(KEY, 'fp-a')).toMatchObject({ status: 'triggered', reopened: 1 });
    });

    it('with orders the retry drops what is older than accepted: a stays resolved, b firing, nothing re-opened', async () => {
      // Act
      await scenario(
        groupPage([alert('a', 'firing'), alert('b', 'firing')], T0),
        groupPage([alert('a', 'resolved'), alert('b', 'firing')], T0 + 60_000),
      );

      // Assess
      expect([api.incident(KEY, 'fp-a'), api.incident(KEY, 'fp-b')]).toEqual([
        { status: 'resolved', summary: expect.any(String), events: 2, reopened: 0 },
        { status: 'triggered', summary: expect.any(String), events: 1, reopened: 0 },
      ]);
      expect(logs.filter(([, m]) => m === 'dropped an event older than one accepted').map(([, , f]) => f)).toEqual([
        { dedupKey: 'fp-a', action: 'trigger', order: T0, reason: 'stale' },
        { dedupKey: 'fp-b', action: 'trigger', order: T0, reason: 'stale' },
      ]);
    });

    it('per group: the retried trigger after the group resolve is dropped, the incident stays resolved', async () => {
      // Prepare: the group's trigger fails four times; its resolve is accepted; then the retry.
      api.script(...Array.from({ length: 4 }, () => ({ status: 500 })));
      const first = snsEvent(groupPage([alert('a', 'firing'), alert('b', 'firing')], T0));
      await expect(forwardToPagerDuty(first, deps(EVENTS_PER.group))).rejects.toThrow(/ForwardError|expected/);
      await forwardToPagerDuty(
        snsEvent(groupPage([alert('a', 'firing'), alert('b', 'firing')], T0 + 1)),
        deps(EVENTS_PER.group),
      );
      await forwardToPagerDuty(
        snsEvent(groupPage([alert('a', 'resolved'), alert('b', 'resolved')], T0 + 2)),
        deps(EVENTS_PER.group),
      );

      // Act
      const retry = await forwardToPagerDuty(first, deps(EVENTS_PER.group));

      // Assess
      expect(retry).toEqual({ sent: 0, dropped: 1, refused: 0 });
      expect(api.incident(KEY, 'group-0123456789abcdef0123456789abcdef')).toMatchObject({
        status: 'resolved',
        reopened: 0,
      });
    });
  });

  it('sends every part of a grouped page of one order, once each, however often it is delivered', async () => {
    // Prepare: parts 2 and 1 of one page, then part 2 again (a duplicate delivery).
    const parts = [2, 1, 2].map((index) => groupPage([alert(`web-${index}`, 'firing')], T0, { index, count: 2 }));

    // Act
    const results = [];
    for (const part of parts) results.push(await forwardToPagerDuty(snsEvent(part), deps(EVENTS_PER.group)));

    // Assess
    expect(results.map((r) => [r.sent, r.dropped])).toEqual([
      [1, 0],
      [1, 0],
      [0, 1],
    ]);
  });

  it('refuses a record that is not an alert message with one log line, sends the rest, and does not fail', async () => {
    // Act
    const result = await forwardToPagerDuty(snsEvent('hello', alert('web-1', 'firing')), deps(EVENTS_PER.group));

    // Assess
    expect(result).toEqual({ sent: 1, dropped: 0, refused: 1 });
    expect(logs.filter(([level]) => level === 'error')).toEqual([
      [
        'error',
        LOG_MESSAGES.refused,
        {
          messageId: 'm-0',
          error: 'expected the JSON variant of an httpd-status-alerts message, found "hello" (5 characters)',
        },
      ],
    ]);
  });

  it.each([
    { case: 'a routing key PagerDuty refuses (400)', answer: { status: 400 }, key: async () => KEY },
    { case: 'a routing key PagerDuty forbids (403)', answer: { status: 403 }, key: async () => KEY },
    {
      case: 'no routing key in SSM',
      answer: null,
      key: async (): Promise<string> => {
        throw new Error('expected a routing key in SSM parameter /pagerduty/key, found none');
      },
    },
  ])('reports $case once in an hour, however many invocations fail on it', async ({ answer, key }) => {
    // Prepare: three invocations a minute apart, then one after the hour.
    const event = snsEvent(alert('web-1', 'firing'), alert('web-2', 'firing'));
    const invoke = async () => {
      if (answer !== null) api.script(answer);
      await expect(forwardToPagerDuty(event, deps(EVENTS_PER.alert, key))).rejects.toThrow();
      clock += 60_000;
    };

    // Act
    for (let i = 0; i < 3; i++) await invoke();
    const withinTheHour = logs.filter(([, m]) => m === LOG_MESSAGES.keyRefused).length;
    clock += 3_600_000;
    await invoke();

    // Assess: once, then once more after the hour; the other event of each invocation is still sent.
    expect([withinTheHour, logs.filter(([, m]) => m === LOG_MESSAGES.keyRefused).length]).toEqual([1, 2]);
    expect(api.requests.map((r) => r.status)).toEqual(
      answer === null ? [] : Array(4).fill([answer.status, 202]).flat(),
    );
  });

  it('fault scenario 5: a fleet incident of 1,000 targets, one event per alert, reaches PagerDuty paced and resolves', async () => {
    // Prepare: the monitor's page about 1,000 firing targets in two parts, then their resolve.
    const targets = Array.from({ length: 1000 }, (_, i) => `web-${String(i).padStart(4, '0')}`);
    const pages = (status: 'firing' | 'resolved', order: number) =>
      [0, 1].map((p) =>
        groupPage(
          targets.slice(p * 500, p * 500 + 500).map((t) => alert(t, status)),
          order,
          { index: p + 1, count: 2 },
        ),
      );

    // Act: the two parts arrive as two invocations, the resolve 20 minutes after the trigger.
    const results = [];
    for (const page of pages('firing', T0))
      results.push(await forwardToPagerDuty(snsEvent(page), deps(EVENTS_PER.alert)));
    const triggersDoneAt = clock;
    const started = api.requests[0]?.at ?? 0;
    clock = Math.max(clock, started + 20 * 60_000);
    for (const page of pages('resolved', T0 + 20 * 60_000))
      results.push(await forwardToPagerDuty(snsEvent(page), deps(EVENTS_PER.alert)));

    // Assess: every event accepted at the first try, at most 120 in any minute, every incident resolved.
    expect(results.map((r) => r.sent)).toEqual([500, 500, 500, 500]);
    expect(api.throttled()).toBe(0);
    const times = api.requests.map((r) => r.at);
    const busiest = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 60_000).length));
    expect(busiest).toBeLessThanOrEqual(120);
    const incidents = [...api.incidents.values()];
    expect([incidents.length, incidents.filter((i) => i.status === 'resolved' && i.reopened === 0).length]).toEqual([
      1000, 1000,
    ]);
    // The first 17 in the first 10 s; all 1,000 triggers within 10 minutes (1,000 / 119 a minute).
    expect(times.filter((t) => t < started + 10_000)).toHaveLength(17);
    expect(triggersDoneAt - started).toBeLessThan(10 * 60_000);
  }, 120_000);

  it('drops an event that waited for the pace while a newer page of its key was accepted', async () => {
    // Prepare: this window's places are taken; while the trigger waits, another invocation's resolve is accepted.
    for (let i = 0; i < 17; i++) await ledger.takeSlot(keyIdOf(KEY), clock - (clock % 10_000), 17, 10_000);
    const waiting = deps(EVENTS_PER.alert);
    const sleep = waiting.sleep;
    waiting.sleep = async (ms) => {
      await ledger.recordAccepted('fp-web-1', T0 + 1, 1, clock);
      await sleep(ms);
    };

    // Act
    const result = await forwardToPagerDuty(snsEvent({ ...alert('web-1', 'firing'), order: T0 }), waiting);

    // Assess
    expect([result, api.requests]).toEqual([{ sent: 0, dropped: 1, refused: 0 }, []]);
  });

  it('fails when the pace would outlast the invocation; the retry sends only what was not accepted', async () => {
    // Prepare: 40 alerts but an invocation with 30 s left: 17 now, 17 after 10 s, then too late
    // (another wait would leave less than the 15 s kept back).
    const page = groupPage(
      Array.from({ length: 40 }, (_, i) => alert(`web-${i}`, 'firing')),
      T0,
    );
    const startedAt = clock;
    const short = { ...deps(EVENTS_PER.alert), remainingMs: () => startedAt + 30_000 - clock };

    // Act
    const first = forwardToPagerDuty(snsEvent(page), short);
    await expect(first).rejects.toMatchObject({ name: 'PaceDeadlineError' });
    const sentFirst = api.requests.length;
    clock += 60_000;
    const retry = await forwardToPagerDuty(snsEvent(page), deps(EVENTS_PER.alert));

    // Assess
    expect([sentFirst, retry.sent, retry.dropped, api.requests.length]).toEqual([34, 6, 34, 40]);
  });
});
