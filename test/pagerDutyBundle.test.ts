/**
 * The PagerDuty forwarder as `cdk synth` bundles it, loaded as Lambda loads it (the real runtime
 * interface client in a fresh Node process), with the environment the stack gives it, the fake
 * SSM and the loopback Events API; fed SNS events built by the real notifier through fauxqs.
 */
import { join } from 'node:path';
import type { SNSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSnsNotifier } from '../src/adapters/snsNotifier.ts';
import { fingerprint } from '../src/core/alerts/fingerprint.ts';
import { stepAlert } from '../src/core/alerts/step.ts';
import { buildNotification } from '../src/core/notify/build.ts';
import { parseRulesDocuments } from '../src/core/rules/document.ts';
import type { Rule } from '../src/core/rules/types.ts';
import { loadReport } from './core/support/reports.ts';
import { synth } from './infra/synth.ts';
import { credentials, type LocalSns, region, startSns } from './support/emulators.ts';
import { type FakeSsm, type LambdaProcess, startFakeSsm, startLambda } from './support/fakeLambda.ts';
import { type PagerDutyStandIn, startPagerDutyStandIn } from './support/pagerDutyStandIn.ts';

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

describe('the synthesized PagerDuty forwarder bundle under the Lambda runtime interface client', () => {
  let sns: LocalSns;
  let ssm: FakeSsm;
  let api: PagerDutyStandIn;
  let lambda: LambdaProcess;

  beforeAll(async () => {
    const { template, outdir } = synth({ pagerDutyRoutingKeyParameter: PARAMETER }, { bundle: true });
    const [, fn] = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) =>
      id.includes('PagerDuty'),
    ) as [string, { Properties: { Code: { S3Key: string }; Environment: { Variables: Record<string, string> } } }];
    const assetDir = join(outdir, `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
    [sns, ssm, api] = await Promise.all([startSns(), startFakeSsm(), startPagerDutyStandIn()]);
    ssm.parameters.set(PARAMETER, ROUTING_KEY);
    lambda = await startLambda(assetDir, {
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_ENDPOINT_URL_SSM: ssm.endpoint,
      // The stack's environment, with the Events API moved to loopback.
      ...fn.Properties.Environment.Variables,
      PAGERDUTY_EVENTS_URL: api.url,
    });
  }, 120_000);

  afterAll(async () => {
    await lambda?.stop();
    await Promise.all([sns?.stop(), ssm?.stop(), api?.stop()]);
  });

  it('opens an incident on the page and closes the same incident on the resolve', async () => {
    // Prepare: what the monitor publishes, through fauxqs; SNS hands Lambda the same JSON variant.
    const observation = { kind: 'report', report: loadReport('prefork-busy/report.html') } as const;
    const fired = stepAlert(null, RULE, 'web-1', { kind: 'value', value: 41, holds: true }, new Date(0));
    const resolved = stepAlert(fired, RULE, 'web-1', { kind: 'value', value: 400, holds: false }, new Date(60_000));
    const input = { rule: RULE, target: 'web-1', labels: {}, observation, consecutiveFailures: 0 };
    const notifier = createSnsNotifier(sns.sns, sns.topicArn);
    await notifier.publish(buildNotification({ ...input, alert: fired, reason: 'first', now: new Date(0) }));
    await notifier.publish(buildNotification({ ...input, alert: resolved, reason: 'resolved', now: new Date(60_000) }));
    const delivered = await sns.drain();
    const events: SNSEvent[] = delivered.map((m, i) => ({
      Records: [
        {
          EventSource: 'aws:sns',
          EventVersion: '1.0',
          EventSubscriptionArn: `${sns.topicArn}:sub`,
          Sns: {
            Type: 'Notification',
            MessageId: `m-${i}`,
            TopicArn: sns.topicArn,
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
});
