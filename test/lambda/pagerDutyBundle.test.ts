/**
 * The PagerDuty forwarder as `cdk synth` bundles it, loaded as Lambda loads it (the real runtime
 * interface client in a fresh Node process), with the environment the stack gives it, the fake
 * SSM and the loopback Events API; fed SNS events built by the real notifier through fauxqs.
 */
import type { SNSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSnsNotifier } from '../../src/adapters/snsNotifier.ts';
import { fingerprint } from '../../src/core/alerts/fingerprint.ts';
import { addToGroup, type GroupState, groupRefOf, markPaged, pagedOf } from '../../src/core/alerts/group.ts';
import { stepAlert } from '../../src/core/alerts/step.ts';
import type { Notification } from '../../src/core/alerts/types.ts';
import { MAX_GROUP_MEMBERS } from '../../src/core/constants.ts';
import { buildNotification } from '../../src/core/notify/build.ts';
import { buildGroupPages } from '../../src/core/notify/groupPage.ts';
import { parseRulesDocuments } from '../../src/core/rules/document.ts';
import type { Rule } from '../../src/core/rules/types.ts';
import { loadReport } from '../core/support/reports.ts';
import { synthFunction } from '../support/bundle.ts';
import { credentials, type LocalSns, type ReceivedMessage, region, startSns } from '../support/emulators.ts';
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

/** The group after `pages` were handed over to it at `now` (as `GroupInbox` does). */
function handOver(group: GroupState | null, pages: readonly Notification[], now: Date): GroupState {
  let next = group;
  for (const page of pages) {
    if (page.group == null) throw new Error(`expected ${page.subject} to join a group, found it on its own`);
    const { fingerprint: fp, status, subject, message, payload } = page;
    next = addToGroup(
      next,
      page.group,
      page,
      { fingerprint: fp, status, subject, message, payload },
      now,
      MAX_GROUP_MEMBERS,
    );
  }
  if (next === null) throw new Error('expected a group, found none');
  return next;
}

describe('the synthesized PagerDuty forwarder bundle under the Lambda runtime interface client', () => {
  let sns: LocalSns;
  let ssm: FakeSsm;
  let api: PagerDutyStandIn;
  let lambda: LambdaProcess;

  beforeAll(async () => {
    const { assetDir, environment } = synthFunction({ pagerDutyRoutingKeyParameter: PARAMETER }, 'PagerDuty');
    [sns, ssm, api] = await Promise.all([startSns(), startFakeSsm(), startPagerDutyStandIn()]);
    ssm.parameters.set(PARAMETER, ROUTING_KEY);
    lambda = await startLambda(assetDir, {
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_ENDPOINT_URL_SSM: ssm.endpoint,
      // The stack's environment, with the Events API moved to loopback.
      ...environment,
      PAGERDUTY_EVENTS_URL: api.url,
    });
  }, 120_000);

  afterAll(async () => {
    await lambda?.stop();
    await Promise.all([sns?.stop(), ssm?.stop(), api?.stop()]);
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
    expect(results).toEqual([{ sent: 1 }, { sent: 1 }]);
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

  it('a grouped page triggers one incident per alert keyed by its fingerprint; the grouped resolve closes the same ones', async () => {
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
    expect(results).toEqual([{ sent: 3 }, { sent: 3 }]);
    const fp = (target: string) => fingerprint(target, 'idle-slots-low');
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
      [ROUTING_KEY, 'trigger', fp('web-1'), '[FIRING critical] web-1: idle-slots-low (41 < 300)'],
      [ROUTING_KEY, 'trigger', fp('web-2'), '[FIRING critical] web-2: idle-slots-low (12 < 300)'],
      [ROUTING_KEY, 'trigger', fp('web-3'), '[FIRING critical] web-3: idle-slots-low (7 < 300)'],
      [ROUTING_KEY, 'resolve', fp('web-1'), '[RESOLVED critical] web-1: idle-slots-low (now 400)'],
      [ROUTING_KEY, 'resolve', fp('web-2'), '[RESOLVED critical] web-2: idle-slots-low (now 400)'],
      [ROUTING_KEY, 'resolve', fp('web-3'), '[RESOLVED critical] web-3: idle-slots-low (now 400)'],
    ]);
  }, 60_000);
});
