/**
 * The PagerDuty forwarder as `cdk synth` bundles it, loaded as Lambda loads it (the real runtime
 * interface client in fresh Node processes: two warm containers sharing the state table on
 * dynalite), with the environment the stack gives it, the fake SSM and the loopback Events API
 * stand-in (rate limit, incident state); fed SNS events built by the real notifier through fauxqs.
 */
import type { SNSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSnsNotifier } from '../../src/adapters/snsNotifier.ts';
import { fingerprint } from '../../src/core/alerts/fingerprint.ts';
import { groupId, groupRefOf, markPaged, pagedOf } from '../../src/core/alerts/group.ts';
import { stepAlert } from '../../src/core/alerts/step.ts';
import type { Notification } from '../../src/core/alerts/types.ts';
import { MAX_GROUP_MEMBERS } from '../../src/core/constants.ts';
import { buildNotification } from '../../src/core/notify/build.ts';
import { buildGroupPages } from '../../src/core/notify/groupPage.ts';
import { parseRulesDocuments } from '../../src/core/rules/document.ts';
import type { Rule } from '../../src/core/rules/types.ts';
import { handOver } from '../core/support/groups.ts';
import { loadReport } from '../core/support/reports.ts';
import { synthFunction } from '../support/bundle.ts';
import {
  credentials,
  type LocalDynamo,
  type LocalSns,
  type ReceivedMessage,
  region,
  startDynalite,
  startSns,
} from '../support/emulators.ts';
import { type FakeSsm, type LambdaProcess, startFakeSsm, startLambda } from '../support/fakeLambda.ts';
import { type PagerDutyStandIn, startPagerDutyStandIn } from '../support/pagerDutyStandIn.ts';

const PARAMETER = '/pagerduty/httpd-status-alerts';
const ROUTING_KEY = 'R0UT1NGKEY0000000000000000000000';
const RULE = parseRulesDocuments([
  {
    source: 't',
    text: JSON.stringify({
      rules: [{ name: 'idle-slots-low', metric: 'slots_idle', op: '<', threshold: 300, severity: 'critical' }],
    }),
  },
])[0] as Rule;

const T0 = Date.parse('2026-11-22T12:00:00Z');
const at = (minute: number) => new Date(T0 + minute * 60_000);
const OBSERVATION = { kind: 'report', report: loadReport('prefork-busy/report.html') } as const;

/** One SNS event per delivered message, as SNS invokes a Lambda subscriber (the JSON variant). */
function snsEventsOf(messages: readonly ReceivedMessage[], topicArn: string): SNSEvent[] {
  return messages.map((m, i) => ({
    Records: [
      {
        EventSource: 'aws:sns',
        EventVersion: '1.0',
        EventSubscriptionArn: `${topicArn}:sub`,
        Sns: {
          Type: 'Notification',
          MessageId: `m-${i}`,
          TopicArn: topicArn,
          Subject: m.subject ?? '',
          Message: m.body,
          Timestamp: new Date(0).toISOString(),
          SignatureVersion: '1',
          Signature: 'EXAMPLE',
          SigningCertUrl: 'https://sns.example/cert.pem',
          UnsubscribeUrl: 'https://sns.example/unsubscribe',
          MessageAttributes: Object.fromEntries(
            Object.entries(m.attributes).map(([k, v]) => [k, { Type: 'String', Value: v }]),
          ),
        },
      },
    ],
  }));
}

/** The alert's own page at `now`, joining its group (the default, by rule). */
function ownPage(alert: ReturnType<typeof stepAlert>, reason: 'first' | 'resolved', now: Date): Notification {
  const target = alert.target;
  const input = { rule: RULE, target, labels: {}, observation: OBSERVATION, consecutiveFailures: 0 };
  return {
    ...buildNotification({ ...input, alert, reason, now }),
    group: groupRefOf(
      RULE.groupBy,
      { rule: RULE.name, severity: RULE.severity, target, labels: {} },
      RULE.groupIntervalMs,
    ),
  };
}

/**
 * The pages of one group whose `targets` fire at T0 and resolve at T0+6m (resolve paged at T0+10m),
 * as the monitor builds them, each given the order the run side stamps on pages.
 */
function groupStory(targets: readonly string[], order: number): { firing: Notification[]; resolving: Notification[] } {
  // As the monitor orders a page in parts: part i carries the page's order plus i - 1.
  const withOrder = (pages: Notification[], o: number) =>
    pages.map((p, i) => ({ ...p, payload: { ...p.payload, order: o + i } }));
  const fired = targets.map((target) =>
    stepAlert(null, RULE, target, { kind: 'value', value: 41, holds: true }, at(0)),
  );
  let group = handOver(
    null,
    fired.map((alert) => ownPage(alert, 'first', at(0))),
    at(0),
  );
  const firing = buildGroupPages({ group, paged: pagedOf(group), reason: 'first', now: at(0) });
  group = markPaged(group, pagedOf(group), at(0).toISOString());
  group = handOver(
    group,
    fired.map((alert) =>
      ownPage(
        stepAlert(alert, RULE, alert.target, { kind: 'value', value: 400, holds: false }, at(6)),
        'resolved',
        at(6),
      ),
    ),
    at(6),
  );
  const resolving = buildGroupPages({ group, paged: pagedOf(group), reason: 'resolved', now: at(10) });
  return { firing: withOrder(firing, order), resolving: withOrder(resolving, order + 600_000) };
}

describe('the synthesized PagerDuty forwarder bundle under the Lambda runtime interface client', () => {
  let sns: LocalSns;
  let ssm: FakeSsm;
  let dynamo: LocalDynamo;
  let api: PagerDutyStandIn;
  let lambda: LambdaProcess;
  /** A second warm container of the same function. */
  let other: LambdaProcess;

  beforeAll(async () => {
    const { assetDir, environment } = synthFunction({ pagerDutyRoutingKeyParameter: PARAMETER }, 'PagerDuty');
    [sns, ssm, api, dynamo] = await Promise.all([
      startSns(),
      startFakeSsm(),
      startPagerDutyStandIn({ routingKeys: [ROUTING_KEY] }),
      startDynalite(),
    ]);
    ssm.parameters.set(PARAMETER, ROUTING_KEY);
    await dynamo.createTable('state');
    const env = {
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_ENDPOINT_URL_SSM: ssm.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      // The stack's environment, with the Events API moved to loopback and the table's name resolved.
      ...environment,
      PAGERDUTY_EVENTS_URL: api.url,
      STATE_TABLE: 'state',
    };
    [lambda, other] = await Promise.all([
      startLambda(assetDir, env, { deadlineMs: 900_000 }),
      startLambda(assetDir, env, { deadlineMs: 900_000 }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([lambda?.stop(), other?.stop()]);
    await Promise.all([sns?.stop(), ssm?.stop(), api?.stop(), dynamo?.stop()]);
  });

  it('opens an incident on the page and closes the same incident on the resolve', async () => {
    // Prepare: what the monitor publishes, through fauxqs; SNS hands Lambda the same JSON variant.
    const fired = stepAlert(null, RULE, 'web-1', { kind: 'value', value: 41, holds: true }, new Date(0));
    const resolved = stepAlert(fired, RULE, 'web-1', { kind: 'value', value: 400, holds: false }, new Date(60_000));
    const input = { rule: RULE, target: 'web-1', labels: {}, observation: OBSERVATION, consecutiveFailures: 0 };
    const notifier = createSnsNotifier(sns.sns, sns.topicArn);
    await notifier.publish(buildNotification({ ...input, alert: fired, reason: 'first', now: new Date(0) }));
    await notifier.publish(buildNotification({ ...input, alert: resolved, reason: 'resolved', now: new Date(60_000) }));
    const events = snsEventsOf(await sns.drain(), sns.topicArn);

    // Act
    const results = [];
    for (const event of events) results.push(await lambda.invoke(event));

    // Assess
    expect(results).toEqual([
      { sent: 1, dropped: 0, refused: 0 },
      { sent: 1, dropped: 0, refused: 0 },
    ]);
    expect(api.requests.map((r) => r.body as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        routing_key: ROUTING_KEY,
        event_action: 'trigger',
        dedup_key: fingerprint('web-1', 'idle-slots-low'),
        payload: expect.objectContaining({ summary: '[FIRING critical] web-1: idle-slots-low (41 < 300)' }),
      }),
      expect.objectContaining({
        routing_key: ROUTING_KEY,
        event_action: 'resolve',
        dedup_key: fingerprint('web-1', 'idle-slots-low'),
      }),
    ]);
    // The routing key was read once (cached by the warm function) and never printed.
    expect(ssm.calls.filter((c) => c === 'GetParameter')).toHaveLength(1);
    expect(lambda.output()).not.toContain(ROUTING_KEY);
  }, 60_000);

  it('a grouped page triggers one incident keyed by its group; the grouped resolve closes it', async () => {
    // Prepare: three targets fire in one run at T0 and their group's first page names all three;
    // all resolve by T0+6m and the group interval since that page has passed at T0+10m: one grouped resolve.
    const fired = (
      [
        ['web-1', 41],
        ['web-2', 12],
        ['web-3', 7],
      ] as const
    ).map(([target, value]) => stepAlert(null, RULE, target, { kind: 'value', value, holds: true }, at(0)));
    let group = handOver(
      null,
      fired.map((alert) => ownPage(alert, 'first', at(0))),
      at(0),
    );
    const firing = buildGroupPages({ group, paged: pagedOf(group), reason: 'first', now: at(0) });
    group = markPaged(group, pagedOf(group), at(0).toISOString());
    const resolved = fired.map((alert) =>
      stepAlert(alert, RULE, alert.target, { kind: 'value', value: 400, holds: false }, at(6)),
    );
    group = handOver(
      group,
      resolved.map((alert) => ownPage(alert, 'resolved', at(6))),
      at(6),
    );
    const resolving = buildGroupPages({ group, paged: pagedOf(group), reason: 'resolved', now: at(10) });
    const notifier = createSnsNotifier(sns.sns, sns.topicArn);
    for (const page of [...firing, ...resolving]) await notifier.publish(page);
    const delivered = await sns.drain();
    const before = api.requests.length;

    // Act
    const results = [];
    for (const event of snsEventsOf(delivered, sns.topicArn)) results.push(await lambda.invoke(event));

    // Assess
    expect(delivered.map((m) => [m.subject, m.attributes.target])).toEqual([
      ['[FIRING critical] idle-slots-low on 3 targets: web-1, web-2, web-3', '3 targets'],
      ['[RESOLVED critical] idle-slots-low on 3 targets: web-1, web-2, web-3', '3 targets'],
    ]);
    expect(results).toEqual([
      { sent: 1, dropped: 0, refused: 0 },
      { sent: 1, dropped: 0, refused: 0 },
    ]);
    const key = `group-${groupId(group.key)}`;
    expect(
      api.requests.slice(before).map((r) => {
        const body = r.body as {
          routing_key: string;
          event_action: string;
          dedup_key: string;
          payload: { summary: string };
        };
        return [body.routing_key, body.event_action, body.dedup_key, body.payload.summary];
      }),
    ).toEqual([
      [ROUTING_KEY, 'trigger', key, '[FIRING critical] idle-slots-low: 3 firing: web-1, web-2, web-3'],
      [ROUTING_KEY, 'resolve', key, '[RESOLVED critical] idle-slots-low: 3 resolved: web-1, web-2, web-3'],
    ]);
    expect(api.incident(ROUTING_KEY, key)).toMatchObject({ status: 'resolved', events: 2, reopened: 0 });
  }, 60_000);

  it("fault scenario 4: a retried invocation of a group's trigger, after the group resolved, is dropped in the other container", async () => {
    // Prepare: the group's trigger fails four times in container A (the invocation fails); its
    // resolve in container B finds the trigger attempted, so possibly open: sent (PagerDuty has
    // nothing to close, a no-op); then Lambda retries the trigger, in B.
    // Every group of this rule shares one key: PagerDuty's incidents start afresh for this scenario.
    api.incidents.clear();
    const story = groupStory(['db-1', 'db-2'], T0);
    const notifier = createSnsNotifier(sns.sns, sns.topicArn);
    for (const page of [...story.firing, ...story.resolving]) await notifier.publish(page);
    const [trigger, resolve] = snsEventsOf(await sns.drain(), sns.topicArn);
    const key = String(story.firing[0]?.payload.fingerprint);
    api.script(...Array.from({ length: 4 }, () => ({ status: 500 })));
    const before = api.requests.length;

    // Act
    await expect(lambda.invoke(trigger)).rejects.toThrow(/expected every event to reach PagerDuty/);
    const resolved = await other.invoke(resolve);
    const retried = await other.invoke(trigger);

    // Assess
    expect([resolved, retried]).toEqual([
      { sent: 1, dropped: 0, refused: 0 },
      { sent: 0, dropped: 1, refused: 0 },
    ]);
    expect(api.incident(ROUTING_KEY, key)).toBeUndefined();
    expect(
      api.requests
        .slice(before)
        .filter((r) => (r.body as { dedup_key: string }).dedup_key === key)
        .map((r) => [(r.body as { event_action: string }).event_action, r.status]),
    ).toEqual([
      ['trigger', 500],
      ['trigger', 500],
      ['trigger', 500],
      ['trigger', 500],
      ['resolve', 202],
    ]);
  }, 60_000);

  it('fault scenario 5: a fleet incident of a full group (600 targets) opens one incident at once and resolves it, within the rate limit', async () => {
    // Prepare
    const targets = Array.from({ length: MAX_GROUP_MEMBERS }, (_, i) => `web-${String(i).padStart(4, '0')}`);
    api.incidents.clear();
    const story = groupStory(targets, T0 + 3_600_000);
    const notifier = createSnsNotifier(sns.sns, sns.topicArn);
    for (const page of [...story.firing, ...story.resolving]) await notifier.publish(page);
    const events = snsEventsOf(await sns.drain(), sns.topicArn);
    const key = String(story.firing[0]?.payload.fingerprint);
    const before = api.requests.length;

    // Act: the parts in the two containers at once, then the resolve's.
    const firing = await Promise.all(
      events.slice(0, story.firing.length).map((e, i) => (i % 2 === 0 ? lambda : other).invoke(e)),
    );
    const resolving = await Promise.all(
      events.slice(story.firing.length).map((e, i) => (i % 2 === 0 ? lambda : other).invoke(e)),
    );

    // Assess: one trigger per part, every alert listed in some part, none throttled, the incident
    // resolved by the first resolve accepted (the other parts' resolves find it closed: dropped,
    // but for one racing it in the other container within an HTTP round trip).
    const sent = api.requests.slice(before);
    const counted = (results: unknown[]) =>
      results.map((r) => r as { sent: number; dropped: number }).map((r) => [r.sent, r.sent + r.dropped]);
    expect(counted(firing)).toEqual(firing.map(() => [1, 1]));
    expect(counted(resolving).every(([, handled]) => handled === 1)).toBe(true);
    const resolves = sent.filter((r) => (r.body as { event_action: string }).event_action === 'resolve').length;
    expect(resolves >= 1 && resolves <= 2).toBe(true);
    expect(sent.map((r) => r.status).every((s) => s === 202)).toBe(true);
    const listed = new Set(
      sent
        .filter((r) => (r.body as { event_action: string }).event_action === 'trigger')
        .flatMap((r) =>
          (
            r.body as { payload: { custom_details: { alerts: { target: string }[] } } }
          ).payload.custom_details.alerts.map((a) => a.target),
        ),
    );
    expect(listed.size).toBe(MAX_GROUP_MEMBERS);
    expect(api.incident(ROUTING_KEY, key)).toMatchObject({ status: 'resolved', reopened: 0 });
  }, 120_000);

  it('refuses a message that is not an alert message with one log line, and succeeds (no retry)', async () => {
    // Prepare
    const [event] = snsEventsOf([{ subject: 'x', body: 'hello', attributes: {} }], sns.topicArn);

    // Act
    const result = await other.invoke(event);

    // Assess
    expect(result).toEqual({ sent: 0, dropped: 0, refused: 1 });
    expect(
      other
        .output()
        .split('\n')
        .filter((l) => l.includes('refused a message that is not an alert message')),
    ).toHaveLength(1);
  }, 60_000);

  it('paces two containers together: 40 alerts outside any group go out over three windows of 17, none throttled', async () => {
    // Prepare: 40 ungrouped alerts' pages, 20 records per SNS event, one event per container.
    const ungrouped = { ...RULE, groupBy: [] };
    const notifier = createSnsNotifier(sns.sns, sns.topicArn);
    for (let i = 0; i < 40; i++) {
      const target = `edge-${i}`;
      const alert = stepAlert(null, ungrouped, target, { kind: 'value', value: 41, holds: true }, at(0));
      const input = { rule: ungrouped, target, labels: {}, observation: OBSERVATION, consecutiveFailures: 0 };
      await notifier.publish(buildNotification({ ...input, alert, reason: 'first', now: at(0) }));
    }
    const records = snsEventsOf(await sns.drain(), sns.topicArn).flatMap((e) => e.Records);
    const before = api.requests.length;

    // Act
    const results = await Promise.all([
      lambda.invoke({ Records: records.slice(0, 20) }),
      other.invoke({ Records: records.slice(20) }),
    ]);

    // Assess
    expect(results).toEqual([
      { sent: 20, dropped: 0, refused: 0 },
      { sent: 20, dropped: 0, refused: 0 },
    ]);
    const sent = api.requests.slice(before);
    expect(sent.map((r) => r.status).filter((s) => s !== 202)).toEqual([]);
    // 40 events need three windows of 17: the last goes at least 10 s after the first (arrival
    // times are the stand-in's, a few ms after the window the place was taken in, so spans not windows).
    const times = sent.map((r) => r.at).sort((a, b) => a - b);
    expect((times.at(-1) ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(10_000);
    expect(Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 10_000).length))).toBeLessThanOrEqual(34);
  }, 120_000);
});
