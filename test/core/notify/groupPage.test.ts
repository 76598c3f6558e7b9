import type { PublishCommandInput } from '@aws-sdk/client-sns';
import { describe, expect, it } from 'vitest';
import { buildPublishInput } from '../../../src/adapters/snsMessage.ts';
import { fingerprint } from '../../../src/core/alerts/fingerprint.ts';
import { type GroupMember, type GroupState, type LatestPage, pagedOf } from '../../../src/core/alerts/group.ts';
import type { Notification } from '../../../src/core/alerts/types.ts';
import { MAX_PAYLOAD_BYTES, MAX_SNS_PUBLISH_BYTES, MAX_SUBJECT_CHARS } from '../../../src/core/constants.ts';
import { withOrder } from '../../../src/core/notify/build.ts';
import { buildGroupPages } from '../../../src/core/notify/groupPage.ts';
import { EVENTS_PER, pagerDutyEvents } from '../../../src/core/pagerduty/events.ts';
import { jsonStringBytes } from '../../../src/core/text/limits.ts';
import { messageFields, partialMessage } from '../../support/messages.ts';

const FIRED_AT = '2026-11-22T12:00:00.000Z';
const RESOLVED_AT = '2026-11-22T12:08:00.000Z';
const NOW = new Date('2026-11-22T12:10:00Z');
const ARN = 'arn:aws:sns:eu-west-1:123456789012:alerts';
const KEY = 'R0UT1NGKEY0000000000000000000000';

/** The default grouping (`groupBy: ["rule"]`) and its id, 32 hex characters of SHA-256 over the key. */
const BY_RULE = { key: '{"rule":"idle-slots-low"}', labels: { rule: 'idle-slots-low' } };
const BY_RULE_ID = 'e989c4e1d85ad3733f428219bb495ff7';
const BY_RULE_GROUP = { id: BY_RULE_ID, ...BY_RULE };
const BY_CLUSTER = { key: '{"labels.cluster":"eu-1"}', labels: { 'labels.cluster': 'eu-1' } };
const BY_TARGET = { key: '{"target":"web-1"}', labels: { target: 'web-1' } };

const IDLE = { rule: 'idle-slots-low', severity: 'critical', metric: 'slots_free', op: '<', threshold: 5 } as const;
const CLOSING = {
  rule: 'closing-pileup',
  severity: 'warning',
  metric: 'slots_closing',
  op: '>=',
  threshold: 20,
} as const;
const SSL = {
  rule: 'ssl-cache-misses',
  severity: 'info',
  metric: 'ssl_cache_miss_ratio',
  op: '>',
  threshold: 0.5,
} as const;

/** An alert of `rule` (idle-slots-low unless said) the last page named firing, still firing at value 2. */
function member(target: string, over: Partial<GroupMember> = {}): GroupMember {
  const rule = over.rule ?? IDLE.rule;
  return {
    fingerprint: fingerprint(target, rule),
    target,
    ...IDLE,
    status: 'firing',
    at: FIRED_AT,
    sentStatus: 'firing',
    value: 2,
    firedAt: FIRED_AT,
    resolvedAt: null,
    ...over,
  };
}
/** Firing, and no page has named it yet. */
const joined = (target: string, over: Partial<GroupMember> = {}) => member(target, { sentStatus: null, ...over });
/** Resolved since the last page named it firing. */
const resolved = (target: string, over: Partial<GroupMember> = {}) =>
  member(target, { status: 'resolved', value: 9, resolvedAt: RESOLVED_AT, ...over });

/** The newest handed-over page: `m`'s own page with `status` (as `buildNotification` writes it, shortened). */
function latestOf(m: GroupMember, status = m.status): LatestPage {
  const head = status === 'firing' ? `${m.target}: ${m.rule} (2 < 5)` : `${m.target}: ${m.rule} (now 9)`;
  return {
    fingerprint: m.fingerprint,
    status,
    subject: `[${status.toUpperCase()} ${m.severity}] ${head}`,
    message: `${status.toUpperCase()} ${m.severity}: ${m.rule} on ${m.target}\nRunbook: https://wiki.example/apache-idle`,
    payload: partialMessage({
      version: 1,
      status,
      fingerprint: m.fingerprint,
      target: m.target,
      rule: m.rule,
      summary: `only 2 of the slots are free on ${m.target}`,
      runbook: 'https://wiki.example/apache-idle',
      labels: { env: 'prod' },
    }),
  };
}

function groupOf(
  members: GroupMember[],
  latest: LatestPage | null,
  by: { key: string; labels: Record<string, string> } = BY_RULE,
): GroupState {
  return {
    ...by,
    intervalMs: 300_000,
    lastSentAt: null,
    members: Object.fromEntries(members.map((m) => [m.fingerprint, m])),
    latest,
  };
}

/** A page as the table states it: every field, the text by line, each payload alert in brief. */
function digest(n: Notification) {
  const { subject, message, payload, ...fields } = n;
  const { alerts, ...rest } = messageFields(payload);
  const brief = (a: Record<string, unknown>) => `${a.target} ${a.rule} ${a.status}${a.new === true ? ' new' : ''}`;
  return {
    subject,
    lines: message.split('\n'),
    fields,
    payload: { ...rest, alerts: Array.isArray(alerts) ? alerts.map(brief) : undefined },
  };
}

/** The fields every part of a grouped page by rule shares. */
const GROUPED_BY_RULE = {
  fingerprint: `group-${BY_RULE_ID}`,
  value: null,
  threshold: 5,
  labels: BY_RULE.labels,
  group: null,
};
const GROUPED_PAYLOAD = {
  version: 1,
  kind: 'group',
  fingerprint: `group-${BY_RULE_ID}`,
  group: BY_RULE_GROUP,
  evaluatedAt: '2026-11-22T12:10:00.000Z',
  part: { index: 1, count: 1 },
};
const IDLE_TEXTS = { summary: 'only 2 of the slots are free on web-1', runbook: 'https://wiki.example/apache-idle' };

const web1 = member('web-1');
const web1Resolved = resolved('web-1');
const sixFiring = [
  member('web-1'),
  joined('web-2'),
  member('web-3'),
  member('web-4'),
  member('web-5'),
  joined('web-6'),
  resolved('web-7'),
];
const mixed = [
  member('web-1', { ...CLOSING, value: 23 }),
  joined('web-2', { ...SSL, value: 0.72 }),
  resolved('web-3', { ...IDLE, value: 9 }),
];
const twoRules = [member('web-1'), joined('web-1', { ...CLOSING, value: 23 })];
const allResolved = [resolved('web-1'), resolved('web-2'), resolved('web-3')];
const midNames = ['frontend-eu-west-1a-001.example.internal', 'frontend-eu-west-1a-002.example.internal'];
const longNames = Array.from({ length: 6 }, (_, i) => `${'edge-proxy-'.padEnd(58, 'x')}-${i}`.padEnd(63, '0'));
const hostileTarget = 'web-1\n<script>alert(1)</script>\u0007';
const hostileLabels = { 'labels.cluster': 'eu\r\n<b>x</b>\u001b[31m' };
const hostileCluster = { key: JSON.stringify(hostileLabels), labels: hostileLabels };
/** The newest page, padded to exactly the payload budget: adding the group would pass it. */
const fatLatest = (() => {
  const latest = latestOf(web1);
  const payload = { ...latest.payload, labels: { pad: '' } };
  const room = MAX_PAYLOAD_BYTES - jsonStringBytes(JSON.stringify(payload));
  return { ...latest, payload: { ...payload, labels: { pad: 'x'.repeat(room) } } };
})();

describe('buildGroupPages', () => {
  it.each([
    {
      // intent: a group of one reads exactly like today's single-alert page
      case: 'one alert, the newest page its own: that page, with the group added',
      group: groupOf([joined('web-1')], latestOf(web1)),
      reason: 'first',
      pages: [
        {
          subject: '[FIRING critical] web-1: idle-slots-low (2 < 5)',
          lines: ['FIRING critical: idle-slots-low on web-1', 'Runbook: https://wiki.example/apache-idle'],
          fields: {
            fingerprint: web1.fingerprint,
            status: 'firing',
            reason: 'first',
            target: 'web-1',
            rule: 'idle-slots-low',
            severity: 'critical',
            value: 2,
            threshold: 5,
            labels: { env: 'prod' },
            group: null,
          },
          payload: { ...latestOf(web1).payload, group: BY_RULE_GROUP },
        },
      ],
    },
    {
      case: 'one alert resolved, the newest page its resolve: that page, reason resolved',
      group: groupOf([web1Resolved], latestOf(web1Resolved)),
      reason: 'resolved',
      pages: [
        {
          subject: '[RESOLVED critical] web-1: idle-slots-low (now 9)',
          lines: ['RESOLVED critical: idle-slots-low on web-1', 'Runbook: https://wiki.example/apache-idle'],
          fields: {
            fingerprint: web1.fingerprint,
            status: 'resolved',
            reason: 'resolved',
            target: 'web-1',
            rule: 'idle-slots-low',
            severity: 'critical',
            value: 9,
            threshold: 5,
            labels: { env: 'prod' },
            group: null,
          },
          payload: { ...latestOf(web1Resolved).payload, group: BY_RULE_GROUP },
        },
      ],
    },
    {
      case: "one alert, the newest page another alert's: the grouped format",
      group: groupOf([joined('web-1')], latestOf(member('web-2'))),
      reason: 'first',
      pages: [
        {
          subject: '[FIRING critical] idle-slots-low on 1 target: web-1',
          lines: [
            'FIRING critical: idle-slots-low on 1 target',
            'Group: rule=idle-slots-low',
            '1 firing (1 new since the last page)',
            'Firing (1):',
            '  web-1  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z  new',
          ],
          fields: {
            ...GROUPED_BY_RULE,
            status: 'firing',
            reason: 'first',
            target: 'web-1',
            rule: 'idle-slots-low',
            severity: 'critical',
          },
          payload: {
            ...GROUPED_PAYLOAD,
            status: 'firing',
            reason: 'first',
            severity: 'critical',
            rule: 'idle-slots-low',
            counts: { firing: 1, resolved: 0, new: 1 },
            alerts: ['web-1 idle-slots-low firing new'],
            summary: null, // filled in for another target (or several): not this page's
            runbook: 'https://wiki.example/apache-idle',
          },
        },
      ],
    },
    {
      case: 'one alert whose own page is at the payload budget: the grouped format, which fits',
      group: groupOf([joined('web-1')], fatLatest),
      reason: 'first',
      pages: [
        {
          subject: '[FIRING critical] idle-slots-low on 1 target: web-1',
          lines: [
            'FIRING critical: idle-slots-low on 1 target',
            'Group: rule=idle-slots-low',
            '1 firing (1 new since the last page)',
            'Firing (1):',
            '  web-1  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z  new',
            'Newest alert in detail:',
            'FIRING critical: idle-slots-low on web-1',
            'Runbook: https://wiki.example/apache-idle',
          ],
          fields: {
            ...GROUPED_BY_RULE,
            status: 'firing',
            reason: 'first',
            target: 'web-1',
            rule: 'idle-slots-low',
            severity: 'critical',
          },
          payload: {
            ...GROUPED_PAYLOAD,
            status: 'firing',
            reason: 'first',
            severity: 'critical',
            rule: 'idle-slots-low',
            counts: { firing: 1, resolved: 0, new: 1 },
            alerts: ['web-1 idle-slots-low firing new'],
            ...IDLE_TEXTS,
          },
        },
      ],
    },
    {
      // intent: the newest firing alert's own page (offenders, scoreboard) closes the text
      case: 'six targets firing, two of them new, one resolved',
      group: groupOf(sixFiring, latestOf(joined('web-6'))),
      reason: 'update',
      pages: [
        {
          subject: '[FIRING critical] idle-slots-low on 6 targets: web-1, web-2, web-3, web-4, web-5, web-6',
          lines: [
            'FIRING critical: idle-slots-low on 6 targets',
            'Group: rule=idle-slots-low',
            '6 firing (2 new since the last page), 1 resolved',
            'Firing (6):',
            '  web-1  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z',
            '  web-2  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z  new',
            '  web-3  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z',
            '  web-4  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z',
            '  web-5  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z',
            '  web-6  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z  new',
            'Resolved (1):',
            '  web-7  idle-slots-low  now 9  resolved at 2026-11-22T12:08:00.000Z',
            'Newest alert in detail:',
            'FIRING critical: idle-slots-low on web-6',
            'Runbook: https://wiki.example/apache-idle',
          ],
          fields: {
            ...GROUPED_BY_RULE,
            status: 'firing',
            reason: 'first',
            target: '6 targets',
            rule: 'idle-slots-low',
            severity: 'critical',
          },
          payload: {
            ...GROUPED_PAYLOAD,
            status: 'firing',
            reason: 'update',
            severity: 'critical',
            rule: 'idle-slots-low',
            counts: { firing: 6, resolved: 1, new: 2 },
            alerts: [
              'web-1 idle-slots-low firing',
              'web-2 idle-slots-low firing new',
              'web-3 idle-slots-low firing',
              'web-4 idle-slots-low firing',
              'web-5 idle-slots-low firing',
              'web-6 idle-slots-low firing new',
              'web-7 idle-slots-low resolved new',
            ],
            summary: null, // filled in for another target (or several): not this page's
            runbook: 'https://wiki.example/apache-idle',
          },
        },
      ],
    },
    {
      // intent: a resolved critical does not make a page about a firing warning critical
      case: 'mixed severities: the highest among the firing alerts',
      group: groupOf(mixed, latestOf(mixed[1] as GroupMember), BY_CLUSTER),
      reason: 'update',
      pages: [
        {
          subject: '[FIRING warning] 3 rules on 2 targets: web-1, web-2',
          lines: [
            'FIRING warning: 3 rules on 2 targets',
            'Group: labels.cluster=eu-1',
            '2 firing (1 new since the last page), 1 resolved',
            'Firing (2):',
            '  web-1  closing-pileup  23 >= 20  firing since 2026-11-22T12:00:00.000Z',
            '  web-2  ssl-cache-misses  0.72 > 0.5  firing since 2026-11-22T12:00:00.000Z  new',
            'Resolved (1):',
            '  web-3  idle-slots-low  now 9  resolved at 2026-11-22T12:08:00.000Z',
            'Newest alert in detail:',
            'FIRING info: ssl-cache-misses on web-2',
            'Runbook: https://wiki.example/apache-idle',
          ],
          fields: {
            fingerprint: 'group-8c2d76170dec2112a7ad23441a506a21',
            status: 'firing',
            reason: 'first',
            target: '2 targets',
            rule: '3 rules',
            severity: 'warning',
            value: null,
            threshold: 20,
            labels: BY_CLUSTER.labels,
            group: null,
          },
          payload: {
            ...GROUPED_PAYLOAD,
            fingerprint: 'group-8c2d76170dec2112a7ad23441a506a21',
            group: { id: '8c2d76170dec2112a7ad23441a506a21', ...BY_CLUSTER },
            status: 'firing',
            reason: 'update',
            severity: 'warning',
            rule: null,
            counts: { firing: 2, resolved: 1, new: 1 },
            alerts: [
              'web-1 closing-pileup firing',
              'web-2 ssl-cache-misses firing new',
              'web-3 idle-slots-low resolved new',
            ],
            summary: null,
            runbook: null,
          },
        },
      ],
    },
    {
      case: 'two rules on one target (grouped by target)',
      group: groupOf(twoRules, null, BY_TARGET),
      reason: 'update',
      pages: [
        {
          subject: '[FIRING critical] 2 rules on 1 target: web-1',
          lines: [
            'FIRING critical: 2 rules on 1 target',
            'Group: target=web-1',
            '2 firing (1 new since the last page)',
            'Firing (2):',
            '  web-1  closing-pileup  23 >= 20  firing since 2026-11-22T12:00:00.000Z  new',
            '  web-1  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z',
          ],
          fields: {
            fingerprint: 'group-29a3d9c8b064b87b92a1b3372ac1f6ea',
            status: 'firing',
            reason: 'first',
            target: 'web-1',
            rule: '2 rules',
            severity: 'critical',
            value: null,
            threshold: 20,
            labels: BY_TARGET.labels,
            group: null,
          },
          payload: {
            ...GROUPED_PAYLOAD,
            fingerprint: 'group-29a3d9c8b064b87b92a1b3372ac1f6ea',
            group: { id: '29a3d9c8b064b87b92a1b3372ac1f6ea', ...BY_TARGET },
            status: 'firing',
            reason: 'update',
            severity: 'critical',
            rule: null,
            counts: { firing: 2, resolved: 0, new: 1 },
            alerts: ['web-1 closing-pileup firing new', 'web-1 idle-slots-low firing'],
            summary: null,
            runbook: null,
          },
        },
      ],
    },
    {
      case: 'every alert resolved',
      group: groupOf(allResolved, latestOf(allResolved[2] as GroupMember)),
      reason: 'resolved',
      pages: [
        {
          subject: '[RESOLVED critical] idle-slots-low on 3 targets: web-1, web-2, web-3',
          lines: [
            'RESOLVED critical: idle-slots-low on 3 targets',
            'Group: rule=idle-slots-low',
            '3 resolved',
            'Resolved (3):',
            '  web-1  idle-slots-low  now 9  resolved at 2026-11-22T12:08:00.000Z',
            '  web-2  idle-slots-low  now 9  resolved at 2026-11-22T12:08:00.000Z',
            '  web-3  idle-slots-low  now 9  resolved at 2026-11-22T12:08:00.000Z',
          ],
          fields: {
            ...GROUPED_BY_RULE,
            status: 'resolved',
            reason: 'resolved',
            target: '3 targets',
            rule: 'idle-slots-low',
            severity: 'critical',
          },
          payload: {
            ...GROUPED_PAYLOAD,
            status: 'resolved',
            reason: 'resolved',
            severity: 'critical',
            rule: 'idle-slots-low',
            counts: { firing: 0, resolved: 3, new: 0 },
            alerts: [
              'web-1 idle-slots-low resolved new',
              'web-2 idle-slots-low resolved new',
              'web-3 idle-slots-low resolved new',
            ],
            summary: null, // filled in for another target (or several): not this page's
            runbook: 'https://wiki.example/apache-idle',
          },
        },
      ],
    },
    {
      case: 'a repeat: nothing new, still firing',
      group: groupOf([member('web-1'), member('web-2')], latestOf(web1)),
      reason: 'repeat',
      pages: [
        {
          subject: '[FIRING critical] idle-slots-low on 2 targets: web-1, web-2',
          lines: [
            'FIRING critical: idle-slots-low on 2 targets',
            'Group: rule=idle-slots-low',
            '2 firing',
            'Reminder: still firing at 2026-11-22T12:10:00.000Z',
            'Firing (2):',
            '  web-1  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z',
            '  web-2  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z',
            'Newest alert in detail:',
            'FIRING critical: idle-slots-low on web-1',
            'Runbook: https://wiki.example/apache-idle',
          ],
          fields: {
            ...GROUPED_BY_RULE,
            status: 'firing',
            reason: 'repeat',
            target: '2 targets',
            rule: 'idle-slots-low',
            severity: 'critical',
          },
          payload: {
            ...GROUPED_PAYLOAD,
            status: 'firing',
            reason: 'repeat',
            severity: 'critical',
            rule: 'idle-slots-low',
            counts: { firing: 2, resolved: 0, new: 0 },
            alerts: ['web-1 idle-slots-low firing', 'web-2 idle-slots-low firing'],
            ...IDLE_TEXTS,
            summary: null, // two targets: no one target's summary
          },
        },
      ],
    },
    {
      case: 'target names of 40 characters: as many as fit, then ...',
      group: groupOf(
        midNames.map((t) => member(t)),
        null,
      ),
      reason: 'first',
      pages: [
        {
          subject: '[FIRING critical] idle-slots-low on 2 targets: frontend-eu-west-1a-001.example.internal, ...',
          lines: [
            'FIRING critical: idle-slots-low on 2 targets',
            'Group: rule=idle-slots-low',
            '2 firing',
            'Firing (2):',
            '  frontend-eu-west-1a-001.example.internal  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z',
            '  frontend-eu-west-1a-002.example.internal  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z',
          ],
          fields: {
            ...GROUPED_BY_RULE,
            status: 'firing',
            reason: 'first',
            target: '2 targets',
            rule: 'idle-slots-low',
            severity: 'critical',
          },
          payload: {
            ...GROUPED_PAYLOAD,
            status: 'firing',
            reason: 'first',
            severity: 'critical',
            rule: 'idle-slots-low',
            counts: { firing: 2, resolved: 0, new: 0 },
            alerts: midNames.map((t) => `${t} idle-slots-low firing`),
            summary: null,
            runbook: null,
          },
        },
      ],
    },
    {
      case: 'target names of 63 characters: the first one cut',
      group: groupOf(
        longNames.map((t) => member(t)),
        null,
      ),
      reason: 'first',
      pages: [
        {
          subject: `[FIRING critical] idle-slots-low on 6 targets: ${'edge-proxy-'.padEnd(49, 'x')}...`,
          lines: [
            'FIRING critical: idle-slots-low on 6 targets',
            'Group: rule=idle-slots-low',
            '6 firing',
            'Firing (6):',
            ...longNames.map((t) => `  ${t}  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z`),
          ],
          fields: {
            ...GROUPED_BY_RULE,
            status: 'firing',
            reason: 'first',
            target: '6 targets',
            rule: 'idle-slots-low',
            severity: 'critical',
          },
          payload: {
            ...GROUPED_PAYLOAD,
            status: 'firing',
            reason: 'first',
            severity: 'critical',
            rule: 'idle-slots-low',
            counts: { firing: 6, resolved: 0, new: 0 },
            alerts: longNames.map((t) => `${t} idle-slots-low firing`),
            summary: null,
            runbook: null,
          },
        },
      ],
    },
    {
      // intent: no forged line or control sequence in what people read; machines get the value
      case: 'a hostile target and group label: cleaned in subject and text, data in JSON',
      group: groupOf([member(hostileTarget), member('web-2')], null, hostileCluster),
      reason: 'first',
      pages: [
        {
          subject: '[FIRING critical] idle-slots-low on 2 targets: web-1<script>alert(1)</script>, web-2',
          lines: [
            'FIRING critical: idle-slots-low on 2 targets',
            'Group: labels.cluster=eu  <b>x</b> [31m',
            '2 firing',
            'Firing (2):',
            '  web-1 <script>alert(1)</script>   idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z',
            '  web-2  idle-slots-low  2 < 5  firing since 2026-11-22T12:00:00.000Z',
          ],
          fields: {
            fingerprint: 'group-c5c8477be3633b4abb582b2f6ce4dda0',
            status: 'firing',
            reason: 'first',
            target: '2 targets',
            rule: 'idle-slots-low',
            severity: 'critical',
            value: null,
            threshold: 5,
            labels: hostileCluster.labels,
            group: null,
          },
          payload: {
            ...GROUPED_PAYLOAD,
            fingerprint: 'group-c5c8477be3633b4abb582b2f6ce4dda0',
            group: { id: 'c5c8477be3633b4abb582b2f6ce4dda0', ...hostileCluster },
            status: 'firing',
            reason: 'first',
            severity: 'critical',
            rule: 'idle-slots-low',
            counts: { firing: 2, resolved: 0, new: 0 },
            alerts: ['web-1<script>alert(1)</script> idle-slots-low firing', 'web-2 idle-slots-low firing'],
            summary: null,
            runbook: null,
          },
        },
      ],
    },
    {
      case: 'nothing named that the group holds: no page',
      group: groupOf([resolved('web-1', { sentStatus: null })], null),
      reason: 'resolved',
      pages: [],
    },
  ] as const)('$case', ({ group, reason, pages }) => {
    // Act
    const built = buildGroupPages({ group, paged: pagedOf(group), reason, now: NOW });

    // Assess
    expect(built.map(digest)).toEqual(pages);
  });
});

describe('buildGroupPages: the payload', () => {
  it('carries every fact of each alert, as data', () => {
    // Prepare: one alert joined, one resolved since the last page named it firing.
    const group = groupOf([joined('web-2'), resolved('web-7')], null);

    // Act
    const [page] = buildGroupPages({ group, paged: pagedOf(group), reason: 'update', now: NOW });

    // Assess
    expect(page?.payload).toEqual({
      version: 1,
      kind: 'group',
      status: 'firing',
      reason: 'update',
      fingerprint: `group-${BY_RULE_ID}`,
      group: BY_RULE_GROUP,
      severity: 'critical',
      rule: 'idle-slots-low',
      evaluatedAt: '2026-11-22T12:10:00.000Z',
      counts: { firing: 1, resolved: 1, new: 1 },
      part: { index: 1, count: 1 },
      alerts: [
        {
          fingerprint: fingerprint('web-2', 'idle-slots-low'),
          status: 'firing',
          target: 'web-2',
          rule: 'idle-slots-low',
          severity: 'critical',
          metric: 'slots_free',
          op: '<',
          value: 2,
          threshold: 5,
          firedAt: FIRED_AT,
          resolvedAt: null,
          new: true,
        },
        {
          fingerprint: fingerprint('web-7', 'idle-slots-low'),
          status: 'resolved',
          target: 'web-7',
          rule: 'idle-slots-low',
          severity: 'critical',
          metric: 'slots_free',
          op: '<',
          value: 9,
          threshold: 5,
          firedAt: FIRED_AT,
          resolvedAt: RESOLVED_AT,
          new: true,
        },
      ],
      summary: null,
      runbook: null,
    });
  });

  it('is the same page for the same group, whatever the order alerts are named in', () => {
    // Prepare
    const group = groupOf(sixFiring, latestOf(joined('web-6')));
    const paged = pagedOf(group);
    const reversed = Object.fromEntries(Object.entries(paged).reverse());

    // Act
    const pages = [paged, paged, reversed].map((p) => buildGroupPages({ group, paged: p, reason: 'update', now: NOW }));

    // Assess
    expect(pages[1]).toEqual(pages[0]);
    expect(pages[2]).toEqual(pages[0]);
  });

  it('maps, in the PagerDuty forwarder with -c pagerDutyEventsPer=alert, to one event per alert keyed by its fingerprint', () => {
    // Prepare: what SNS hands the forwarder, the JSON variant of a grouped page.
    const group = groupOf(sixFiring, latestOf(joined('web-6')));
    const [page] = buildGroupPages({ group, paged: pagedOf(group), reason: 'update', now: NOW });

    // Act
    const events = pagerDutyEvents(JSON.stringify(page?.payload), KEY, EVENTS_PER.alert);

    // Assess
    expect(events.map((e) => [e.event_action, e.dedup_key, e.payload.summary])).toEqual([
      ['trigger', fingerprint('web-1', 'idle-slots-low'), '[FIRING critical] web-1: idle-slots-low (2 < 5)'],
      ['trigger', fingerprint('web-2', 'idle-slots-low'), '[FIRING critical] web-2: idle-slots-low (2 < 5)'],
      ['trigger', fingerprint('web-3', 'idle-slots-low'), '[FIRING critical] web-3: idle-slots-low (2 < 5)'],
      ['trigger', fingerprint('web-4', 'idle-slots-low'), '[FIRING critical] web-4: idle-slots-low (2 < 5)'],
      ['trigger', fingerprint('web-5', 'idle-slots-low'), '[FIRING critical] web-5: idle-slots-low (2 < 5)'],
      ['trigger', fingerprint('web-6', 'idle-slots-low'), '[FIRING critical] web-6: idle-slots-low (2 < 5)'],
      ['resolve', fingerprint('web-7', 'idle-slots-low'), '[RESOLVED critical] web-7: idle-slots-low (now 9)'],
    ]);
  });
});

/** Bytes SNS counts for a publish: the message, the subject and every attribute's name, type and value. */
function publishBytes(input: PublishCommandInput): number {
  let bytes = Buffer.byteLength(input.Message as string) + Buffer.byteLength(input.Subject ?? '');
  for (const [name, a] of Object.entries(input.MessageAttributes ?? {})) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(a.DataType ?? '') + Buffer.byteLength(a.StringValue ?? '');
  }
  return bytes;
}

describe('buildGroupPages: a full group', () => {
  // 1,000 alerts (MAX_GROUP_MEMBERS) on targets with the longest names allowed (63 characters),
  // every tenth resolved: the largest page a group can send.
  const names = Array.from({ length: 1000 }, (_, i) => `web-${String(i).padStart(4, '0')}.`.padEnd(63, 'x'));
  const group = groupOf(
    names.map((t, i) => (i % 10 === 0 ? resolved(t) : member(t))),
    latestOf(member(names[1] as string)),
  );
  const pages = buildGroupPages({ group, paged: pagedOf(group), reason: 'update', now: NOW });
  const alertsOf = (n: Notification) => messageFields(n.payload).alerts ?? [];

  it('splits into parts, every alert in exactly one, in page order', () => {
    // Act
    const carried = pages.flatMap((n) => alertsOf(n).map((a) => `${a.status} ${a.target}`));

    // Assess
    expect(pages.length).toBe(15);
    expect(carried).toEqual([
      ...names.filter((_, i) => i % 10 !== 0).map((t) => `firing ${t}`),
      ...names.filter((_, i) => i % 10 === 0).map((t) => `resolved ${t}`),
    ]);
    expect(new Set(pages.flatMap((n) => alertsOf(n).map((a) => a.fingerprint))).size).toBe(1000);
  });

  it('numbers the parts in the subject, the text and the payload; counts cover the whole page', () => {
    // Assess
    expect(pages.map((n) => n.subject)).toEqual(
      pages.map(
        (_, i) =>
          `[FIRING critical] idle-slots-low on 900 targets: web-0001.${'x'.repeat(i < 9 ? 31 : 30)}... (${i + 1}/15)`,
      ),
    );
    expect(pages.every((n) => n.subject.length <= MAX_SUBJECT_CHARS)).toBe(true);
    expect(pages.map((n) => n.message.split('\n').slice(0, 3))).toEqual(
      pages.map((_, i) => [
        `FIRING critical: idle-slots-low on 900 targets (part ${i + 1} of 15)`,
        'Group: rule=idle-slots-low',
        '900 firing, 100 resolved',
      ]),
    );
    // Each part lists its own alerts: 852 firing in the first twelve, 48 + 21 resolved, then 66 and 13.
    expect(pages.map((n) => n.message.split('\n').filter((l) => /^(Firing|Resolved) \(/.test(l)))).toEqual([
      ...Array.from({ length: 12 }, () => ['Firing (71 of 900):']),
      ['Firing (48 of 900):', 'Resolved (21 of 100):'],
      ['Resolved (66 of 100):'],
      ['Resolved (13 of 100):'],
    ]);
    expect(pages.map((n) => [messageFields(n.payload).part, messageFields(n.payload).counts])).toEqual(
      pages.map((_, i) => [
        { index: i + 1, count: 15 },
        { firing: 900, resolved: 100, new: 0 },
      ]),
    );
  });

  it('keeps each part within the payload budget and each publish within SNS limits, never truncated', () => {
    // Act
    const inputs = pages.map((n) => buildPublishInput(n, ARN, { chatbotFormat: true }));

    // Assess
    for (const [i, n] of pages.entries()) {
      const ordered = withOrder(n, Number.MAX_SAFE_INTEGER); // the largest order a claim can add
      expect(jsonStringBytes(JSON.stringify(ordered.payload))).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
      const input = inputs[i] as PublishCommandInput;
      expect(publishBytes(input)).toBeLessThan(MAX_SNS_PUBLISH_BYTES);
      // The JSON variant is the part itself, not snsMessage's single-alert fallback.
      expect(JSON.parse(JSON.parse(input.Message as string).sqs)).toEqual(n.payload);
    }
  });
});

describe('buildGroupPages: a group of one reminded', () => {
  it('is the alert own page with a reminder line (one, however many reminders its last page had)', () => {
    const m = member('web-1', { sentStatus: 'firing' });
    const last = latestOf(m);
    const withOldReminder = { ...last, message: `${last.message}\nReminder: still firing at 2026-11-22T08:10:00.000Z` };
    const [page] = buildGroupPages({
      group: groupOf([m], withOldReminder),
      paged: { [m.fingerprint]: 'firing' },
      reason: 'repeat',
      now: new Date('2026-11-22T16:10:00Z'),
    });
    expect(page?.subject).toBe(last.subject);
    expect(page?.message.split('\n')).toEqual([
      'FIRING critical: idle-slots-low on web-1',
      'Runbook: https://wiki.example/apache-idle',
      'Reminder: still firing at 2026-11-22T16:10:00.000Z',
    ]);
    expect(page?.reason).toBe('repeat');
    expect(page?.payload).toMatchObject({ reason: 'repeat', evaluatedAt: '2026-11-22T16:10:00.000Z' });
  });
});

describe('buildGroupPages: a continuation (the group had more alerts than its first item holds)', () => {
  it('is its own group page: its own id, fingerprint and PagerDuty incident, saying it continues the group', () => {
    // Arrange
    const group: GroupState = { ...groupOf([joined('web-601'), joined('web-602')], null), continuation: 1 };

    // Act
    const [page, ...rest] = buildGroupPages({ group, paged: pagedOf(group), reason: 'first', now: NOW });

    // Assess
    expect(rest).toEqual([]);
    expect(page?.fingerprint).toBe(`group-${BY_RULE_ID}-1`);
    expect(messageFields(page?.payload).group).toEqual({ ...BY_RULE_GROUP, id: `${BY_RULE_ID}-1`, continuation: 1 });
    expect(page?.subject).toBe('[FIRING critical] idle-slots-low on 2 more targets: web-601, web-602 (continuation 1)');
    expect(page?.message.split('\n').slice(0, 4)).toEqual([
      'FIRING critical: idle-slots-low on 2 more targets',
      "Continuation 1 of this group: it has more alerts than one group page holds; the group's first page and its other continuations name the others.",
      'Group: rule=idle-slots-low',
      '2 firing (2 new since the last page)',
    ]);
    const events = pagerDutyEvents(JSON.stringify(page?.payload), KEY, EVENTS_PER.group);
    expect(events.map((e) => [e.dedup_key, e.event_action])).toEqual([[`group-${BY_RULE_ID}-1`, 'trigger']]);
  });

  it('names the continuation and the part in a subject within the limit', () => {
    // Arrange
    const names = Array.from({ length: 600 }, (_, i) => `web-${String(i + 600).padStart(4, '0')}.`.padEnd(63, 'x'));
    const group: GroupState = {
      ...groupOf(
        names.map((t) => member(t)),
        null,
      ),
      continuation: 2,
    };

    // Act
    const pages = buildGroupPages({ group, paged: pagedOf(group), reason: 'repeat', now: NOW });

    // Assess
    expect(pages.map((n) => n.subject)).toEqual(
      pages.map(
        (_, i) =>
          `[FIRING critical] idle-slots-low on 600 more targets: web-0600.${'x'.repeat(11)}... (continuation 2, ${i + 1}/9)`,
      ),
    );
    expect(pages.every((n) => n.subject.length <= MAX_SUBJECT_CHARS)).toBe(true);
  });
});
