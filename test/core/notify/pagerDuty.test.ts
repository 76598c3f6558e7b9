import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/core/alerts/fingerprint.ts';
import { stepAlert } from '../../../src/core/alerts/step.ts';
import type { Notification } from '../../../src/core/alerts/types.ts';
import { buildNotification } from '../../../src/core/notify/build.ts';
import { MAX_SUMMARY_CHARS, PagerDutyMessageError, pagerDutyEvents } from '../../../src/core/notify/pagerDuty.ts';
import { parseRulesDocuments } from '../../../src/core/rules/document.ts';
import type { Observation, Rule } from '../../../src/core/rules/types.ts';
import { loadReport } from '../support/reports.ts';

const KEY = 'R0UT1NGKEY0000000000000000000000';
const T0 = new Date('2026-11-22T12:00:00Z');
const T1 = new Date('2026-11-22T12:05:00Z');
const REPORT: Observation = { kind: 'report', report: loadReport('prefork-busy/report.html') };
const DOWN: Observation = { kind: 'down', reason: 'timeout', detail: 'no answer in 10 s' };

const rule = (fields: object): Rule =>
  parseRulesDocuments([{ source: 't', text: JSON.stringify({ rules: [fields] }) }])[0] as Rule;

const IDLE = rule({
  name: 'idle-slots-low',
  metric: 'slots_free_ratio',
  op: '<',
  threshold: 0.05,
  severity: 'critical',
  summary: 'only {{value}} of the slots are free on {{target}}',
  runbook: 'https://wiki.example/apache-idle',
});
const CLOSING = rule({ name: 'closing-pileup', metric: 'slots_closing', op: '>=', threshold: 20, severity: 'warning' });
const SSL = rule({
  name: 'ssl-cache-misses',
  metric: 'ssl_cache_miss_ratio',
  op: '>',
  threshold: 0.5,
  severity: 'info',
});
const DOWN_RULE = rule({ name: 'target-down', metric: 'target_up', op: '==', threshold: 0, severity: 'critical' });

/** The notification the monitor publishes when `r` fires at T0 with `value`, and when it resolves at T1. */
function notifications(r: Rule, value: number, observation = REPORT, target = 'web-1') {
  const fired = stepAlert(null, r, target, { kind: 'value', value, holds: true }, T0);
  const resolved = stepAlert(fired, r, target, { kind: 'value', value: 0, holds: false }, T1);
  const input = { rule: r, target, labels: { env: 'prod' }, consecutiveFailures: 2 };
  return {
    firing: buildNotification({ ...input, alert: fired, reason: 'first', observation, now: T0 }),
    resolved: buildNotification({ ...input, alert: resolved, reason: 'resolved', observation: REPORT, now: T1 }),
  };
}

/** What SNS hands a Lambda or SQS subscriber: the JSON variant, the payload as published. */
const jsonVariant = (n: Notification) => JSON.stringify(n.payload);

describe('Function: pagerDutyEvents', () => {
  it.each([
    {
      case: 'a critical slot rule fires',
      n: notifications(IDLE, 0.031).firing,
      action: 'trigger',
      severity: 'critical',
      summary: '[FIRING critical] web-1: idle-slots-low (0.031 < 0.05): only 0.031 of the slots are free on web-1',
      timestamp: '2026-11-22T12:00:00.000Z',
      links: [{ href: 'https://wiki.example/apache-idle', text: 'Runbook' }],
    },
    {
      case: 'it resolves',
      n: notifications(IDLE, 0.031).resolved,
      action: 'resolve',
      severity: 'critical',
      summary: '[RESOLVED critical] web-1: idle-slots-low (now 0): only 0 of the slots are free on web-1',
      timestamp: '2026-11-22T12:05:00.000Z',
      links: [{ href: 'https://wiki.example/apache-idle', text: 'Runbook' }],
    },
    {
      case: 'a warning fires',
      n: notifications(CLOSING, 23).firing,
      action: 'trigger',
      severity: 'warning',
      summary: '[FIRING warning] web-1: closing-pileup (23 >= 20)',
      timestamp: '2026-11-22T12:00:00.000Z',
      links: undefined,
    },
    {
      case: 'an info rule fires',
      n: notifications(SSL, 0.72).firing,
      action: 'trigger',
      severity: 'info',
      summary: '[FIRING info] web-1: ssl-cache-misses (0.72 > 0.5)',
      timestamp: '2026-11-22T12:00:00.000Z',
      links: undefined,
    },
    {
      case: 'a target is down',
      n: notifications(DOWN_RULE, 0, DOWN).firing,
      action: 'trigger',
      severity: 'critical',
      summary: '[FIRING critical] web-1: target-down (timeout)',
      timestamp: '2026-11-22T12:00:00.000Z',
      links: undefined,
    },
  ])('maps the message when $case', ({ n, action, severity, summary, timestamp, links }) => {
    // Act
    const events = pagerDutyEvents(jsonVariant(n), KEY);

    // Assess
    expect(events).toEqual([
      {
        routing_key: KEY,
        event_action: action,
        dedup_key: fingerprint('web-1', n.rule),
        client: 'httpd-status-alerts',
        payload: {
          summary,
          source: 'web-1',
          severity,
          timestamp,
          component: 'web-1',
          class: n.rule,
          custom_details: n.payload,
        },
        ...(links === undefined ? {} : { links }),
      },
    ]);
  });

  it('gives the trigger and the resolve of one alert the same dedup_key, and other alerts other keys', () => {
    // Prepare
    const idle = notifications(IDLE, 0.031);
    const closing = notifications(CLOSING, 23, REPORT, 'web-2');

    // Act
    const keys = [idle.firing, idle.resolved, closing.firing, closing.resolved].map(
      (n) => pagerDutyEvents(jsonVariant(n), KEY)[0]?.dedup_key,
    );

    // Assess
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).toBe(keys[3]);
    expect(keys[0]).not.toBe(keys[2]);
  });

  it('maps a grouped message alert by alert, each with its own fingerprint and action', () => {
    // Prepare: a group of two alerts, one still firing, one resolved.
    const message = JSON.stringify({
      version: 1,
      group: 'idle-slots-low',
      alerts: [
        notifications(IDLE, 0.02, REPORT, 'web-1').firing.payload,
        notifications(IDLE, 0.04, REPORT, 'web-2').resolved.payload,
      ],
    });

    // Act
    const events = pagerDutyEvents(message, KEY);

    // Assess
    expect(events.map((e) => [e.event_action, e.dedup_key, e.payload.source, e.payload.summary])).toEqual([
      [
        'trigger',
        fingerprint('web-1', 'idle-slots-low'),
        'web-1',
        '[FIRING critical] web-1: idle-slots-low (0.02 < 0.05): only 0.02 of the slots are free on web-1',
      ],
      [
        'resolve',
        fingerprint('web-2', 'idle-slots-low'),
        'web-2',
        '[RESOLVED critical] web-2: idle-slots-low (now 0): only 0 of the slots are free on web-2',
      ],
    ]);
  });

  it('keeps the summary within 1,024 characters, never cutting a surrogate pair in half', () => {
    // Prepare: a summary of 1,984 characters (rules cap theirs at 500; values filled in may add), an
    // emoji straddling the cut.
    const payload = {
      ...notifications(CLOSING, 23).firing.payload,
      summary: `${'x'.repeat(969)}\u{1F525}${'y'.repeat(1000)}`,
    };

    // Act
    const summary = pagerDutyEvents(JSON.stringify(payload), KEY)[0]?.payload.summary ?? '';

    // Assess
    expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
    expect(summary).toBe(`[FIRING warning] web-1: closing-pileup (23 >= 20): ${'x'.repeat(969)}...`);
  });

  it.each([
    {
      message: 'FIRING critical: idle-slots-low on web-1',
      error:
        'expected the JSON variant of an httpd-status-alerts message, found "FIRING critical: idle-slots-low on web-1" (40 characters)',
    },
    {
      message: '[1,2]',
      error: 'expected the JSON variant of an httpd-status-alerts message, found "[1,2]" (5 characters)',
    },
    {
      message: '{"status":"firing","target":"web-1","rule":"r","severity":"critical"}',
      error:
        'expected the JSON variant of an httpd-status-alerts message, message.fingerprint: expected a non-empty string, found undefined',
    },
    {
      message: '{"fingerprint":"f","status":"pending","target":"web-1","rule":"r","severity":"critical"}',
      error:
        'expected the JSON variant of an httpd-status-alerts message, message.status: expected firing or resolved, found "pending"',
    },
    {
      message: '{"fingerprint":"f","status":"firing","target":"web-1","rule":"r","severity":"error"}',
      error:
        'expected the JSON variant of an httpd-status-alerts message, message.severity: expected one of critical, warning, info, found "error"',
    },
    {
      message: `{"fingerprint":"${'f'.repeat(256)}","status":"firing","target":"web-1","rule":"r","severity":"info"}`,
      error:
        'expected the JSON variant of an httpd-status-alerts message, message.fingerprint: expected at most 255 characters, found 256',
    },
    {
      message: '{"alerts":[{"fingerprint":"f","status":"firing","target":"","rule":"r","severity":"info"}]}',
      error:
        'expected the JSON variant of an httpd-status-alerts message, message.alerts[0].target: expected a non-empty string, found ""',
    },
    {
      message: '{"alerts":{"fingerprint":"f"}}',
      error:
        'expected the JSON variant of an httpd-status-alerts message, message.alerts: expected an array, found {"fingerprint":"f"}',
    },
  ])('rejects $message saying what it expected', ({ message, error }) => {
    // Act / Assess
    expect(() => pagerDutyEvents(message, KEY)).toThrow(
      new PagerDutyMessageError(error.replace(/^expected the JSON variant of an httpd-status-alerts message, /, '')),
    );
    expect(() => pagerDutyEvents(message, KEY)).toThrow(error);
  });
});
