import { describe, expect, it } from 'vitest';
import type { TargetState } from '../../../src/core/alerts/types.ts';
import type { NameCollision } from '../../../src/core/discovery/join.ts';
import type { ListingFailure } from '../../../src/core/discovery/listing.ts';
import {
  DISCOVERY_ALERT_RULE,
  DISCOVERY_NAMES_RULE,
  evaluateDiscoveryAlert,
  evaluateRemovedDiscoveryAlert,
} from '../../../src/core/notify/discoveryAlert.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const minute = (m: number) => new Date(T0 + m * 60_000);
const PARAMETER = '/p/discovery/web';
const ID = `${DISCOVERY_ALERT_RULE}#${PARAMETER}`;

type Step = [number, { why: ListingFailure; detail: string; since: number } | null, NameCollision[]?];

/** Steps (minute, failing or null, names taken), carrying the state; the subjects sent at each step. */
function steps(input: Step[], previous: TargetState | null = null): string[][] {
  let state = previous;
  return input.map(([m, failing, collisions = []]) => {
    const result = evaluateDiscoveryAlert({
      previous: state,
      parameter: PARAMETER,
      source: 'ec2',
      failing: failing && { ...failing, since: T0 + failing.since * 60_000 },
      targetsInForce: 4,
      collisions,
      now: minute(m),
    });
    state = result.state;
    return result.notifications.map((n) => n.subject);
  });
}

const throttled = (since: number) => ({ why: 'throttled' as const, detail: 'Rate exceeded', since });
const FIRING = `[FIRING warning] ${PARAMETER}: discovery failing (ec2, throttled)`;
const RESOLVED = `[RESOLVED warning] ${PARAMETER}: discovery lists again`;
const taken = (name: string, instance = name): NameCollision => ({
  parameter: PARAMETER,
  instance,
  name,
  holder: `the configured target ${name}`,
});
const NAMES = (n: number) => `[FIRING warning] ${PARAMETER}: discovery names taken (${n} left out)`;
const UNIQUE = `[RESOLVED warning] ${PARAMETER}: discovery names unique again`;

describe('evaluateDiscoveryAlert', () => {
  it.each([
    [
      'listing all along: nothing',
      [
        [0, null],
        [1, null],
      ],
      [[], []],
    ],
    [
      'failing for minutes: one page, one resolve when it lists again',
      [
        [0, throttled(0)],
        [1, throttled(0)],
        [2, throttled(0)],
        [3, null],
        [4, null],
      ],
      [[FIRING], [], [], [RESOLVED], []],
    ],
    [
      'failing for another reason meanwhile: no new page',
      [
        [0, throttled(0)],
        [1, { why: 'other', detail: 'InternalFailure: An internal error has occurred', since: 0 }],
        [2, null],
      ],
      [[FIRING], [], [RESOLVED]],
    ],
    [
      'failing again after it listed: a new page',
      [
        [0, throttled(0)],
        [1, null],
        [2, throttled(2)],
      ],
      [[FIRING], [RESOLVED], [FIRING]],
    ],
    [
      'a name taken for minutes: one page, one resolve when none is',
      [
        [0, null, [taken('i-1')]],
        [1, null, [taken('i-1')]],
        [2, null, []],
        [3, null, []],
      ],
      [[NAMES(1)], [], [UNIQUE], []],
    ],
    [
      'other names taken while it fires: no new page',
      [
        [0, null, [taken('i-1')]],
        [1, null, [taken('i-1'), taken('i-2')]],
        [2, null, [taken('i-2')]],
        [3, null, []],
      ],
      [[NAMES(1)], [], [], [UNIQUE]],
    ],
    [
      'a name taken and the listing failing: two alerts, each paged and resolved once',
      [
        [0, null, [taken('i-1')]],
        [1, throttled(1), [taken('i-1')]],
        [2, throttled(1), []],
        [3, null, []],
      ],
      [[NAMES(1)], [FIRING], [UNIQUE], [RESOLVED]],
    ],
    [
      'both at once: both pages in one step',
      [
        [0, throttled(0), [taken('i-1'), taken('i-2')]],
        [1, null, []],
      ],
      [
        [FIRING, NAMES(2)],
        [RESOLVED, UNIQUE],
      ],
    ],
  ] as Array<[string, Step[], string[][]]>)('%s', (_, input, expected) => {
    expect(steps(input)).toEqual(expected);
  });

  it('fires with the source, why, since when and the targets still checked; the record dated from since', () => {
    const { state, notifications } = evaluateDiscoveryAlert({
      previous: null,
      parameter: PARAMETER,
      source: 'autoscaling',
      failing: { since: T0, why: 'access-denied', detail: 'AccessDenied:\u0007 not authorized' },
      targetsInForce: 4,
      collisions: [],
      now: minute(2),
    });
    expect(notifications).toEqual([
      {
        fingerprint: ID,
        target: PARAMETER,
        rule: DISCOVERY_ALERT_RULE,
        severity: 'warning',
        status: 'firing',
        reason: 'first',
        value: 1,
        threshold: 0,
        subject: `[FIRING warning] ${PARAMETER}: discovery failing (autoscaling, access-denied)`,
        message: [
          `The discovery parameter ${PARAMETER} cannot list its instances through the autoscaling source since 2026-11-22T12:00:00.000Z.`,
          'Why: access-denied: AccessDenied:  not authorized',
          'The last good list stays in force (4 target(s) still checked); nothing is removed until it lists again.',
          '',
          'Evaluated at 2026-11-22T12:02:00.000Z.',
        ].join('\n'),
        payload: {
          version: 1,
          fingerprint: ID,
          target: PARAMETER,
          rule: DISCOVERY_ALERT_RULE,
          severity: 'warning',
          status: 'firing',
          problemCount: 1,
          problems: ['autoscaling access-denied: AccessDenied:  not authorized'],
          targetsInForce: 4,
          evaluatedAt: '2026-11-22T12:02:00.000Z',
        },
        labels: { discovery: PARAMETER },
      },
    ]);
    expect(state.alerts[ID]).toMatchObject({
      state: 'firing',
      activeAt: '2026-11-22T12:00:00.000Z',
      firedAt: '2026-11-22T12:02:00.000Z',
      lastSentStatus: 'firing',
    });
  });

  it('cuts a long detail to 300 characters in the page', () => {
    const { notifications } = evaluateDiscoveryAlert({
      previous: null,
      parameter: PARAMETER,
      source: 'ec2',
      failing: { since: T0, why: 'other', detail: 'x'.repeat(1000) },
      targetsInForce: 0,
      collisions: [],
      now: minute(0),
    });
    expect(notifications[0]?.message.split('\n')[1]).toBe(`Why: other: ${'x'.repeat(297)}...`);
  });
});

describe('evaluateDiscoveryAlert: names taken', () => {
  const ADVICE =
    'Each name keeps its first holder, still checked (a configured target first, then discovery parameters by name). Names must be unique across the whole configuration: change the name template, or the target that holds the name.';
  const NAMES_ID = `${DISCOVERY_NAMES_RULE}#${PARAMETER}`;

  it('fires naming each name left out and what holds it; the record dated from the run that saw it', () => {
    const other: NameCollision = {
      parameter: PARAMETER,
      instance: 'i-3',
      name: 'web',
      holder: 'instance i-2 of /p/discovery/api',
    };
    const { state, notifications } = evaluateDiscoveryAlert({
      previous: null,
      parameter: PARAMETER,
      source: 'ec2',
      failing: null,
      targetsInForce: 3,
      collisions: [taken('i-1'), other],
      now: minute(2),
    });
    expect(notifications).toEqual([
      {
        fingerprint: NAMES_ID,
        target: PARAMETER,
        rule: DISCOVERY_NAMES_RULE,
        severity: 'warning',
        status: 'firing',
        reason: 'first',
        value: 1,
        threshold: 0,
        subject: `[FIRING warning] ${PARAMETER}: discovery names taken (2 left out)`,
        message: [
          `The discovery parameter ${PARAMETER} lists 2 instance(s) whose target name is already taken: they are left out, not checked.`,
          '- "i-1" for instance i-1: held by the configured target i-1',
          '- "web" for instance i-3: held by instance i-2 of /p/discovery/api',
          ADVICE,
          '',
          'Evaluated at 2026-11-22T12:02:00.000Z.',
        ].join('\n'),
        payload: {
          version: 1,
          fingerprint: NAMES_ID,
          target: PARAMETER,
          rule: DISCOVERY_NAMES_RULE,
          severity: 'warning',
          status: 'firing',
          problemCount: 2,
          problems: [
            '"i-1" for instance i-1: held by the configured target i-1',
            '"web" for instance i-3: held by instance i-2 of /p/discovery/api',
          ],
          targetsInForce: 3,
          evaluatedAt: '2026-11-22T12:02:00.000Z',
        },
        labels: { discovery: PARAMETER },
      },
    ]);
    expect(Object.keys(state.alerts)).toEqual([NAMES_ID]);
    expect(state.alerts[NAMES_ID]).toMatchObject({ activeAt: '2026-11-22T12:02:00.000Z', lastSentStatus: 'firing' });
  });

  it('names 20 collisions at most, and says how many more', () => {
    const many = Array.from({ length: 23 }, (_, i) => taken(`i-${String(i).padStart(2, '0')}`));
    const { notifications } = evaluateDiscoveryAlert({
      previous: null,
      parameter: PARAMETER,
      source: 'ec2',
      failing: null,
      targetsInForce: 0,
      collisions: many,
      now: minute(0),
    });
    const lines = notifications[0]?.message.split('\n') ?? [];
    expect(notifications[0]?.subject).toBe(NAMES(23));
    expect(lines.slice(20, 23)).toEqual([
      '- "i-19" for instance i-19: held by the configured target i-19',
      '... and 3 more',
      ADVICE,
    ]);
    const payload = notifications[0]?.payload as { problemCount: number; problems: string[] } | undefined;
    expect([payload?.problemCount, payload?.problems.length]).toEqual([23, 20]);
  });
});

describe('evaluateRemovedDiscoveryAlert', () => {
  const firing = (collisions: NameCollision[] = [], failing = true): TargetState => {
    const { state } = evaluateDiscoveryAlert({
      previous: null,
      parameter: PARAMETER,
      source: 'ec2',
      failing: failing ? { since: T0, why: 'throttled', detail: 'Rate exceeded' } : null,
      targetsInForce: 1,
      collisions,
      now: minute(0),
    });
    return state;
  };

  it.each([
    [
      'a firing alert: one resolve saying the document was removed',
      firing,
      [`[RESOLVED warning] ${PARAMETER}: discovery document removed`],
    ],
    [
      'both alerts firing: one resolve each',
      () => firing([taken('i-1')]),
      [
        `[RESOLVED warning] ${PARAMETER}: discovery document removed`,
        `[RESOLVED warning] ${PARAMETER}: discovery names taken: document removed`,
      ],
    ],
    [
      'only the names alert firing: its resolve',
      () => firing([taken('i-1')], false),
      [`[RESOLVED warning] ${PARAMETER}: discovery names taken: document removed`],
    ],
    ['no item: nothing', () => null, []],
    ['an item whose alert is not firing: nothing', () => ({ ...firing(), alerts: {} }), []],
  ] as Array<[string, () => TargetState | null, string[]]>)('%s', (_, previous, expected) => {
    const { notifications } = evaluateRemovedDiscoveryAlert({
      previous: previous(),
      parameter: PARAMETER,
      now: minute(5),
    });
    expect(notifications.map((n) => n.subject)).toEqual(expected);
  });

  it('resolves with the words and payload of a resolve', () => {
    const [resolved] = evaluateRemovedDiscoveryAlert({
      previous: firing(),
      parameter: PARAMETER,
      now: minute(5),
    }).notifications;
    expect(resolved).toMatchObject({
      fingerprint: ID,
      status: 'resolved',
      reason: 'resolved',
      message: `The discovery parameter ${PARAMETER} was deleted: its listing is no longer tried, and the targets it listed leave the configuration as removed (checked at 2026-11-22T12:05:00.000Z).`,
      payload: { version: 1, fingerprint: ID, status: 'resolved', evaluatedAt: '2026-11-22T12:05:00.000Z' },
      labels: { discovery: PARAMETER },
    });
  });
});
