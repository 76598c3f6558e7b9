import { describe, expect, it } from 'vitest';
import type { TargetState } from '../../../src/core/alerts/types.ts';
import type { ListingFailure } from '../../../src/core/discovery/listing.ts';
import {
  DISCOVERY_ALERT_RULE,
  evaluateDiscoveryAlert,
  evaluateRemovedDiscoveryAlert,
} from '../../../src/core/notify/discoveryAlert.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const minute = (m: number) => new Date(T0 + m * 60_000);
const PARAMETER = '/p/discovery/web';
const ID = `${DISCOVERY_ALERT_RULE}#${PARAMETER}`;

type Step = [number, { why: ListingFailure; detail: string; since: number } | null];

/** Steps (minute, failing or null), carrying the state; the subjects sent at each step. */
function steps(input: Step[], previous: TargetState | null = null): string[][] {
  let state = previous;
  return input.map(([m, failing]) => {
    const result = evaluateDiscoveryAlert({
      previous: state,
      parameter: PARAMETER,
      source: 'ec2',
      failing: failing && { ...failing, since: T0 + failing.since * 60_000 },
      targetsInForce: 4,
      now: minute(m),
    });
    state = result.state;
    return result.notifications.map((n) => n.subject);
  });
}

const throttled = (since: number) => ({ why: 'throttled' as const, detail: 'Rate exceeded', since });
const FIRING = `[FIRING warning] ${PARAMETER}: discovery failing (ec2, throttled)`;
const RESOLVED = `[RESOLVED warning] ${PARAMETER}: discovery lists again`;

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
      now: minute(0),
    });
    expect(notifications[0]?.message.split('\n')[1]).toBe(`Why: other: ${'x'.repeat(297)}...`);
  });
});

describe('evaluateRemovedDiscoveryAlert', () => {
  const firing = (): TargetState => {
    const { state } = evaluateDiscoveryAlert({
      previous: null,
      parameter: PARAMETER,
      source: 'ec2',
      failing: { since: T0, why: 'throttled', detail: 'Rate exceeded' },
      targetsInForce: 1,
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
