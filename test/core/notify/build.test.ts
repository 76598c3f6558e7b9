import { describe, expect, it } from 'vitest';
import { stepAlert } from '../../../src/core/alerts/step.ts';
import type { AlertRecord, Observation } from '../../../src/core/alerts/types.ts';
import { buildNotification } from '../../../src/core/notify/build.ts';
import { formatValue } from '../../../src/core/notify/format.ts';
import { parseRulesDocuments } from '../../../src/core/rules/document.ts';
import type { Rule } from '../../../src/core/rules/types.ts';
import { loadReport } from '../support/reports.ts';

const NOW = new Date('2026-11-22T12:02:00Z');
const REPORT = loadReport('prefork-busy/report.html');

const rule = (extra: object): Rule =>
  parseRulesDocuments([
    { source: 't', text: JSON.stringify({ rules: [{ name: 'r', op: '>=', threshold: 20, ...extra }] }) },
  ])[0] as Rule;

function firing(r: Rule, value: number): AlertRecord {
  return stepAlert(null, r, 'web-1', { kind: 'value', value, holds: true }, NOW);
}

function build(
  r: Rule,
  alert: AlertRecord,
  observation: Observation = { kind: 'report', report: REPORT },
  target = 'web-1',
) {
  const reason = alert.state === 'firing' ? 'first' : 'resolved';
  return buildNotification({
    rule: r,
    alert,
    reason,
    target,
    labels: { env: 'prod' },
    observation,
    consecutiveFailures: 0,
    now: NOW,
  });
}

describe('Function: buildNotification', () => {
  it('writes the page for a slot rule: what, where, value, since when, runbook, offenders, scoreboard', () => {
    // Prepare
    const r = rule({
      name: 'idle-slots-low',
      metric: 'slots_idle',
      op: '<',
      threshold: 6,
      severity: 'critical',
      summary: 'only {{value}} idle workers on {{target}}',
      runbook: 'https://wiki.example/apache-idle',
    });

    // Act
    const n = build(r, firing(r, 5));

    // Assess
    expect(n.subject).toBe('[FIRING critical] web-1: idle-slots-low (5 < 6)');
    expect(n.message).toBe(
      [
        'FIRING critical: idle-slots-low on web-1',
        'only 5 idle workers on web-1',
        'Condition: slots_idle < 6 (value 5), held for 0s or more',
        'Active since 2026-11-22T12:02:00.000Z, firing since 2026-11-22T12:02:00.000Z',
        'Runbook: https://wiki.example/apache-idle',
        'Labels: env=prod',
        'Top clients among the 5 counted slots (_):',
        '     5  127.0.0.1',
        'Top vhosts among the 5 counted slots (_):',
        '     3  www.example.test:18120',
        '     2  static.example.test:18120',
        'Top requests among the 5 counted slots (_):',
        '     3  GET /page20k.html HTTP/1.1',
        '     2  GET /img/logo.png HTTP/1.1',
        'Oldest counted requests (seconds since they started):',
        '     0s  GET /img/logo.png HTTP/1.1  from 127.0.0.1 on static.example.test:18120',
        '     0s  GET /page20k.html HTTP/1.1  from 127.0.0.1 on www.example.test:18120',
        '     0s  GET /page20k.html HTTP/1.1  from 127.0.0.1 on www.example.test:18120',
        'Scoreboard (256 positions, 64 per line; _ idle, . open, W sending, K keepalive, C closing, G graceful):',
        '  WKW_W_CKCKKWWRKKWKWRWCK_WWKRK__KK',
        '  (+223 open positions)',
      ].join('\n'),
    );
    expect(n.labels).toEqual({ env: 'prod' });
    expect(n.payload).toMatchObject({
      version: 1,
      status: 'firing',
      reason: 'first',
      target: 'web-1',
      rule: 'idle-slots-low',
      severity: 'critical',
      metric: 'slots_idle',
      op: '<',
      threshold: 6,
      value: 5,
      summary: 'only 5 idle workers on web-1',
      runbook: 'https://wiki.example/apache-idle',
      scoreboard: ['WKW_W_CKCKKWWRKKWKWRWCK_WWKRK__KK', '(+223 open positions)'],
      down: null,
    });
  });

  it('writes a short resolution', () => {
    const r = rule({ name: 'closing-pileup', metric: 'slots_closing' });
    const fired = firing(r, 23);
    const resolved = stepAlert(
      fired,
      r,
      'web-1',
      { kind: 'value', value: 3, holds: false },
      new Date('2026-11-22T12:09:00Z'),
    );
    const n = build(r, resolved);
    expect(n.subject).toBe('[RESOLVED warning] web-1: closing-pileup (now 3)');
    expect(n.message).toBe(
      [
        'RESOLVED warning: closing-pileup on web-1',
        'Condition no longer holds: slots_closing >= 20 (value now 3)',
        'Fired at 2026-11-22T12:02:00.000Z, resolved at 2026-11-22T12:09:00.000Z',
        'Labels: env=prod',
      ].join('\n'),
    );
  });

  it('keeps untrusted report text from forging lines or markup', () => {
    const hostile = {
      ...REPORT,
      slots: (REPORT.slots ?? []).map((s) =>
        s.mode === 'C' ? { ...s, client: '<b>x</b>', request: 'GET /\n[FIRING critical] web-9: fake HTTP/1.1' } : s,
      ),
    };
    const r = rule({ name: 'closing-pileup', metric: 'slots_closing', threshold: 3 });
    const n = build(r, firing(r, 3), { kind: 'report', report: hostile });
    expect(n.message).toContain('     3  %3Cb%3Ex%3C/b%3E');
    expect(n.message).toContain('     3  GET /%5BFIRING critical%5D web-9: fake HTTP/1.1');
    expect(n.message.split('\n').filter((l) => l.startsWith('[FIRING'))).toEqual([]);
  });

  it.each([
    ['a long target is shortened', 'w'.repeat(150), 99],
    ['a non-ASCII target is made ASCII', 'w\u00e9b-1', 49],
  ])('subject: %s', (_, target, length) => {
    const r = rule({ name: 'closing-pileup', metric: 'slots_closing' });
    const n = build(r, firing(r, 23), { kind: 'report', report: REPORT }, target);
    expect(n.subject).toHaveLength(length);
    expect(n.subject).toMatch(/^\[FIRING warning\] [\x20-\x7e]+: closing-pileup \(23 >= 20\)$/);
  });
});

describe('Function: formatValue', () => {
  it.each([
    [null, 'n/a'],
    [5, '5'],
    [0.890625, '0.891'],
    [0.5, '0.5'],
    [16746.2, '16746.2'],
    [1 / 3, '0.333'],
  ])('%j -> %s', (value, expected) => {
    expect(formatValue(value)).toBe(expected);
  });
});
