import { describe, expect, it } from 'vitest';
import type { TargetState } from '../../../src/core/alerts/types.ts';
import { evaluateConfigAlert, MAX_PROBLEM_LINES } from '../../../src/core/notify/configAlert.ts';
import { EVENTS_PER, pagerDutyEvents } from '../../../src/core/pagerduty/events.ts';
import { messageFields } from '../../support/messages.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const minute = (m: number) => new Date(T0 + m * 60_000);

/** Steps (minute, problems or null for valid), carrying the state; the subjects sent at each step. */
function steps(input: Array<[number, string[] | null]>): string[][] {
  let previous: TargetState | null = null;
  return input.map(([m, problems]) => {
    const result = evaluateConfigAlert({ previous, problems, targetsInForce: 3, now: minute(m) });
    previous = result.state;
    return result.notifications.map((n) => n.subject);
  });
}

const FIRING = '[FIRING warning] httpd-status-alerts: invalid configuration';
const RESOLVED = '[RESOLVED warning] httpd-status-alerts: configuration valid again';

describe('evaluateConfigAlert', () => {
  it.each([
    [
      'valid all along: nothing',
      [
        [0, null],
        [1, null],
      ],
      [[], []],
    ],
    [
      'one problem set: one page, then its resolve',
      [
        [0, ['a']],
        [1, ['a']],
        [2, null],
        [3, null],
      ],
      [[FIRING], [], [RESOLVED], []],
    ],
    [
      'a new problem set pages again, as an update; one resolve at the end',
      [
        [0, ['a']],
        [1, ['b']],
        [2, ['b']],
        [3, null],
      ],
      [[FIRING], [`${FIRING} (problems changed)`], [], [RESOLVED]],
    ],
  ] as Array<[string, Array<[number, string[] | null]>, string[][]]>)('%s', (_, input, expected) => {
    expect(steps(input)).toEqual(expected);
  });

  /** Steps from `previous`, each step's pages as `STATUS dedup_key` (the alert's fingerprint is the page's dedup_key). */
  function pages(input: Array<[number, string[] | null]>, previous: TargetState | null = null): string[][] {
    let state = previous;
    return input.map(([m, problems]) => {
      const result = evaluateConfigAlert({ previous: state, problems, targetsInForce: 3, now: minute(m) });
      state = result.state;
      return result.notifications.map((n) => `${n.status} ${n.fingerprint}`);
    });
  }

  /** A record an earlier version wrote: one alert per problem set, `configuration#<hash>`, its page sent. */
  const legacy = (hash: string, sent: 'firing' | 'resolved' | null): TargetState['alerts'][string] => ({
    fingerprint: `configuration#${hash}`,
    target: 'httpd-status-alerts',
    rule: 'configuration',
    severity: 'warning',
    state: 'firing',
    activeAt: minute(-10).toISOString(),
    firedAt: minute(-10).toISOString(),
    resolvedAt: null,
    lastSentAt: sent === null ? null : minute(-10).toISOString(),
    lastSentStatus: sent,
    value: 1,
    threshold: 0,
  });
  const legacyState = (alerts: TargetState['alerts'][string][]): TargetState => ({
    target: 'httpd-status-alerts',
    evaluatedAt: minute(-1).toISOString(),
    consecutiveFailures: 0,
    counters: null,
    alerts: Object.fromEntries(alerts.map((a) => [a.fingerprint, a])),
  });

  it.each([
    [
      'a fix in two steps: one incident, updated, then resolved',
      [
        [0, ['a', 'b']],
        [1, ['b']],
        [2, null],
      ],
      null,
      [['firing configuration'], ['firing configuration'], ['resolved configuration']],
    ],
    [
      'a fix in three steps: one incident, updated twice, then resolved',
      [
        [0, ['a', 'b', 'c']],
        [1, ['b', 'c']],
        [2, ['c']],
        [3, null],
        [4, null],
      ],
      null,
      [['firing configuration'], ['firing configuration'], ['firing configuration'], ['resolved configuration'], []],
    ],
    [
      'the set changes, comes back, then valid: an update per change, one resolve',
      [
        [0, ['a']],
        [1, ['b']],
        [2, ['b']],
        [3, ['a']],
        [4, null],
      ],
      null,
      [['firing configuration'], ['firing configuration'], [], ['firing configuration'], ['resolved configuration']],
    ],
    [
      'earlier versions left two sets paged: valid resolves both',
      [
        [0, null],
        [1, null],
      ],
      legacyState([legacy('1111111111111111', 'firing'), legacy('2222222222222222', 'firing')]),
      [['resolved configuration#1111111111111111', 'resolved configuration#2222222222222222'], []],
    ],
    [
      'an upgrade mid-incident: the new alert fires, every owed earlier one resolves; one resolve at the end',
      [
        [0, ['a']],
        [1, ['a']],
        [2, null],
      ],
      legacyState([legacy('1111111111111111', 'firing'), legacy('2222222222222222', null)]),
      [['firing configuration', 'resolved configuration#1111111111111111'], [], ['resolved configuration']],
    ],
  ] as Array<[string, Array<[number, string[] | null]>, TargetState | null, string[][]]>)(
    '%s',
    (_, input, previous, expected) => {
      expect(pages(input, previous)).toEqual(expected);
    },
  );

  it('caps the problems listed in every variant, whatever their number and length', () => {
    const problems = Array.from(
      { length: 5444 },
      (_, i) => `/p/rules/empty (field #${i}.name): expected a string, found ${'x'.repeat(400)}`,
    );
    const [page] = evaluateConfigAlert({
      previous: null,
      problems,
      targetsInForce: null,
      now: minute(0),
    }).notifications;
    expect(page?.message.split('\n').filter((l) => l.startsWith('  - '))).toHaveLength(MAX_PROBLEM_LINES);
    expect(page?.message).toContain(`... and ${5444 - MAX_PROBLEM_LINES} more`);
    expect(page?.message).toContain('No valid configuration has been seen yet');
    expect((messageFields(page?.payload).problems as string[] | undefined)?.at(-1)).toBe('... and 5394 more');
    expect(messageFields(page?.payload).problemCount).toBe(5444);
    expect(JSON.stringify(page).length).toBeLessThan(32 * 1024);
  });

  it('redacts credentials in problem lines', () => {
    const [page] = evaluateConfigAlert({
      previous: null,
      problems: ['/p/targets/web-1 (field url): expected https, found "ftp://ops:s3cret@web-1/"'],
      targetsInForce: 1,
      now: minute(0),
    }).notifications;
    expect(page?.message).toContain('ftp://ops:***@web-1/');
    expect(JSON.stringify(page)).not.toContain('s3cret');
  });

  it('its JSON is an alert message the PagerDuty forwarder maps: a trigger, then the resolve of the same incident', () => {
    // Found by the model test: without the alert's fingerprint, target and severity in the JSON
    // the forwarder refused the configuration alert, and an invalid configuration never reached PagerDuty.
    const firing = evaluateConfigAlert({ previous: null, problems: ['a'], targetsInForce: 3, now: minute(0) });
    const resolved = evaluateConfigAlert({ previous: firing.state, problems: null, targetsInForce: 3, now: minute(1) });
    const events = [...firing.notifications, ...resolved.notifications].flatMap((n) =>
      pagerDutyEvents(JSON.stringify(n.payload), 'R0UT1NGKEY', EVENTS_PER.group).map((e) => [
        e.event_action,
        e.dedup_key === firing.notifications[0]?.fingerprint,
        e.payload.source,
        e.payload.severity,
      ]),
    );
    expect(events).toEqual([
      ['trigger', true, 'httpd-status-alerts', 'warning'],
      ['resolve', true, 'httpd-status-alerts', 'warning'],
    ]);
  });
});
