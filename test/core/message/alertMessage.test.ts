import { describe, expect, it } from 'vitest';
import type { GroupState } from '../../../src/core/alerts/group.ts';
import { stepAlert } from '../../../src/core/alerts/step.ts';
import type { Notification } from '../../../src/core/alerts/types.ts';
import { isGroupMessage, type PublishedMessage } from '../../../src/core/message/alertMessage.ts';
import { buildNotification, withOrder } from '../../../src/core/notify/build.ts';
import { evaluateConfigAlert } from '../../../src/core/notify/configAlert.ts';
import { buildGroupPages } from '../../../src/core/notify/groupPage.ts';
import { buildRemovalNotification, REMOVAL_CAUSES } from '../../../src/core/notify/removal.ts';
import { DEFAULT_RULES } from '../../../src/core/rules/document.ts';
import type { Rule } from '../../../src/core/rules/types.ts';

const NOW = new Date('2026-11-22T12:00:00Z');
const ORDER = 1_795_000_000_000;
const TARGET_UP = { ...(DEFAULT_RULES.find((r) => r.name === 'target-down') as Rule), forMs: 0 };
const down = stepAlert(null, TARGET_UP, 'web-1', { kind: 'value', value: 0, holds: true }, NOW);

const alertPage = buildNotification({
  rule: TARGET_UP,
  alert: down,
  reason: 'first',
  target: 'web-1',
  labels: { env: 'prod' },
  observation: { kind: 'down', reason: 'timeout', detail: 'no answer within 5 s' },
  consecutiveFailures: 2,
  now: NOW,
});

const group: GroupState = {
  key: '{"rule":"target-down"}',
  labels: { rule: 'target-down' },
  intervalMs: 300_000,
  lastSentAt: null,
  members: Object.fromEntries(
    ['web-1', 'web-2'].map((target) => [
      `fp-${target}`,
      {
        fingerprint: `fp-${target}`,
        target,
        rule: 'target-down',
        severity: 'critical' as const,
        status: 'firing' as const,
        at: NOW.toISOString(),
        sentStatus: null,
        metric: 'target_up',
        op: '<',
        value: 0,
        threshold: 1,
        firedAt: NOW.toISOString(),
        resolvedAt: null,
      },
    ]),
  ),
  latest: null,
};
const groupPage = buildGroupPages({
  group,
  paged: { 'fp-web-1': 'firing', 'fp-web-2': 'firing' },
  reason: 'first',
  now: NOW,
})[0] as Notification;

const configPage = evaluateConfigAlert({
  previous: null,
  problems: ['rules[0].op: expected <, found ='],
  targetsInForce: 3,
  now: NOW,
}).notifications[0] as Notification;

const removalPage = buildRemovalNotification({
  alert: down,
  cause: REMOVAL_CAUSES.ruleRemoved,
  labels: { env: 'prod' },
  now: NOW,
});

// The JSON each writer published before its message had a type, byte for byte (with the claim's order):
// captured from the untyped writers; a typed writer must not change one byte of it.
const ALERT_JSON =
  '{"version":1,"status":"firing","reason":"first","fingerprint":"7b3211375ee205a9","target":"web-1","rule":"target-down","severity":"critical","metric":"target_up","op":"==","threshold":0,"clearThreshold":null,"value":0,"activeAt":"2026-11-22T12:00:00.000Z","firedAt":"2026-11-22T12:00:00.000Z","resolvedAt":null,"keepFiringSince":null,"resolvesAt":null,"evaluatedAt":"2026-11-22T12:00:00.000Z","summary":"the server-status report of web-1 cannot be fetched or parsed","runbook":null,"labels":{"env":"prod"},"offenders":null,"scoreboard":null,"down":{"reason":"timeout","detail":"no answer within 5 s","consecutiveFailures":2},"failure":{"reason":"timeout","likelySaturated":false,"lastSeen":null},"silence":null,"forecast":null,"order":1795000000000}';
const GROUP_JSON =
  '{"version":1,"kind":"group","status":"firing","reason":"first","fingerprint":"group-cb41bb936bde2c0a33b18b312ce2c858","group":{"id":"cb41bb936bde2c0a33b18b312ce2c858","key":"{\\"rule\\":\\"target-down\\"}","labels":{"rule":"target-down"}},"severity":"critical","rule":"target-down","evaluatedAt":"2026-11-22T12:00:00.000Z","counts":{"firing":2,"resolved":0,"new":2},"part":{"index":1,"count":1},"alerts":[{"fingerprint":"fp-web-1","status":"firing","target":"web-1","rule":"target-down","severity":"critical","metric":"target_up","op":"<","value":0,"threshold":1,"firedAt":"2026-11-22T12:00:00.000Z","resolvedAt":null,"new":true},{"fingerprint":"fp-web-2","status":"firing","target":"web-2","rule":"target-down","severity":"critical","metric":"target_up","op":"<","value":0,"threshold":1,"firedAt":"2026-11-22T12:00:00.000Z","resolvedAt":null,"new":true}],"summary":null,"runbook":null,"order":1795000000000}';
const CONFIG_JSON =
  '{"version":1,"fingerprint":"configuration","status":"firing","target":"httpd-status-alerts","rule":"configuration","severity":"warning","problemCount":1,"problems":["rules[0].op: expected <, found ="],"targetsInForce":3,"evaluatedAt":"2026-11-22T12:00:00.000Z","order":1795000000000}';
const REMOVAL_JSON =
  '{"version":1,"status":"resolved","reason":"resolved","cause":"rule removed","fingerprint":"7b3211375ee205a9","target":"web-1","rule":"target-down","severity":"critical","threshold":0,"value":0,"activeAt":"2026-11-22T12:00:00.000Z","firedAt":"2026-11-22T12:00:00.000Z","resolvedAt":"2026-11-22T12:00:00.000Z","evaluatedAt":"2026-11-22T12:00:00.000Z","labels":{"env":"prod"},"order":1795000000000}';

describe('PublishedMessage: each kind as its writer writes it, and read back', () => {
  it.each<[string, Notification, string, boolean]>([
    ['an alert page (buildNotification)', alertPage, ALERT_JSON, false],
    ['a group page (buildGroupPages)', groupPage, GROUP_JSON, true],
    ['the configuration alert (evaluateConfigAlert)', configPage, CONFIG_JSON, false],
    ['a removal resolve (buildRemovalNotification)', removalPage, REMOVAL_JSON, false],
  ])('%s', (_, page, json, isGroup) => {
    // Act
    const written = JSON.stringify(withOrder(page, ORDER).payload);
    const read: PublishedMessage = JSON.parse(written);

    // Assert
    expect(written).toBe(json);
    expect(read).toEqual({ ...page.payload, order: ORDER });
    expect(isGroupMessage(read)).toBe(isGroup);
  });
});
