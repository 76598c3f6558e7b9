import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stepAlert } from '../../../src/core/alerts/step.ts';
import type { AlertRecord } from '../../../src/core/alerts/types.ts';
import { MAX_PAYLOAD_BYTES, MAX_TEXT_MESSAGE_BYTES } from '../../../src/core/constants.ts';
import { buildNotification, failureLabel, withOrder } from '../../../src/core/notify/build.ts';
import { formatValue } from '../../../src/core/notify/format.ts';
import { DEFAULT_RULES, parseRulesDocuments } from '../../../src/core/rules/document.ts';
import type { Observation, Rule } from '../../../src/core/rules/types.ts';
import { jsonStringBytes } from '../../../src/core/text/limits.ts';
import { messageFields } from '../../support/messages.ts';
import { loadReport } from '../support/reports.ts';

const NOW = new Date('2026-11-22T12:02:00Z');
const REPORT = loadReport('prefork-busy/report.html');

const rule = (extra: object): Rule =>
  parseRulesDocuments([
    { source: 't', text: JSON.stringify({ rules: [{ name: 'r', op: '>=', threshold: 20, ...extra }] }) },
  ])[0] as Rule;

const defaultRule = (name: string) => DEFAULT_RULES.find((r) => r.name === name) as Rule;

function firing(r: Rule, value: number): AlertRecord {
  return stepAlert(null, r, 'web-1', { kind: 'value', value, holds: true }, NOW);
}

function build(
  r: Rule,
  alert: AlertRecord,
  observation: Observation = { kind: 'report', report: REPORT },
  target = 'web-1',
  labels: Record<string, string> = { env: 'prod' },
) {
  const reason = alert.state === 'firing' ? 'first' : 'resolved';
  return buildNotification({
    rule: r,
    alert,
    reason,
    target,
    labels,
    observation,
    consecutiveFailures: 2,
    now: NOW,
  });
}

describe('buildNotification', () => {
  it('idle-slots-low: lists what holds the busy workers, not the free slots', () => {
    // Prepare: the default rule, with a runbook and a summary
    const r = {
      ...defaultRule('idle-slots-low'),
      forMs: 0,
      summary: 'only {{value}} of the slots free on {{target}}',
      runbook: 'https://wiki.example/apache-idle',
    };

    // Act
    const n = build(r, firing(r, 0.031));

    // Assess: the prefork-busy capture has 28 busy slots (WKW_W_CKCKKWWRKKWKWRWCK_WWKRK__KK less 5 idle)
    expect(n.subject).toBe('[FIRING critical] web-1: idle-slots-low (0.031 < 0.05)');
    expect(n.message).toBe(
      [
        'FIRING critical: idle-slots-low on web-1',
        'only 0.031 of the slots free on web-1',
        'Condition: slots_free_ratio < 0.05 (value 0.031), held for 0s or more',
        'Active since 2026-11-22T12:02:00.000Z, firing since 2026-11-22T12:02:00.000Z',
        'Runbook: https://wiki.example/apache-idle',
        'Labels: env=prod',
        'Top clients among the 28 busy slots (S R W K D C L I):',
        '    28  127.0.0.1',
        'Top vhosts among the 28 busy slots (S R W K D C L I):',
        '    10  www[.]example[.]test:18120',
        '     9  static[.]example[.]test:18120',
        '     6  api[.]example[.]test:18120',
        'Top requests among the 28 busy slots (S R W K D C L I):',
        '     6  GET /page20k[.]html HTTP/1.1',
        '     5  GET /cgi-bin/sleep[.]cgi?12 HTTP/1.1',
        '     2  GET /cgi-bin/drip[.]cgi?12 HTTP/1.1',
        'Oldest requests among them (seconds since they started):',
        '     4s  GET /cgi-bin/sleep[.]cgi?12 HTTP/1.1  from 127.0.0.1 on api[.]example[.]test:18120',
        '     4s  GET /css/site[.]css?keepalive=1 HTTP/1.1  from 127.0.0.1 on static[.]example[.]test:18120',
        '     4s  GET /cgi-bin/drip[.]cgi?12 HTTP/1.1  from 127.0.0.1 on static[.]example[.]test:18120',
        'Scoreboard (256 positions, 64 per line; _ idle, . open, W sending, K keepalive, C closing, G graceful):',
        '  WKW_W_CKCKKWWRKKWKWRWCK_WWKRK__KK',
        '  (+223 open positions)',
      ].join('\n'),
    );
    // Machines get the values as they are (sanitised, not defanged).
    expect(n.payload).toMatchObject({
      version: 1,
      status: 'firing',
      reason: 'first',
      target: 'web-1',
      rule: 'idle-slots-low',
      severity: 'critical',
      metric: 'slots_free_ratio',
      op: '<',
      threshold: 0.05,
      value: 0.031,
      keepFiringSince: null,
      resolvesAt: null,
      summary: 'only 0.031 of the slots free on web-1',
      runbook: 'https://wiki.example/apache-idle',
      scoreboard: ['WKW_W_CKCKKWWRKKWKWRWCK_WWKRK__KK', '(+223 open positions)'],
      down: null,
    });
    expect(messageFields(n.payload).offenders).toMatchObject({
      modes: 'SRWKDCLI',
      slots: 28,
      vhosts: [
        { name: 'www.example.test:18120', count: 10 },
        { name: 'static.example.test:18120', count: 9 },
        { name: 'api.example.test:18120', count: 6 },
      ],
    });
  });

  it('says where a rule with clearThreshold resolves', () => {
    // Prepare
    const r = rule({ name: 'closing-pileup', metric: 'slots_closing', threshold: 20, clearThreshold: 5 });

    // Act
    const n = build(r, firing(r, 23));

    // Assess
    expect(n.message.split('\n').slice(1, 4)).toEqual([
      'Condition: slots_closing >= 20 (value 23), held for 0s or more',
      'Resolves once slots_closing <= 5 (clearThreshold)',
      'Active since 2026-11-22T12:02:00.000Z, firing since 2026-11-22T12:02:00.000Z',
    ]);
    expect(messageFields(n.payload).clearThreshold).toBe(5);
  });

  it('closing-pileup: lists the slots in C', () => {
    const r = rule({ name: 'closing-pileup', metric: 'slots_closing', threshold: 3 });
    const n = build(r, firing(r, 3));
    expect(n.message.split('\n').filter((l) => l.startsWith('Top '))).toEqual([
      'Top clients among the 3 slots in C:',
      'Top vhosts among the 3 slots in C:',
      'Top requests among the 3 slots in C:',
    ]);
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

  it('kept firing (keepFiringFor): says the condition cleared at T and resolves at T + keepFiringFor', () => {
    // Prepare: fired at 12:02, cleared at 12:04 (0.891 is far from < 0.05), a reminder at 12:06
    const r = { ...defaultRule('idle-slots-low'), forMs: 0 };
    const fired = firing(r, 0.031);
    const cleared = stepAlert(
      fired,
      r,
      'web-1',
      { kind: 'value', value: 0.891, holds: false },
      new Date('2026-11-22T12:04:00Z'),
    );
    const still = stepAlert(
      cleared,
      r,
      'web-1',
      { kind: 'value', value: 0.891, holds: false },
      new Date('2026-11-22T12:06:00Z'),
    );

    // Act
    const n = buildNotification({
      rule: r,
      alert: still,
      reason: 'repeat',
      target: 'web-1',
      labels: {},
      observation: { kind: 'report', report: REPORT },
      consecutiveFailures: 0,
      now: new Date('2026-11-22T12:06:00Z'),
    });

    // Assess
    expect(still.state).toBe('firing');
    expect(n.subject).toBe('[FIRING critical] web-1: idle-slots-low (cleared, now 0.891)');
    expect(n.message.split('\n').slice(0, 5)).toEqual([
      'FIRING critical: idle-slots-low on web-1',
      'Condition cleared at 2026-11-22T12:04:00.000Z: slots_free_ratio < 0.05 no longer holds (value now 0.891)',
      'Still firing for keepFiringFor 5m: resolves at 2026-11-22T12:09:00.000Z unless the condition returns',
      'Active since 2026-11-22T12:02:00.000Z, firing since 2026-11-22T12:02:00.000Z',
      'Reminder: still firing at 2026-11-22T12:06:00.000Z',
    ]);
    expect(n.payload).toMatchObject({
      keepFiringSince: '2026-11-22T12:04:00.000Z',
      resolvesAt: '2026-11-22T12:09:00.000Z',
      value: 0.891,
    });
  });

  it.each([
    [
      'timeout',
      'timed out after 10000 ms waiting for a response from web-1:80 - the server may be saturated',
      'timeout',
    ],
    ['refused', 'connection refused by web-1:80 - Apache may be down or saturated', 'refused'],
    ['http-status', 'HTTP 404 Not Found from web-1:80 - no status page at this path', 'HTTP 404'],
    ['http-status', 'HTTP 401 Unauthorized from web-1:80 - check the credentials', 'HTTP 401'],
    ['http-status', 'something else', 'HTTP error'],
    ['not-a-report', 'expected a server-status report, found "<html>..."', 'not a report'],
    ['too-large', 'response from web-1:80 is larger than the 4194304-byte cap', 'too large'],
    ['tls', 'TLS with web-1:443 failed', 'TLS'],
    ['dns', 'cannot resolve the host of web-1:80 (ENOTFOUND)', 'DNS'],
    [
      'refused-address',
      'refused to connect to 169.254.169.254 (link-local: instance metadata) for web-1 - never fetched',
      'address refused',
    ],
    ['some-new-reason', 'x', 'some-new-reason'],
  ])('target-down subject names a %s failure (%s)', (reason, detail, label) => {
    const r = defaultRule('target-down');
    const n = build(r, firing(r, 0), { kind: 'down', reason, detail });
    expect(failureLabel(reason, detail)).toBe(label);
    expect(n.subject).toBe(`[FIRING critical] web-1: target-down (${label})`);
  });

  it('target-down: a redirect Location is defanged in the page and kept as data in the JSON', () => {
    const r = defaultRule('target-down');
    const detail =
      'HTTP 302 from web-1:80 redirects to https://evil.example/_login_ - only same-host redirects without https->http are followed';
    const n = build(r, firing(r, 0), { kind: 'down', reason: 'redirect', detail });
    expect(n.subject).toBe('[FIRING critical] web-1: target-down (redirect)');
    expect(n.message).toContain(
      'Failure: redirect: HTTP 302 from web-1:80 redirects to hxxps://evil[.]example/%5Flogin%5F - only same-host redirects without https-%3Ehttp are followed',
    );
    expect(messageFields(n.payload).down).toEqual({ reason: 'redirect', detail, consecutiveFailures: 2 });
  });

  it('keeps untrusted report text from forging lines or markup, and keeps it as data for machines', () => {
    const request = 'GET /\n[FIRING critical] web-9: fake https://evil.example/ack HTTP/1.1';
    const hostile = {
      ...REPORT,
      slots: (REPORT.slots ?? []).map((s) => (s.mode === 'C' ? { ...s, client: '<b>x</b>', request } : s)),
    };
    const r = rule({ name: 'closing-pileup', metric: 'slots_closing', threshold: 3 });
    const n = build(r, firing(r, 3), { kind: 'report', report: hostile });
    expect(n.message).toContain('     3  %3Cb%3Ex%3C/b%3E');
    expect(n.message).toContain('     3  GET /%5BFIRING critical%5D web-9: fake hxxps://evil[.]example/ack HTTP/1.1');
    expect(n.message.split('\n').filter((l) => l.startsWith('[FIRING'))).toEqual([]);
    expect((messageFields(n.payload).offenders as { requests: unknown }).requests).toEqual([
      { name: 'GET /[FIRING critical] web-9: fake https://evil.example/ack HTTP/1.1', count: 3 },
    ]);
  });

  it('lists at most 20 labels in the text, then how many more', () => {
    const r = rule({ name: 'closing-pileup', metric: 'slots_closing' });
    const labels = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, `v${i}`]));
    const n = build(r, firing(r, 23), { kind: 'report', report: REPORT }, 'web-1', labels);
    const line = n.message.split('\n').find((l) => l.startsWith('Labels: '));
    expect(line).toBe(`Labels: ${Array.from({ length: 20 }, (_, i) => `k${i}=v${i}`).join(', ')}, and 5 more`);
    expect(messageFields(n.payload).labels).toEqual(labels);
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

describe('buildNotification: within SNS limits whatever the input', () => {
  const huge = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 2000 }),
    fc.nat(60_000).map((n) => '"\\\u00e9\u{1F600}'.repeat(n / 4)),
  );

  it('subject under 100 ASCII characters, text and JSON within their budgets', () => {
    fc.assert(
      fc.property(
        huge,
        huge,
        fc.dictionary(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), { maxKeys: 400 }),
        fc.constantFrom('report', 'down'),
        (text, target, labels, kind) => {
          const report = {
            ...REPORT,
            slots: (REPORT.slots ?? []).map((s, i) => ({ ...s, client: `${text}${i}`, vhost: text, request: text })),
          };
          const observation: Observation =
            kind === 'report' ? { kind: 'report', report } : { kind: 'down', reason: text, detail: text };
          const r = rule({
            name: 'top-client',
            metric: 'top_client_busy_slots',
            summary: '{{target}} '.repeat(45),
            runbook: `https://wiki.example/${'\u00e9'.repeat(400)}`,
          });
          const n = build(r, firing(r, 28), observation, target, labels);
          expect(n.subject.length).toBeLessThan(100);
          expect(n.subject).toMatch(/^[\x20-\x7e]+$/);
          expect(jsonStringBytes(n.message)).toBeLessThanOrEqual(MAX_TEXT_MESSAGE_BYTES);
          // With the largest `order` its claim can add.
          const ordered = withOrder(n, Number.MAX_SAFE_INTEGER);
          expect(jsonStringBytes(JSON.stringify(ordered.payload))).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe('formatValue', () => {
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
