import { describe, expect, it } from 'vitest';
import { type AlertFacts, readAlertPage } from '../../../src/core/message/readMessage.ts';
import {
  alertOfEntry,
  assignIncidents,
  freedBy,
  INCIDENT_REASONS,
  overflowKeyOf,
  pageEntry,
  perAlertEvents,
  rankFiring,
} from '../../../src/core/pagerduty/perAlert.ts';

const KEY = 'R0UT1NGKEY0000000000000000000000';
const GROUP = 'group-0123456789abcdef0123456789abcdef';
const T0 = Date.parse('2026-11-22T12:00:00Z');

/** An alert as a grouped page lists it; `firedAt` in minutes after T0 (null: the page does not say). */
const alert = (target: string, status: 'firing' | 'resolved', firedAtMinutes: number | null = 0) => ({
  fingerprint: `fp-${target}`,
  status,
  target,
  rule: 'closing-pileup',
  severity: 'warning',
  metric: 'slots_closing',
  op: '>=',
  value: 23,
  threshold: 20,
  firedAt: firedAtMinutes === null ? null : new Date(T0 + firedAtMinutes * 60_000).toISOString(),
  resolvedAt: null,
  new: false,
});
type Alert = ReturnType<typeof alert>;
/** One alert as the forwarder reads it. */
const readAlert = (a: Alert) => readAlertPage(JSON.stringify(a)).alerts[0] as AlertFacts;

/** A grouped page as the monitor publishes it, read as the forwarder reads it. */
function page(alerts: Alert[], options: { order?: number | null; part?: [number, number]; groupFiring?: number } = {}) {
  // A part sees its own alerts; the page's status and counts are the whole page's (`groupFiring`).
  const firing = options.groupFiring ?? alerts.filter((a) => a.status === 'firing').length;
  const [index, count] = options.part ?? [1, 1];
  const order = options.order === undefined ? T0 : options.order;
  return readAlertPage(
    JSON.stringify({
      version: 1,
      kind: 'group',
      status: firing > 0 ? 'firing' : 'resolved',
      reason: firing > 0 ? 'update' : 'resolved',
      fingerprint: GROUP,
      group: { id: GROUP.slice(6), key: '{"rule":"closing-pileup"}', labels: {} },
      severity: 'warning',
      rule: 'closing-pileup',
      evaluatedAt: new Date(T0).toISOString(),
      counts: { firing, resolved: alerts.filter((a) => a.status === 'resolved').length, new: 0 },
      part: { index, count },
      alerts,
      ...(order === null ? {} : { order }),
    }),
  );
}

describe('rankFiring', () => {
  it.each([
    { case: 'earliest fired first', alerts: [alert('b', 'firing', 2), alert('a', 'firing', 5)], expected: ['b', 'a'] },
    {
      case: 'one minute: by fingerprint',
      alerts: [alert('c', 'firing', 1), alert('a', 'firing', 1)],
      expected: ['a', 'c'],
    },
    {
      case: 'no firedAt: after those with one',
      alerts: [alert('a', 'firing', null), alert('z', 'firing', 9)],
      expected: ['z', 'a'],
    },
    {
      case: 'resolved alerts are not ranked',
      alerts: [alert('a', 'resolved', 0), alert('b', 'firing', 3)],
      expected: ['b'],
    },
  ])('$case', ({ alerts, expected }) => {
    // Act
    const ranked = rankFiring(page(alerts).alerts);

    // Assess
    expect(ranked.map((a) => a.target)).toEqual(expected);
  });
});

describe('assignIncidents', () => {
  it.each([
    {
      case: 'room for two of three: the two that fired first',
      alerts: [alert('a', 'firing', 3), alert('b', 'firing', 1), alert('c', 'firing', 2)],
      held: [],
      expected: [
        ['fp-b', 'own', 'room'],
        ['fp-c', 'own', 'room'],
        ['fp-a', 'overflow', 'full'],
      ],
    },
    {
      case: 'a holder keeps its seat though it fired last',
      alerts: [alert('a', 'firing', 1), alert('b', 'firing', 2), alert('c', 'firing', 9)],
      held: ['fp-c'],
      expected: [
        ['fp-a', 'own', 'room'],
        ['fp-b', 'overflow', 'full'],
        ['fp-c', 'own', 'kept'],
      ],
    },
    {
      case: 'a newcomer that sorts first never pushes a holder out',
      alerts: [alert('0-new', 'firing', 30), alert('a', 'firing', 1), alert('b', 'firing', 2)],
      held: ['fp-a', 'fp-b'],
      expected: [
        ['fp-a', 'own', 'kept'],
        ['fp-b', 'own', 'kept'],
        ['fp-0-new', 'overflow', 'full'],
      ],
    },
    {
      case: 'a holder resolved in the page frees its seat for the earliest waiting',
      alerts: [alert('a', 'resolved', 1), alert('b', 'firing', 2), alert('c', 'firing', 3), alert('d', 'firing', 4)],
      held: ['fp-a', 'fp-b'],
      expected: [
        ['fp-b', 'own', 'kept'],
        ['fp-c', 'own', 'room'],
        ['fp-d', 'overflow', 'full'],
      ],
    },
    {
      case: 'seats held by alerts of other parts count against the bound',
      alerts: [alert('x', 'firing', 1)],
      held: ['fp-a', 'fp-b'],
      expected: [['fp-x', 'overflow', 'full']],
    },
    {
      case: 'more held than the bound (a smaller bound deployed): none taken, holders keep theirs',
      alerts: [alert('a', 'firing', 1), alert('x', 'firing', 2)],
      held: ['fp-a', 'fp-b', 'fp-c'],
      expected: [
        ['fp-a', 'own', 'kept'],
        ['fp-x', 'overflow', 'full'],
      ],
    },
  ])('$case (bound 2)', ({ alerts, held, expected }) => {
    // Prepare: the page's resolved holders free their seats first, as the forwarder does.
    const facts = page(alerts).alerts;
    const seats = new Set(held);
    for (const fp of freedBy(facts, seats)) seats.delete(fp);

    // Act
    const assigned = assignIncidents(facts, seats, 2);

    // Assess
    // The incident follows from the reason: the overflow's when every seat is held.
    const incidentOf = (reason: string) => (reason === INCIDENT_REASONS.full ? 'overflow' : 'own');
    expect(assigned.map((a) => [a.fingerprint, incidentOf(a.reason), a.reason])).toEqual(expected);
  });
});

describe('freedBy', () => {
  it('frees the seats of the page resolved alerts that hold one, only those', () => {
    // Act
    const freed = freedBy(
      page([alert('a', 'resolved'), alert('b', 'resolved'), alert('c', 'firing')]).alerts,
      new Set(['fp-a', 'fp-c']),
    );

    // Assess
    expect(freed).toEqual(['fp-a']);
  });
});

describe('perAlertEvents', () => {
  const keys = (events: ReturnType<typeof perAlertEvents>) =>
    events.map((e) => [e.event.dedup_key, e.event.event_action]);

  it.each([
    {
      case: 'own incidents triggered, every resolve keyed by its alert, the rest in the overflow',
      page: page([alert('a', 'firing'), alert('b', 'resolved'), alert('c', 'firing'), alert('d', 'firing')]),
      own: ['fp-a'],
      expected: [
        ['fp-a', 'trigger'],
        ['fp-b', 'resolve'],
        [`${GROUP}-more`, 'trigger'],
      ],
    },
    {
      case: 'a whole page with no alert past the bound resolves the overflow',
      page: page([alert('a', 'firing'), alert('b', 'resolved')]),
      own: ['fp-a'],
      expected: [
        ['fp-a', 'trigger'],
        ['fp-b', 'resolve'],
        [`${GROUP}-more`, 'resolve'],
      ],
    },
    {
      case: 'a firing part with none past the bound says nothing of the overflow (other parts may list some)',
      page: page([alert('a', 'firing')], { part: [1, 3] }),
      own: ['fp-a'],
      expected: [['fp-a', 'trigger']],
    },
    {
      case: 'a part of a resolved page resolves the overflow',
      page: page([alert('a', 'resolved')], { part: [2, 3], order: T0 + 1 }),
      own: [],
      expected: [
        ['fp-a', 'resolve'],
        [`${GROUP}-more`, 'resolve'],
      ],
    },
    {
      case: 'a page without an order never resolves the overflow',
      page: page([alert('a', 'resolved')], { order: null }),
      own: [],
      expected: [['fp-a', 'resolve']],
    },
    {
      case: 'a part of only resolved alerts of a page still firing says nothing of the overflow',
      page: page([alert('a', 'resolved'), alert('b', 'resolved')], { part: [3, 3], order: T0 + 2, groupFiring: 146 }),
      own: [],
      expected: [
        ['fp-a', 'resolve'],
        ['fp-b', 'resolve'],
      ],
    },
  ])('$case', ({ page: p, own, expected }) => {
    // Act
    const events = perAlertEvents(p, GROUP, new Set(own), KEY);

    // Assess
    expect(keys(events)).toEqual(expected);
    expect(events.every((e) => e.order === p.order && e.part === p.part)).toBe(true);
  });

  const other = (target: string) => alertOfEntry(pageEntry(readAlert(alert(target, 'firing'))));
  it.each([
    {
      case: "a resolved part gives freed seats to other parts' alerts and lists the rest in the overflow",
      page: page([alert('a', 'resolved')], { part: [3, 3], order: T0 + 2, groupFiring: 3 }),
      own: ['fp-b'],
      view: { others: [other('b'), other('c')], promoted: new Set(['fp-b']), complete: true },
      expected: [
        ['fp-a', 'resolve', T0 + 2],
        ['fp-b', 'trigger', T0 + 2],
        [`${GROUP}-more`, 'trigger', T0],
      ],
      listed: ['c'],
    },
    {
      case: 'every firing alert of the page known, each with its own incident: the overflow resolves',
      page: page([alert('a', 'resolved')], { part: [2, 2], order: T0 + 1, groupFiring: 1 }),
      own: ['fp-b'],
      view: { others: [other('b')], promoted: new Set(['fp-b']), complete: true },
      expected: [
        ['fp-a', 'resolve', T0 + 1],
        ['fp-b', 'trigger', T0 + 1],
        [`${GROUP}-more`, 'resolve', T0],
      ],
      listed: [],
    },
    {
      case: 'a firing part lists the overflow alerts of the parts before it too, at the page order',
      page: page([alert('d', 'firing')], { part: [2, 3], order: T0 + 1, groupFiring: 4 }),
      own: ['fp-b'],
      view: { others: [other('b'), other('c')], promoted: new Set<string>(), complete: false },
      expected: [[`${GROUP}-more`, 'trigger', T0]],
      listed: ['d', 'c'],
    },
    {
      case: 'the page not all known and none past the bound: nothing said of the overflow',
      page: page([alert('a', 'resolved')], { part: [3, 3], order: T0 + 2, groupFiring: 5 }),
      own: ['fp-b'],
      view: { others: [other('b')], promoted: new Set<string>(), complete: false },
      expected: [['fp-a', 'resolve', T0 + 2]],
      listed: [],
    },
  ])('$case', ({ page: p, own, view, expected, listed }) => {
    // Act
    const events = perAlertEvents(p, GROUP, new Set(own), KEY, view);

    // Assess
    expect(events.map((e) => [e.event.dedup_key, e.event.event_action, e.order])).toEqual(expected);
    const more = events.find((e) => e.event.dedup_key.endsWith('-more') && e.event.event_action === 'trigger');
    const alerts = (more?.event.payload.custom_details.alerts ?? []) as { target: string }[];
    expect(alerts.map((a) => a.target)).toEqual(listed);
  });

  it('the overflow trigger names the rule and how many more targets, and lists their alerts', () => {
    // Prepare
    const alerts = [alert('web-1', 'firing'), alert('web-2', 'firing'), alert('web-3', 'firing')];

    // Act
    const events = perAlertEvents(page(alerts, { part: [2, 4], order: T0 + 1 }), GROUP, new Set(['fp-web-1']), KEY);

    // Assess
    expect(events[1]?.event).toEqual({
      routing_key: KEY,
      event_action: 'trigger',
      dedup_key: `${GROUP}-more`,
      client: 'httpd-status-alerts',
      payload: {
        summary: '[FIRING warning] closing-pileup: 2 more targets (part 2 of 4): web-2, web-3',
        source: '2 targets',
        severity: 'warning',
        timestamp: '2026-11-22T12:00:00.000Z',
        component: '2 targets',
        class: 'closing-pileup',
        custom_details: {
          group: { id: GROUP.slice(6), key: '{"rule":"closing-pileup"}', labels: {} },
          counts: { firing: 3, resolved: 0 },
          part: { index: 2, count: 4 },
          overflow: { alerts: 2, targets: 2 },
          alerts: [alerts[1], alerts[2]],
        },
      },
    });
  });

  it('lists the overflow alerts with their report text as the text page shows it, and resolves it alike', () => {
    // Prepare: target-down alerts whose failure quotes a hostile certificate name.
    const detail = "TLS with web-2:443 failed: ... cert's CN: @here <!channel> [x](https://evil.example) \u202Eevil";
    const down = { reason: 'tls', detail, consecutiveFailures: 3 };
    const shown = {
      reason: 'tls',
      detail:
        "TLS with web-2:443 failed: ... cert's CN: %40here %3C%21channel%3E %5Bx%5D%28hxxps://evil[.]example%29 evil",
      consecutiveFailures: 3,
    };
    const alerts = ['web-1', 'web-2', 'web-3'].map((t) => ({ ...alert(t, 'firing'), down }));

    // Act
    const trigger = perAlertEvents(page(alerts), GROUP, new Set(['fp-web-1']), KEY);
    const resolve = perAlertEvents(
      page(alerts.map((a) => ({ ...a, status: 'resolved' as const }))),
      GROUP,
      new Set(),
      KEY,
    );

    // Assess
    expect(trigger.map((e) => e.event.payload.custom_details)).toEqual([
      { ...alerts[0], down: shown },
      {
        group: { id: GROUP.slice(6), key: '{"rule":"closing-pileup"}', labels: {} },
        counts: { firing: 3, resolved: 0 },
        part: { index: 1, count: 1 },
        overflow: { alerts: 2, targets: 2 },
        alerts: [alerts[1], alerts[2]].map((a) => ({ ...a, down: shown })),
      },
    ]);
    expect(resolve.map((e) => e.event.payload.custom_details)).toEqual([
      ...alerts.map((a) => ({ ...a, status: 'resolved', down: shown })),
      {
        group: { id: GROUP.slice(6), key: '{"rule":"closing-pileup"}', labels: {} },
        counts: { firing: 0, resolved: 3 },
        part: { index: 1, count: 1 },
      },
    ]);
  });

  it('keys the overflow within the Events API 255 characters', () => {
    // Act
    const key = overflowKeyOf(`group-${'x'.repeat(249)}`);

    // Assess
    expect([key.length, key.endsWith('-more')]).toEqual([255, true]);
  });
});
