import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/core/alerts/fingerprint.ts';
import { groupRefOf, markPaged, pagedOf } from '../../../src/core/alerts/group.ts';
import { stepAlert } from '../../../src/core/alerts/step.ts';
import type { Notification } from '../../../src/core/alerts/types.ts';
import { PagerDutyMessageError, readAlertPage } from '../../../src/core/message/readMessage.ts';
import { buildNotification } from '../../../src/core/notify/build.ts';
import { buildGroupPages } from '../../../src/core/notify/groupPage.ts';
import { EVENTS_PER, eventsOfPage, MAX_SUMMARY_CHARS, pagerDutyEvents } from '../../../src/core/pagerduty/events.ts';
import { parseRulesDocuments } from '../../../src/core/rules/document.ts';
import type { Observation, Rule } from '../../../src/core/rules/types.ts';
import { messageFields } from '../../support/messages.ts';
import { handOver } from '../support/groups.ts';
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

describe('pagerDutyEvents', () => {
  it.each([
    {
      case: 'a critical slot rule fires',
      n: notifications(IDLE, 0.031).firing,
      action: 'trigger',
      severity: 'critical',
      summary: '[FIRING critical] web-1: idle-slots-low (0.031 < 0.05): only 0.031 of the slots are free on web-1',
      timestamp: '2026-11-22T12:00:00.000Z',
      links: [{ href: 'https://wiki.example/apache-idle', text: 'Runbook' }],
      shown: {
        modes: 'SRWKDCLI',
        slots: 28,
        clients: [{ name: '127.0.0.1', count: 28 }],
        vhosts: [
          { name: 'www[.]example[.]test:18120', count: 10 },
          { name: 'static[.]example[.]test:18120', count: 9 },
          { name: 'api[.]example[.]test:18120', count: 6 },
        ],
        requests: [
          { name: 'GET /page20k[.]html HTTP/1.1', count: 6 },
          { name: 'GET /cgi-bin/sleep[.]cgi?12 HTTP/1.1', count: 5 },
          { name: 'GET /cgi-bin/drip[.]cgi?12 HTTP/1.1', count: 2 },
        ],
        oldest: [
          {
            request: 'GET /cgi-bin/sleep[.]cgi?12 HTTP/1.1',
            client: '127.0.0.1',
            vhost: 'api[.]example[.]test:18120',
            ss: 4,
          },
          {
            request: 'GET /css/site[.]css?keepalive=1 HTTP/1.1',
            client: '127.0.0.1',
            vhost: 'static[.]example[.]test:18120',
            ss: 4,
          },
          {
            request: 'GET /cgi-bin/drip[.]cgi?12 HTTP/1.1',
            client: '127.0.0.1',
            vhost: 'static[.]example[.]test:18120',
            ss: 4,
          },
        ],
      },
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
      shown: {
        modes: 'C',
        slots: 3,
        clients: [{ name: '127.0.0.1', count: 3 }],
        vhosts: [{ name: 'api[.]example[.]test:18120', count: 3 }],
        requests: [1, 2, 3].map((i) => ({ name: `GET /v1/health[.]json?linger=${i} HTTP/1.0`, count: 1 })),
        oldest: [2, 3, 1].map((i) => ({
          request: `GET /v1/health[.]json?linger=${i} HTTP/1.0`,
          client: '127.0.0.1',
          vhost: 'api[.]example[.]test:18120',
          ss: 4,
        })),
      },
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
  ])('maps the message when $case', ({ n, action, severity, summary, timestamp, links, shown }) => {
    // Act
    const events = pagerDutyEvents(jsonVariant(n), KEY, EVENTS_PER.alert);

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
          // As published, but for report text, shown as the text page shows it.
          custom_details: shown === undefined ? n.payload : { ...n.payload, offenders: shown },
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
      (n) => pagerDutyEvents(jsonVariant(n), KEY, EVENTS_PER.alert)[0]?.dedup_key,
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
    const events = pagerDutyEvents(message, KEY, EVENTS_PER.alert);

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
    const summary = pagerDutyEvents(JSON.stringify(payload), KEY, EVENTS_PER.alert)[0]?.payload.summary ?? '';

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
    expect(() => pagerDutyEvents(message, KEY, EVENTS_PER.alert)).toThrow(
      new PagerDutyMessageError(error.replace(/^expected the JSON variant of an httpd-status-alerts message, /, '')),
    );
    expect(() => pagerDutyEvents(message, KEY, EVENTS_PER.alert)).toThrow(error);
  });
});

const T2 = new Date('2026-11-22T12:10:00Z');

/** The alert's own page, joined to its rule's group (the default `groupBy`). */
function grouped(n: Notification): Notification {
  return {
    ...n,
    group: groupRefOf(
      IDLE.groupBy,
      { rule: n.rule, severity: n.severity, target: n.target, labels: {} },
      IDLE.groupIntervalMs,
    ),
  };
}

/** The group's pages as the monitor sends them: web-1 alone first, then web-1..web-3, then all resolved. */
function groupStory(): { first: Notification; update: Notification; resolve: Notification } {
  const targets = ['web-1', 'web-2', 'web-3'];
  const fired = targets.map((t, i) => notifications(IDLE, 0.01 * (i + 1), REPORT, t));
  let group = handOver(null, [grouped(fired[0]?.firing as Notification)], T0);
  const [first] = buildGroupPages({ group, paged: pagedOf(group), reason: 'first', now: T0 });
  group = markPaged(group, pagedOf(group), T0.toISOString());
  group = handOver(group, [grouped(fired[1]?.firing as Notification), grouped(fired[2]?.firing as Notification)], T0);
  const [update] = buildGroupPages({ group, paged: pagedOf(group), reason: 'update', now: T1 });
  group = markPaged(group, pagedOf(group), T1.toISOString());
  group = handOver(
    group,
    fired.map((f) => grouped(f.resolved)),
    T1,
  );
  const [resolve] = buildGroupPages({ group, paged: pagedOf(group), reason: 'resolved', now: T2 });
  if (first === undefined || update === undefined || resolve === undefined) throw new Error('expected three pages');
  return { first, update, resolve };
}

describe('eventsOfPage: one incident per group (the default)', () => {
  const story = groupStory();
  const groupKey = String(story.update.payload.fingerprint);

  it('keys the first page (one alert), the update and the resolve by the group, so one incident opens and closes', () => {
    // Act
    const events = [story.first, story.update, story.resolve].flatMap((n) =>
      eventsOfPage(readAlertPage(jsonVariant(n)), KEY, EVENTS_PER.group),
    );

    // Assess
    expect(groupKey).toMatch(/^group-[0-9a-f]{32}$/);
    expect(events.map((e) => [e.event.event_action, e.event.dedup_key, e.event.payload.summary, e.part])).toEqual([
      [
        'trigger',
        groupKey,
        '[FIRING critical] web-1: idle-slots-low (0.01 < 0.05): only 0.01 of the slots are free on web-1',
        1,
      ],
      ['trigger', groupKey, '[FIRING critical] idle-slots-low: 3 firing: web-1, web-2, web-3', 1],
      ['resolve', groupKey, '[RESOLVED critical] idle-slots-low: 3 resolved: web-1, web-2, web-3', 1],
    ]);
  });

  it("lists every alert of the page in custom_details, with the page's severity, source and class", () => {
    // Act
    const [update] = eventsOfPage(readAlertPage(jsonVariant(story.update)), KEY, EVENTS_PER.group);

    // Assess
    expect(update?.event.payload).toMatchObject({
      source: '3 targets',
      component: '3 targets',
      class: 'idle-slots-low',
      severity: 'critical',
      timestamp: T1.toISOString(),
    });
    const details = update?.event.payload.custom_details as { alerts: { target: string; status: string }[] };
    expect(details.alerts.map((a) => [a.target, a.status])).toEqual([
      ['web-1', 'firing'],
      ['web-2', 'firing'],
      ['web-3', 'firing'],
    ]);
  });

  it('with -c pagerDutyEventsPer=alert, keys each alert by its fingerprint, the first page included', () => {
    // Act
    const keys = [story.first, story.update].flatMap((n) =>
      pagerDutyEvents(jsonVariant(n), KEY, EVENTS_PER.alert).map((e) => e.dedup_key),
    );

    // Assess
    expect(keys).toEqual(['web-1', 'web-1', 'web-2', 'web-3'].map((t) => fingerprint(t, 'idle-slots-low')));
  });

  it('keeps an ungrouped alert (groupBy []) keyed by its fingerprint', () => {
    // Act
    const [event] = pagerDutyEvents(jsonVariant(notifications(CLOSING, 23).firing), KEY, EVENTS_PER.group);

    // Assess
    expect(event?.dedup_key).toBe(fingerprint('web-1', 'closing-pileup'));
  });

  it.each([
    { parts: { index: 1, count: 1 }, order: undefined, expected: { order: null, part: 1 } },
    // Part 2 carries the page's order plus 1: its event has the page's order, as part 1's has.
    { parts: { index: 2, count: 3 }, order: 1_764_000_000_124, expected: { order: 1_764_000_000_123, part: 2 } },
  ])('reads order $order and part $parts.index of the page', ({ parts, order, expected }) => {
    // Prepare
    const message = JSON.stringify({ ...story.update.payload, part: parts, order });

    // Act
    const [event] = eventsOfPage(readAlertPage(message), KEY, EVENTS_PER.group);

    // Assess
    expect({ order: event?.order, part: event?.part }).toEqual(expected);
    expect(event?.event.payload.summary).toBe(
      parts.count > 1
        ? '[FIRING critical] idle-slots-low: 3 firing (part 2 of 3): web-1, web-2, web-3'
        : '[FIRING critical] idle-slots-low: 3 firing: web-1, web-2, web-3',
    );
  });

  it('names the first targets of a fleet within 1,024 characters', () => {
    // Prepare: 1,000 alerts of 60-character names.
    const alerts = Array.from({ length: 1000 }, (_, i) => ({
      ...(messageFields(story.update.payload).alerts ?? [])[0],
      target: `web-${String(i).padStart(4, '0')}`.padEnd(60, 'x'),
      fingerprint: `fp-${i}`,
    }));
    const message = JSON.stringify({ ...story.update.payload, counts: { firing: 1000, resolved: 0, new: 0 }, alerts });

    // Act
    const [event] = pagerDutyEvents(message, KEY, EVENTS_PER.group);

    // Assess
    const summary = event?.payload.summary ?? '';
    expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
    expect(summary.startsWith(`[FIRING critical] idle-slots-low: 1000 firing: ${alerts[0]?.target}, `)).toBe(true);
    expect(summary.endsWith(', ...')).toBe(true);
    expect(event?.payload.custom_details.alerts).toHaveLength(1000);
  });

  it.each([
    { order: -1, error: 'message.order: expected a whole number from 0, found -1' },
    { order: '5', error: 'message.order: expected a whole number from 0, found "5"' },
  ])('refuses order $order', ({ order, error }) => {
    // Act / Assess
    expect(() => readAlertPage(JSON.stringify({ ...story.update.payload, order }))).toThrow(error);
  });
});

describe('custom_details: report text as the text page shows it, in both mappings', () => {
  // Every form a chat or incident client acts on: a Slack mention and link, a Markdown link, an
  // @-mention, a bidi override and a zero-width space.
  const CLIENT = '<!channel> @here';
  const VHOST = '<https://evil.example|click>';
  const REQUEST = 'GET [click](https://evil.example) \u202Eevil\u200B HTTP/1.1';
  const HOSTILE_REPORT: Observation = {
    kind: 'report',
    report: {
      ...loadReport('prefork-busy/report.html'),
      slots: (loadReport('prefork-busy/report.html').slots ?? []).map((s) => ({
        ...s,
        client: CLIENT,
        vhost: VHOST,
        request: REQUEST,
      })),
    },
  };
  const DETAIL =
    "TLS with web-1:443 failed: Hostname/IP does not match certificate's altnames: Host: web-1. is not cert's CN: @here <!channel> <https://evil.example|click> [click](https://evil.example) \u202Eevil\u200B (ERR_TLS_CERT_ALTNAME_INVALID)";
  const HOSTILE_DOWN: Observation = { kind: 'down', reason: 'tls', detail: DETAIL };

  const SHOWN_REQUEST = 'GET %5Bclick%5D%28hxxps://evil[.]example%29 evil HTTP/1.1';
  const SHOWN_CLIENT = '%3C%21channel%3E %40here';
  const SHOWN_VHOST = '%3Chxxps://evil[.]example%7Cclick%3E';
  const SHOWN_OFFENDERS = {
    modes: 'SRWKDCLI',
    slots: 28,
    clients: [{ name: SHOWN_CLIENT, count: 28 }],
    vhosts: [{ name: SHOWN_VHOST, count: 28 }],
    requests: [{ name: SHOWN_REQUEST, count: 28 }],
    oldest: [1, 2, 3].map(() => ({ request: SHOWN_REQUEST, client: SHOWN_CLIENT, vhost: SHOWN_VHOST, ss: 4 })),
  };
  const SHOWN_DOWN = {
    reason: 'tls',
    detail:
      "TLS with web-1:443 failed: Hostname/IP does not match certificate's altnames: Host: web-1[.] is not cert's CN: %40here %3C%21channel%3E %3Chxxps://evil[.]example%7Cclick%3E %5Bclick%5D%28hxxps://evil[.]example%29 evil %28ERR%5FTLS%5FCERT%5FALTNAME%5FINVALID%29",
    consecutiveFailures: 2,
  };

  /** A group of one alert as the monitor pages it: its first page (the alert's own, with the group), then its resolve. */
  function groupOfOne(n: { firing: Notification; resolved: Notification }) {
    let group = handOver(null, [grouped(n.firing)], T0);
    const [first] = buildGroupPages({ group, paged: pagedOf(group), reason: 'first', now: T0 });
    group = markPaged(group, pagedOf(group), T0.toISOString());
    group = handOver(group, [grouped(n.resolved)], T1);
    const [resolve] = buildGroupPages({ group, paged: pagedOf(group), reason: 'resolved', now: T1 });
    if (first === undefined || resolve === undefined) throw new Error('expected two pages');
    return { first, resolve };
  }

  const slot = notifications(IDLE, 0.031, HOSTILE_REPORT);
  const down = notifications(DOWN_RULE, 0, HOSTILE_DOWN);
  const slotGroup = groupOfOne(slot);
  const downGroup = groupOfOne(down);

  it.each([
    {
      case: 'per alert: a slot rule triggers with hostile clients, vhosts and requests',
      n: slot.firing,
      per: EVENTS_PER.alert,
      expected: { ...slot.firing.payload, offenders: SHOWN_OFFENDERS },
    },
    {
      case: 'per alert: it resolves (no report text on a resolve)',
      n: slot.resolved,
      per: EVENTS_PER.alert,
      expected: slot.resolved.payload,
    },
    {
      case: 'per alert: target-down triggers on a TLS error quoting a hostile certificate',
      n: down.firing,
      per: EVENTS_PER.alert,
      expected: { ...down.firing.payload, down: SHOWN_DOWN },
    },
    {
      case: 'per group: the first page of a group of one slot alert',
      n: slotGroup.first,
      per: EVENTS_PER.group,
      expected: { ...slotGroup.first.payload, offenders: SHOWN_OFFENDERS },
    },
    {
      case: 'per group: the first page of a group of one target-down alert',
      n: downGroup.first,
      per: EVENTS_PER.group,
      expected: { ...downGroup.first.payload, down: SHOWN_DOWN },
    },
    {
      case: 'per group: the group resolves',
      n: downGroup.resolve,
      per: EVENTS_PER.group,
      expected: downGroup.resolve.payload,
    },
  ])('$case', ({ n, per, expected }) => {
    // Act
    const events = pagerDutyEvents(jsonVariant(n), KEY, per);

    // Assess
    expect(events.map((e) => e.payload.custom_details)).toEqual([expected]);
    expect(JSON.stringify(events)).not.toMatch(/<!channel>|<https:|\]\(https:|@here|\u202E|\u200B/);
  });

  it('keeps the published text as data in the JSON variant, for machines', () => {
    // Assess: the monitor's own message is unchanged; only what PagerDuty shows is cleaned.
    expect((messageFields(down.firing.payload).down as { detail: string }).detail).toBe(
      "TLS with web-1:443 failed: Hostname/IP does not match certificate's altnames: Host: web-1. is not cert's CN: @here <!channel> <https://evil.example|click> [click](https://evil.example) evil (ERR_TLS_CERT_ALTNAME_INVALID)",
    );
  });
});
