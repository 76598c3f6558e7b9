/**
 * The unmodified PagerDuty forwarder entry, fed SNS Lambda events whose messages the real notifier
 * built (its Publish captured through aws-sdk-client-mock, the `lambda` variant taken as SNS
 * would deliver it), posting to a loopback stand-in of the Events API; SSM through
 * aws-sdk-client-mock.
 */
import { PublishCommand, type PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { Context, SNSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSnsNotifier } from '../../src/adapters/snsNotifier.ts';
import { fingerprint } from '../../src/core/alerts/fingerprint.ts';
import { stepAlert } from '../../src/core/alerts/step.ts';
import type { Notification } from '../../src/core/alerts/types.ts';
import { buildNotification } from '../../src/core/notify/build.ts';
import { parseRulesDocuments } from '../../src/core/rules/document.ts';
import type { Rule } from '../../src/core/rules/types.ts';
import { loadReport } from '../core/support/reports.ts';
import { credentials, type LocalDynamo, region, startDynalite } from '../support/emulators.ts';
import { type PagerDutyStandIn, startPagerDutyStandIn } from '../support/pagerDutyStandIn.ts';

const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:alerts';
const KEY_PARAMETER = '/hsa-test/secrets/pagerduty-routing-key';
const ROUTING_KEY = 'R0UT1NGKEY0000000000000000000000';
const T0 = new Date('2026-11-22T12:00:00Z');
const T1 = new Date('2026-11-22T12:05:00Z');

const context = {
  functionName: 'httpd-status-alerts-pagerduty',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:httpd-status-alerts-pagerduty',
  memoryLimitInMB: '128',
  awsRequestId: 'req-1',
  logGroupName: '/aws/lambda/httpd-status-alerts-pagerduty',
  logStreamName: 'stream',
  getRemainingTimeInMillis: () => 30_000,
  callbackWaitsForEmptyEventLoop: false,
} as unknown as Context;

const RULE = parseRulesDocuments([
  {
    source: 't',
    text: JSON.stringify({
      rules: [{ name: 'closing-pileup', metric: 'slots_closing', op: '>=', threshold: 20, severity: 'critical' }],
    }),
  },
])[0] as Rule;
const observation = { kind: 'report', report: loadReport('prefork-busy/report.html') } as const;

function notificationsFor(target: string): { firing: Notification; resolved: Notification } {
  const fired = stepAlert(null, RULE, target, { kind: 'value', value: 23, holds: true }, T0);
  const resolved = stepAlert(fired, RULE, target, { kind: 'value', value: 2, holds: false }, T1);
  const input = { rule: RULE, target, labels: {}, observation, consecutiveFailures: 0 };
  return {
    firing: buildNotification({ ...input, alert: fired, reason: 'first', now: T0 }),
    resolved: buildNotification({ ...input, alert: resolved, reason: 'resolved', now: T1 }),
  };
}

/** Publishes through the real notifier and returns the SNS Lambda event SNS would deliver. */
async function snsEventOf(...notifications: Notification[]): Promise<SNSEvent> {
  const sns = mockClient(SNSClient);
  sns.on(PublishCommand).resolves({ MessageId: 'm' });
  try {
    const notifier = createSnsNotifier(new SNSClient({}), TOPIC_ARN);
    for (const n of notifications) await notifier.publish(n);
    const inputs = sns.commandCalls(PublishCommand).map((call) => call.args[0].input as PublishCommandInput);
    return {
      Records: inputs.map((input, i) => ({
        EventSource: 'aws:sns',
        EventVersion: '1.0',
        EventSubscriptionArn: `${TOPIC_ARN}:0f1e2d3c`,
        Sns: {
          Type: 'Notification',
          MessageId: `message-${i}`,
          TopicArn: TOPIC_ARN,
          Subject: input.Subject ?? '',
          // MessageStructure json: a Lambda subscriber receives the `lambda` variant.
          Message: (JSON.parse(input.Message as string) as { lambda: string }).lambda,
          Timestamp: T0.toISOString(),
          SignatureVersion: '1',
          Signature: 'EXAMPLE',
          SigningCertUrl: 'https://sns.eu-west-1.amazonaws.com/cert.pem',
          UnsubscribeUrl: 'https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe',
          MessageAttributes: Object.fromEntries(
            Object.entries(input.MessageAttributes ?? {}).map(([k, v]) => [
              k,
              { Type: 'String', Value: v.StringValue ?? '' },
            ]),
          ),
        },
      })),
    };
  } finally {
    sns.restore();
  }
}

describe('PagerDuty forwarder entry', () => {
  let api: PagerDutyStandIn;
  const ssm = mockClient(SSMClient);
  let dynamo: LocalDynamo;
  let handler: (event: SNSEvent, context: Context) => Promise<{ sent: number }>;

  beforeAll(async () => {
    [api, dynamo] = await Promise.all([startPagerDutyStandIn(), startDynalite()]);
    await dynamo.createTable('hsa-state');
    vi.stubEnv('STATE_TABLE', 'hsa-state');
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamo.endpoint);
    vi.stubEnv('AWS_REGION', region);
    vi.stubEnv('AWS_ACCESS_KEY_ID', credentials.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', credentials.secretAccessKey);
    ssm.on(GetParameterCommand, { Name: KEY_PARAMETER }).resolves({
      Parameter: { Name: KEY_PARAMETER, Type: 'SecureString', Value: ROUTING_KEY },
    });
    vi.stubEnv('PAGERDUTY_ROUTING_KEY_PARAMETER', KEY_PARAMETER);
    vi.stubEnv('PAGERDUTY_EVENTS_URL', api.url);
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'SILENT');
    ({ handler } = await import('../../src/lambda/pagerDutyHandler.ts'));
  });
  afterAll(async () => {
    ssm.restore();
    vi.unstubAllEnvs();
    await Promise.all([api.stop(), dynamo.stop()]);
  });
  beforeEach(() => {
    api.requests.length = 0;
  });

  it('triggers, then resolves the same incident: equal dedup_keys, the decrypted routing key, SSM read once', async () => {
    // Prepare
    const web1 = notificationsFor('web-1');

    // Act
    await handler(await snsEventOf(web1.firing), context);
    await handler(await snsEventOf(web1.resolved), context);

    // Assess
    const bodies = api.requests.map((r) => r.body as Record<string, unknown>);
    expect(bodies.map((b) => [b.routing_key, b.event_action, b.dedup_key])).toEqual([
      [ROUTING_KEY, 'trigger', fingerprint('web-1', 'closing-pileup')],
      [ROUTING_KEY, 'resolve', fingerprint('web-1', 'closing-pileup')],
    ]);
    expect(bodies[0]?.payload).toMatchObject({
      summary: '[FIRING critical] web-1: closing-pileup (23 >= 20)',
      source: 'web-1',
      severity: 'critical',
      // As published, the report text shown as the text page shows it.
      custom_details: {
        ...web1.firing.payload,
        offenders: expect.objectContaining({ vhosts: [{ name: 'api[.]example[.]test:18120', count: 3 }] }),
      },
    });
    expect(ssm.commandCalls(GetParameterCommand).map((c) => c.args[0].input)).toEqual([
      { Name: KEY_PARAMETER, WithDecryption: true },
    ]);
  });

  it('sends one event per record, and returns how many it sent', async () => {
    // Prepare
    const event = await snsEventOf(notificationsFor('web-1').firing, notificationsFor('web-2').firing);

    // Act
    const result = await handler(event, context);

    // Assess
    expect(result).toEqual({ sent: 2, dropped: 0, refused: 0 });
    expect(api.requests.map((r) => (r.body as { dedup_key: string }).dedup_key)).toEqual([
      fingerprint('web-1', 'closing-pileup'),
      fingerprint('web-2', 'closing-pileup'),
    ]);
  });

  it('rides out a 429, and fails the invocation when the 5xx persists (Lambda retries it, then the DLQ)', async () => {
    // Prepare
    const event = await snsEventOf(notificationsFor('web-3').firing);
    api.script({ status: 429 });

    // Act / Assess: delivered on the second try.
    await expect(handler(event, context)).resolves.toEqual({ sent: 1, dropped: 0, refused: 0 });
    expect(api.requests).toHaveLength(2);

    // Prepare: four 503s, every attempt the sender makes.
    api.requests.length = 0;
    api.script(...Array.from({ length: 4 }, () => ({ status: 503 })));

    // Act / Assess
    await expect(handler(event, context)).rejects.toThrow(
      `expected every event to reach PagerDuty, found 1 failed: expected PagerDuty to accept trigger ${fingerprint('web-3', 'closing-pileup')}, found HTTP 503 an empty body after 4 attempt(s)`,
    );
    expect(api.requests).toHaveLength(4);
  }, 15_000);

  it('refuses a message that is not an alert message without failing (no retry), sending nothing', async () => {
    // Prepare
    const event = await snsEventOf(notificationsFor('web-1').firing);
    const record = event.Records[0];
    if (record !== undefined) record.Sns.Message = 'hello';

    // Act / Assess
    await expect(handler(event, context)).resolves.toEqual({ sent: 0, dropped: 0, refused: 1 });
    expect(api.requests).toEqual([]);
  });
});
