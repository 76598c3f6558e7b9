import type { SNSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPagerDutySender } from '../../src/adapters/pagerDutyEventsClient.ts';
import { createDynamoPagerDutyLedger } from '../../src/adapters/pagerDutyLedger.ts';
import { EVENTS_PER, type EventsPer } from '../../src/core/pagerduty/events.ts';
import { forwardToPagerDuty, keyIdOf } from '../../src/forwarder/forward.ts';
import { LOG_MESSAGES } from '../../src/forwarder/logMessages.ts';
import { type ForwarderDeps, PagerDutyDeliveryError } from '../../src/forwarder/ports.ts';
import { type LocalDynamo, startDynalite } from '../support/emulators.ts';
import { type PagerDutyStandIn, startPagerDutyStandIn } from '../support/pagerDutyStandIn.ts';

const KEY = 'R0UT1NGKEY0000000000000000000000';
const T0 = Date.parse('2026-11-22T12:00:00Z');
/** What Lambda gives the forwarder (the stack's timeout). */
const INVOCATION_MS = 900_000;

const alert = (target: string, status: 'firing' | 'resolved', firedAt?: number) => ({
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
  ...(firedAt === undefined ? {} : { firedAt: new Date(firedAt).toISOString() }),
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

describe('forwardToPagerDuty against the stand-in Events API and the state table', () => {
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
        // a resolved since, so the retry gives it no seat of its own: its trigger is the overflow's, stale too.
        { dedupKey: 'fp-b', action: 'trigger', order: T0, reason: 'stale' },
        {
          dedupKey: 'group-0123456789abcdef0123456789abcdef-more',
          action: 'trigger',
          order: T0,
          reason: 'stale',
        },
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

  describe('an event PagerDuty took whose answer never reached the ledger', () => {
    const GROUP_KEY = 'group-0123456789abcdef0123456789abcdef';
    type Loss = 'answer lost' | 'died before the ledger write';

    /** An invocation whose first event PagerDuty accepts but the forwarder never learns it did. */
    function losingFirst(eventsPer: EventsPer, loss: Loss): ForwarderDeps {
      const d = deps(eventsPer);
      const sender = d.sender;
      let sends = 0;
      const send: typeof sender.send = async (event) => {
        await sender.send(event);
        if (sends++ === 0 && loss === 'answer lost') throw new PagerDutyDeliveryError(event, 4, 'no answer', null);
      };
      const died = async () => {
        throw new Error('the function died here');
      };
      return {
        ...d,
        sender: { send },
        ledger: loss === 'answer lost' ? ledger : { ...ledger, recordAccepted: died },
      };
    }

    it.each([
      { eventsPer: EVENTS_PER.group, loss: 'answer lost', key: GROUP_KEY, resolveDrops: 0 },
      { eventsPer: EVENTS_PER.alert, loss: 'answer lost', key: 'fp-a', resolveDrops: 1 },
      { eventsPer: EVENTS_PER.group, loss: 'died before the ledger write', key: GROUP_KEY, resolveDrops: 0 },
      { eventsPer: EVENTS_PER.alert, loss: 'died before the ledger write', key: 'fp-a', resolveDrops: 1 },
    ] as const)(
      '$eventsPer, trigger $loss: the next resolve closes the incident, the retry is stale',
      async ({ eventsPer, loss, key, resolveDrops }) => {
        // Prepare: the trigger of T0 taken by PagerDuty, its invocation failing after the send.
        const firing = snsEvent(groupPage([alert('a', 'firing')], T0));
        await expect(forwardToPagerDuty(firing, losingFirst(eventsPer, loss))).rejects.toThrow(/no answer|died/);

        // Act: the resolve of T0 + 60 s arrives before Lambda's retry of the trigger.
        clock += 60_000;
        const resolve = await forwardToPagerDuty(
          snsEvent(groupPage([alert('a', 'resolved')], T0 + 60_000)),
          deps(eventsPer),
        );
        clock += 60_000;
        const retry = await forwardToPagerDuty(firing, deps(eventsPer));

        // Assess: per alert, the overflow incident never opened: its resolve dropped at no pace.
        expect([resolve, retry]).toEqual([
          { sent: 1, dropped: resolveDrops, refused: 0 },
          { sent: 0, dropped: 1, refused: 0 },
        ]);
        expect(sentEvents()).toEqual([
          [key, 'trigger', 202],
          [key, 'resolve', 202],
        ]);
        expect(api.incident(KEY, key)).toMatchObject({ status: 'resolved', events: 2, reopened: 0 });
      },
    );

    it("per group, resolve answer lost: a retried older update stays out, the resolve's retry closes", async () => {
      // Prepare: the group fires (T0, accepted); its update (T0 + 1) fails four times; its resolve
      // (T0 + 2) is taken by PagerDuty, the answer lost.
      await forwardToPagerDuty(snsEvent(groupPage([alert('a', 'firing')], T0)), deps(EVENTS_PER.group));
      const update = snsEvent(groupPage([alert('a', 'firing'), alert('b', 'firing')], T0 + 1));
      api.script(...Array.from({ length: 4 }, () => ({ status: 500 })));
      await expect(forwardToPagerDuty(update, deps(EVENTS_PER.group))).rejects.toThrow(/HTTP 500|expected/);
      const resolved = snsEvent(groupPage([alert('a', 'resolved'), alert('b', 'resolved')], T0 + 2));
      await expect(forwardToPagerDuty(resolved, losingFirst(EVENTS_PER.group, 'answer lost'))).rejects.toThrow(
        /no answer/,
      );

      // Act: Lambda retries the update, then the resolve.
      clock += 60_000;
      const results = [
        await forwardToPagerDuty(update, deps(EVENTS_PER.group)),
        await forwardToPagerDuty(resolved, deps(EVENTS_PER.group)),
      ];

      // Assess: the update older than the resolve attempted; the resolve sent again (harmless to PagerDuty).
      expect(results).toEqual([
        { sent: 0, dropped: 1, refused: 0 },
        { sent: 1, dropped: 0, refused: 0 },
      ]);
      expect(api.incident(KEY, GROUP_KEY)).toMatchObject({ status: 'resolved', events: 3, reopened: 0 });
    });
  });

  it.each([EVENTS_PER.group, EVENTS_PER.alert])(
    '%s: a trigger whose request arrives after its newer resolve (another container) is closed again',
    async (eventsPer) => {
      // Prepare: while the trigger of T0 is on its way, another invocation forwards the resolve of
      // T0 + 60 s, which PagerDuty gets first (nothing open yet: a no-op), then the trigger opens it.
      const key = eventsPer === EVENTS_PER.group ? 'group-0123456789abcdef0123456789abcdef' : 'fp-a';
      const resolved = snsEvent(groupPage([alert('a', 'resolved')], T0 + 60_000));
      const d = deps(eventsPer);
      let overtaken = false;
      const slowTrigger: ForwarderDeps = {
        ...d,
        sender: {
          send: async (event) => {
            if (!overtaken) {
              overtaken = true;
              await forwardToPagerDuty(resolved, deps(eventsPer));
            }
            await d.sender.send(event);
          },
        },
      };

      // Act
      const result = await forwardToPagerDuty(snsEvent(groupPage([alert('a', 'firing')], T0)), slowTrigger);

      // Assess: the trigger and the resolve it was overtaken by, sent again after it (per alert,
      // the page's overflow incident never opened: its resolve dropped).
      expect(result).toEqual({ sent: 2, dropped: eventsPer === EVENTS_PER.alert ? 1 : 0, refused: 0 });
      expect(sentEvents()).toEqual([
        [key, 'resolve', 202],
        [key, 'trigger', 202],
        [key, 'resolve', 202],
      ]);
      expect(api.incident(KEY, key)).toMatchObject({ status: 'resolved' });
      expect(logs.map(([, message]) => message)).toContain(LOG_MESSAGES.lateTrigger);
    },
  );

  describe('a routing-key change: incidents updated and resolved on the key they were opened with', () => {
    const KEY_2 = 'R0UT1NGKEY2222222222222222222222';
    const GROUP_KEY = 'group-0123456789abcdef0123456789abcdef';
    /** An invocation reading version `version` of the parameter; `old` reads an earlier version. */
    function versioned(version: number, old: (v: number) => Promise<string>): ForwarderDeps {
      return {
        ...deps(EVENTS_PER.group, async () => KEY),
        routingKey: async () => ({ key: version === 1 ? KEY : KEY_2, version }),
        routingKeyAt: old,
      };
    }
    const sentWithKeys = () =>
      api.requests.map((r) => {
        const body = r.body as { routing_key: string; dedup_key: string; event_action: string };
        return [body.routing_key, body.dedup_key, body.event_action, r.status];
      });

    it.each([
      {
        case: 'the old version readable',
        old: async (v: number) => (v === 1 ? KEY : KEY_2),
        resolvedOn: KEY,
        logged: [],
      },
      {
        case: 'the old version gone (SSM keeps 100)',
        old: async () => {
          throw new Error('ParameterVersionNotFound');
        },
        resolvedOn: KEY_2,
        logged: [LOG_MESSAGES.openerKeyLost],
      },
      {
        case: 'the old version not the key that opened it',
        old: async () => 'R0UT1NGKEY9999999999999999999999',
        resolvedOn: KEY_2,
        logged: [LOG_MESSAGES.openerKeyLost],
      },
    ])('$case: the update and the resolve go to $resolvedOn', async ({ old, resolvedOn, logged }) => {
      // Prepare: the group opened under version 1; the parameter is overwritten (version 2).
      await forwardToPagerDuty(snsEvent(groupPage([alert('a', 'firing')], T0)), versioned(1, old));

      // Act: its update, then its resolve, forwarded by containers holding version 2; then a new
      // incident (an alert outside the group, its own key) opens under version 2.
      const update = snsEvent(groupPage([alert('a', 'firing'), alert('b', 'firing')], T0 + 1));
      const resolve = snsEvent(groupPage([alert('a', 'resolved'), alert('b', 'resolved')], T0 + 2));
      await forwardToPagerDuty(update, versioned(2, old));
      await forwardToPagerDuty(resolve, versioned(2, old));
      await forwardToPagerDuty(snsEvent({ ...alert('c', 'firing'), order: T0 + 3 }), versioned(2, old));

      // Assess
      expect(sentWithKeys()).toEqual([
        [KEY, GROUP_KEY, 'trigger', 202],
        [resolvedOn, GROUP_KEY, 'trigger', 202],
        [resolvedOn, GROUP_KEY, 'resolve', 202],
        [KEY_2, 'fp-c', 'trigger', 202],
      ]);
      expect(api.incident(KEY, GROUP_KEY)?.status).toBe(resolvedOn === KEY ? 'resolved' : 'triggered');
      // Once: the update sent to the current key opens the incident there, where its resolve follows it.
      expect(logs.map(([, message]) => message).filter((m) => m === LOG_MESSAGES.openerKeyLost)).toEqual(logged);
    });
  });

  it.each([EVENTS_PER.group, EVENTS_PER.alert])(
    '%s: a trigger taken after its newer resolve, its answer lost, is closed again; the retry is stale',
    async (eventsPer) => {
      // Prepare: while the trigger of T0 is on its way, another invocation forwards the resolve of
      // T0 + 60 s, which PagerDuty gets first (a no-op); then the trigger opens the incident and its answer is lost.
      const key = eventsPer === EVENTS_PER.group ? 'group-0123456789abcdef0123456789abcdef' : 'fp-a';
      const resolved = snsEvent(groupPage([alert('a', 'resolved')], T0 + 60_000));
      const firing = snsEvent(groupPage([alert('a', 'firing')], T0));
      const d = deps(eventsPer);
      let overtaken = false;
      const slowTrigger: ForwarderDeps = {
        ...d,
        sender: {
          send: async (event) => {
            if (overtaken) return d.sender.send(event);
            overtaken = true;
            await forwardToPagerDuty(resolved, deps(eventsPer));
            await d.sender.send(event);
            throw new PagerDutyDeliveryError(event, 4, 'no answer', null);
          },
        },
      };

      // Act: the invocation fails (the answer lost); Lambda retries it.
      await expect(forwardToPagerDuty(firing, slowTrigger)).rejects.toMatchObject({ name: 'ForwardError' });
      clock += 60_000;
      const retry = await forwardToPagerDuty(firing, deps(eventsPer));

      // Assess: the resolve sent again after the lost answer; the retry's trigger older than the
      // resolve, dropped (per alert, a resolved since, it takes no seat: the overflow's trigger, stale).
      expect(retry).toEqual({ sent: 0, dropped: 1, refused: 0 });
      expect(sentEvents()).toEqual([
        [key, 'resolve', 202],
        [key, 'trigger', 202],
        [key, 'resolve', 202],
      ]);
      // The first resolve found nothing open (PagerDuty keeps no incident for it): the trigger opened, the resend closed.
      expect(api.incident(KEY, key)).toMatchObject({ status: 'resolved', events: 2, reopened: 0 });
      expect(logs.map(([, message]) => message).filter((m) => m === LOG_MESSAGES.lateTrigger)).toEqual([
        LOG_MESSAGES.lateTrigger,
      ]);
    },
  );

  it('sends every part of a grouped page once each (part i at order + i - 1), however often it is delivered', async () => {
    // Prepare: parts 2 and 1 of one page, then part 2 again (a duplicate delivery).
    const parts = [2, 1, 2].map((index) =>
      groupPage([alert(`web-${index}`, 'firing')], T0 + index - 1, { index, count: 2 }),
    );

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

  it('per group: every part of a page in parts (part i at order + i - 1) reaches the incident, in any order of delivery', async () => {
    // Prepare: a page of six in three parts as the monitor publishes it (part i carries the page's
    // order plus i - 1), delivered last part first; then its resolve in two parts, also last first;
    // then a late duplicate of the firing page's first part.
    const GROUP_KEY = 'group-0123456789abcdef0123456789abcdef';
    const names = ['web-1', 'web-2', 'web-3', 'web-4', 'web-5', 'web-6'];
    const inParts = (status: 'firing' | 'resolved', order: number, count: number) =>
      Array.from({ length: count }, (_, p) => {
        const size = names.length / count;
        return groupPage(
          names.slice(p * size, p * size + size).map((t) => alert(t, status)),
          order + p,
          { index: p + 1, count },
        );
      });
    const firing = inParts('firing', T0, 3);
    const resolved = inParts('resolved', T0 + 60_000, 2);

    // Act
    const results = [];
    for (const page of [firing[2], firing[0], firing[1], resolved[1], resolved[0], firing[0]])
      results.push(await forwardToPagerDuty(snsEvent(page), deps(EVENTS_PER.group)));

    // Assess: the three triggers sent, together listing all six alerts; one resolve sent, the other
    // part's closing nothing; the late first part stale; the incident resolved, never re-opened.
    expect(results.map((r) => [r.sent, r.dropped])).toEqual([
      [1, 0],
      [1, 0],
      [1, 0],
      [1, 0],
      [0, 1],
      [0, 1],
    ]);
    expect(sentEvents()).toEqual([
      [GROUP_KEY, 'trigger', 202],
      [GROUP_KEY, 'trigger', 202],
      [GROUP_KEY, 'trigger', 202],
      [GROUP_KEY, 'resolve', 202],
    ]);
    const listed = api.requests
      .filter((r) => (r.body as { event_action: string }).event_action === 'trigger')
      .flatMap((r) =>
        (r.body as { payload: { custom_details: { alerts: { target: string }[] } } }).payload.custom_details.alerts.map(
          (a) => a.target,
        ),
      );
    expect(listed.sort()).toEqual(names);
    expect(api.incident(KEY, GROUP_KEY)).toMatchObject({ status: 'resolved', events: 4, reopened: 0 });
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

  describe('fault scenario 5: a fleet incident of 1,000 targets in one group page', () => {
    const GROUP_KEY = 'group-0123456789abcdef0123456789abcdef';
    const targets = Array.from({ length: 1000 }, (_, i) => `web-${String(i).padStart(4, '0')}`);
    // Fired over the 10 minutes before T0, in an order unrelated to the names the parts are sorted by.
    const firedAt = (i: number) => T0 - ((i * 7919) % 1000) * 600;
    /** The page in 10 parts of 100 (as the monitor splits it by size), part i carrying order + i - 1. */
    const pages = (status: 'firing' | 'resolved', order: number) =>
      Array.from({ length: 10 }, (_, p) =>
        groupPage(
          targets.slice(p * 100, p * 100 + 100).map((t, i) => alert(t, status, firedAt(p * 100 + i))),
          order + p,
          { index: p + 1, count: 10 },
        ),
      );

    it.each([
      { per: EVENTS_PER.group, incidents: 1, triggers: 10, resolves: 1, lastTriggerAfter: 0 },
      // 120 own incidents, and the overflow's trigger from each part with alerts past the bound (2 to 10).
      // 129 at 17 per 10 s: the last in the 8th window, 70 s after the first.
      { per: EVENTS_PER.alert, incidents: 121, triggers: 129, resolves: 121, lastTriggerAfter: 70_000 },
    ])(
      'per $per: $triggers triggers within $lastTriggerAfter ms, none over the rate, then $resolves resolve(s) close all $incidents incident(s)',
      async ({ per, incidents, triggers, resolves, lastTriggerAfter }) => {
        // Act: each part is an invocation of its own (SNS hands Lambda one record), the resolve 20 minutes on.
        for (const page of pages('firing', T0)) await forwardToPagerDuty(snsEvent(page), deps(per));
        const triggered = [...api.requests];
        clock += 20 * 60_000;
        for (const page of pages('resolved', T0 + 20 * 60_000)) await forwardToPagerDuty(snsEvent(page), deps(per));

        // Assess: every event accepted at the first try, at most 119 in any minute, all triggers well
        // within 3 minutes of the first, every incident opened resolved and none re-opened.
        expect(api.throttled()).toBe(0);
        const times = api.requests.map((r) => r.at);
        const busiest = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 60_000).length));
        expect(busiest).toBeLessThanOrEqual(119);
        const first = triggered[0]?.at ?? 0;
        expect([triggered.length, (triggered.at(-1)?.at ?? Number.POSITIVE_INFINITY) - first]).toEqual([
          triggers,
          lastTriggerAfter,
        ]);
        expect(api.requests.length - triggered.length).toBe(resolves);
        const opened = [...api.incidents.values()];
        expect([opened.length, opened.filter((i) => i.status === 'resolved' && i.reopened === 0).length]).toEqual([
          incidents,
          incidents,
        ]);
      },
      120_000,
    );

    it('per alert: the overflow incident names the rule and how many more targets, listing them', async () => {
      // Act
      for (const page of pages('firing', T0).slice(0, 2))
        await forwardToPagerDuty(snsEvent(page), deps(EVENTS_PER.alert));

      // Assess: part 1's 100 alerts and 20 of part 2's (the earliest fired) hold the 120 seats.
      const overflow = api.requests.filter((r) => (r.body as { dedup_key: string }).dedup_key === `${GROUP_KEY}-more`);
      const body = overflow[0]?.body as { payload: { summary: string; custom_details: { alerts: unknown[] } } };
      expect([overflow.length, body.payload.custom_details.alerts.length]).toEqual([1, 80]);
      expect(body.payload.summary).toMatch(
        /^\[FIRING warning\] closing-pileup: 80 more targets \(part 2 of 10\): web-01/,
      );
      const part2Own = targets
        .slice(100, 200)
        .map((t, i) => ({ t, at: firedAt(100 + i) }))
        .sort((a, b) => a.at - b.at || (a.t < b.t ? -1 : 1))
        .slice(0, 20)
        .map((a) => `fp-${a.t}`);
      expect(await ledger.ownIncidents(GROUP_KEY)).toEqual(
        new Set([...targets.slice(0, 100).map((t) => `fp-${t}`), ...part2Own]),
      );
    });
  });

  it('per alert: holders keep their incidents, a freed seat goes to the earliest waiting, not to a newcomer', async () => {
    // Prepare: 125 firing (web-000 fired first); 120 own incidents and 5 in the overflow (web-120..124).
    const GROUP_KEY = 'group-0123456789abcdef0123456789abcdef';
    const names = Array.from({ length: 125 }, (_, i) => `web-${String(i).padStart(3, '0')}`);
    const firing = (name: string, i: number) => alert(name, 'firing', T0 - (200 - i) * 1000);
    await forwardToPagerDuty(snsEvent(groupPage(names.map(firing), T0)), deps(EVENTS_PER.alert));
    const afterFirst = api.requests.length;

    // Act: the next page: web-000 and web-001 resolved, three newcomers (named to sort first, fired last).
    const newcomers = ['a-1', 'a-2', 'a-3'].map((n) => alert(n, 'firing', T0 + 30_000));
    clock += 60_000;
    await forwardToPagerDuty(
      snsEvent(
        groupPage(
          [...newcomers, ...names.map((n, i) => (i < 2 ? alert(n, 'resolved', T0 - (200 - i) * 1000) : firing(n, i)))],
          T0 + 60_000,
        ),
      ),
      deps(EVENTS_PER.alert),
    );

    // Assess: the first page was 121 events; the second resolves the two, opens web-120 and web-121
    // (the earliest waiting), re-triggers the 118 kept and the overflow, which now lists web-122..124 and the newcomers.
    expect(afterFirst).toBe(121);
    const second = api.requests.slice(afterFirst).map((r) => r.body as { dedup_key: string; event_action: string });
    const opened = second.filter((e) => e.event_action === 'trigger' && api.incident(KEY, e.dedup_key)?.events === 1);
    expect(opened.map((e) => e.dedup_key)).toEqual(['fp-web-120', 'fp-web-121']);
    expect(second.filter((e) => e.event_action === 'resolve').map((e) => e.dedup_key)).toEqual([
      'fp-web-000',
      'fp-web-001',
    ]);
    const overflow = api.incident(KEY, `${GROUP_KEY}-more`);
    expect(overflow).toMatchObject({ status: 'triggered', events: 2 });
    expect(overflow?.summary).toBe(
      '[FIRING warning] closing-pileup: 6 more targets: a-1, a-2, a-3, web-122, web-123, web-124',
    );
    expect(second).toHaveLength(2 + 2 + 118 + 1);
    expect((await ledger.ownIncidents(GROUP_KEY)).size).toBe(120);

    // Act: everything resolves (the page names those still firing at the last page).
    clock += 60_000;
    const last = await forwardToPagerDuty(
      snsEvent(
        groupPage(
          [...newcomers, ...names.map((n, i) => firing(n, i)).slice(2)].map((a) => ({
            ...a,
            status: 'resolved' as const,
          })),
          T0 + 120_000,
        ),
      ),
      deps(EVENTS_PER.alert),
    );

    // Assess: 120 own resolves and the overflow's; the 6 never-opened are dropped at no pace; nothing left open or held.
    expect(last).toEqual({ sent: 121, dropped: 6, refused: 0 });
    expect([...api.incidents.values()].filter((i) => i.status !== 'resolved')).toEqual([]);
    expect(api.incidents.size).toBe(123);
    expect(await ledger.ownIncidents(GROUP_KEY)).toEqual(new Set());
  });

  it('per alert: a late older page saying a holder resolved neither resolves it nor frees its seat', async () => {
    // Prepare: x holds a seat, and its trigger of a newer page (T0 + 2) was accepted.
    const GROUP_KEY = 'group-0123456789abcdef0123456789abcdef';
    await ledger.claimOwnIncident(GROUP_KEY, 'fp-x', 120, clock);
    await ledger.recordAttempt('fp-x', T0 + 2, clock, 'trigger');
    await ledger.recordAccepted('fp-x', T0 + 2, 1, clock, 'trigger');

    // Act: the page of T0 + 1 (x resolved, y firing) arrives late.
    const result = await forwardToPagerDuty(
      snsEvent(groupPage([alert('x', 'resolved'), alert('y', 'firing')], T0 + 1)),
      deps(EVENTS_PER.alert),
    );

    // Assess: y's trigger only; x's resolve is stale, the never-opened overflow's resolve dropped; x keeps its seat.
    expect([result, sentEvents()]).toEqual([{ sent: 1, dropped: 2, refused: 0 }, [['fp-y', 'trigger', 202]]]);
    expect(await ledger.ownIncidents(GROUP_KEY)).toEqual(new Set(['fp-x', 'fp-y']));
  });

  it('per alert: a late older page takes no seat for an alert that resolved since', async () => {
    // Prepare: x's resolve of a newer page (T0 + 2) was accepted.
    const GROUP_KEY = 'group-0123456789abcdef0123456789abcdef';
    await ledger.recordAttempt('fp-x', T0 + 2, clock, 'resolve');
    await ledger.recordAccepted('fp-x', T0 + 2, 1, clock, 'resolve');

    // Act: the page of T0 + 1 (x firing) arrives late.
    const result = await forwardToPagerDuty(
      snsEvent(groupPage([alert('x', 'firing')], T0 + 1)),
      deps(EVENTS_PER.alert),
    );

    // Assess: x in the overflow (its trigger would be stale), no seat taken.
    expect(result).toEqual({ sent: 1, dropped: 0, refused: 0 });
    expect(sentEvents()).toEqual([[`${GROUP_KEY}-more`, 'trigger', 202]]);
    expect(await ledger.ownIncidents(GROUP_KEY)).toEqual(new Set());
  });

  it('drops an event that waited for the pace while a newer page of its key was accepted', async () => {
    // Prepare: this window's places are taken; while the trigger waits, another invocation's resolve is accepted.
    for (let i = 0; i < 17; i++) await ledger.takeSlot(keyIdOf(KEY), clock - (clock % 10_000), 17, 10_000);
    const waiting = deps(EVENTS_PER.alert);
    const sleep = waiting.sleep;
    waiting.sleep = async (ms) => {
      await ledger.recordAttempt('fp-web-1', T0 + 1, clock, 'resolve');
      await ledger.recordAccepted('fp-web-1', T0 + 1, 1, clock, 'resolve');
      await sleep(ms);
    };

    // Act
    const result = await forwardToPagerDuty(snsEvent({ ...alert('web-1', 'firing'), order: T0 }), waiting);

    // Assess
    expect([result, api.requests]).toEqual([{ sent: 0, dropped: 1, refused: 0 }, []]);
  });

  it('fails when the pace would outlast the invocation; the retry sends only what was not accepted', async () => {
    // Prepare: 40 alerts but an invocation with 30 s left: 17 now, 17 after 10 s, then too late
    // (another wait would leave less than the 15 s kept back). The retry also drops the page's
    // resolve of the group's overflow incident, which was never opened (all 40 have their own).
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
    expect([sentFirst, retry.sent, retry.dropped, api.requests.length]).toEqual([34, 6, 35, 40]);
  });
});
