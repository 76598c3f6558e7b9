/**
 * The unmodified handler against a real Apache httpd under load, dynalite and fauxqs (reached only
 * through AWS_ENDPOINT_URL_* variables) and SSM through aws-sdk-client-mock.
 */
import { GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fetchStatusPage } from '../../src/adapters/httpStatusSource.ts';
import { type ApacheInstance, apacheSkipReason, startApache } from '../support/apache.ts';
import { type LocalDynamo, type LocalSns, startDynalite, startSns } from '../support/emulators.ts';
import { slowReplies } from '../support/load.ts';

const skip = apacheSkipReason();
const PREFIX = '/hsa-test';

const context = {
  functionName: 'httpd-status-alerts',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:httpd-status-alerts',
  memoryLimitInMB: '256',
  awsRequestId: 'req-1',
  logGroupName: '/aws/lambda/httpd-status-alerts',
  logStreamName: 'stream',
  getRemainingTimeInMillis: () => 60_000,
  callbackWaitsForEmptyEventLoop: false,
} as unknown as Context;

async function sendingSlots(apache: ApacheInstance): Promise<number> {
  const page = await fetchStatusPage({
    name: 'probe',
    url: `${apache.httpUrl}/server-status?auto`,
    allowLoopback: true,
  });
  if (!page.ok) return -1;
  return ((/^Scoreboard: (.*)$/m.exec(page.body)?.[1] ?? '').match(/W/g) ?? []).length;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe.skipIf(skip !== null)(`handler end to end${skip ? ` (SKIPPED: ${skip})` : ''}`, () => {
  let apache: ApacheInstance;
  let dynamo: LocalDynamo;
  let sns: LocalSns;
  const ssm = mockClient(SSMClient);

  beforeAll(async () => {
    [apache, dynamo, sns] = await Promise.all([startApache({ mpm: 'prefork' }), startDynalite(), startSns()]);
    await dynamo.createTable('alerts');
    const parameters = [
      {
        Name: `${PREFIX}/targets/web-1`,
        Value: JSON.stringify({ url: `${apache.httpUrl}/server-status`, timeoutMs: 3000, allowLoopback: true }),
      },
      {
        Name: `${PREFIX}/rules/sending`,
        Value: JSON.stringify({
          // groupInterval 1s: the resolve follows its group's page within this test's real time.
          rules: [
            {
              name: 'sending-high',
              metric: 'slots_sending',
              op: '>=',
              threshold: 4,
              severity: 'critical',
              groupInterval: '1s',
            },
          ],
        }),
      },
      {
        Name: `${PREFIX}/rules/closing`,
        Value: JSON.stringify({
          rules: [{ name: 'closing-storm', metric: 'slots_closing', op: '>=', threshold: 500 }],
        }),
      },
    ];
    // SSM may return one parameter per page: serve the folder that way.
    ssm.on(GetParametersByPathCommand).callsFake((input: { Path: string; NextToken?: string }) => {
      const inFolder = parameters.filter((p) => p.Name.startsWith(`${input.Path}/`));
      const index = input.NextToken === undefined ? 0 : Number(input.NextToken);
      const page = inFolder.slice(index, index + 1).map((p) => ({ ...p, Type: 'String' }));
      return { Parameters: page, NextToken: index + 1 < inFolder.length ? String(index + 1) : undefined };
    });
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamo.endpoint);
    vi.stubEnv('AWS_ENDPOINT_URL_SNS', sns.endpoint);
    vi.stubEnv('SSM_PREFIX', PREFIX);
    vi.stubEnv('TOPIC_ARN', sns.topicArn);
    vi.stubEnv('STATE_TABLE', 'alerts');
    vi.stubEnv('CONFIG_MAX_AGE_SECONDS', '300');
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'SILENT');
  }, 60_000);

  afterAll(async () => {
    ssm.restore();
    vi.unstubAllEnvs();
    await Promise.all([apache?.stop(), dynamo?.stop(), sns?.stop()]);
  });

  it('fires once under load, stays quiet, resolves once, then pages target-down when Apache stops', async () => {
    const { handler } = await import('../../src/lambda/handler.ts');
    const load = slowReplies({ port: apache.httpPort }, { count: 5, seconds: 6 });
    try {
      await until('5 workers are sending', async () => (await sendingSlots(apache)) >= 5);
      // Act: first invocation fires; a second sends nothing.
      await handler({}, context);
      const first = await sns.drain();
      expect(first.map((m) => m.subject)).toEqual([
        expect.stringMatching(/^\[FIRING critical\] web-1: sending-high \(\d+ >= 4\)$/),
      ]);
      expect(first[0]?.attributes).toEqual({
        severity: 'critical',
        status: 'firing',
        target: 'web-1',
        rule: 'sending-high',
      });
      await handler({}, context);
      expect(await sns.drain()).toEqual([]);
    } finally {
      await load.stop();
    }
    await until('the slow requests are over', async () => (await sendingSlots(apache)) < 4);
    await handler({}, context);
    expect((await sns.drain()).map((m) => m.subject)).toEqual([
      expect.stringMatching(/^\[RESOLVED critical\] web-1: sending-high/),
    ]);
    // SSM was read once, page by page (targets 1, rules 2, silences 1, discovery 1): cached across warm invocations.
    expect(ssm.commandCalls(GetParametersByPathCommand)).toHaveLength(5);
    await apache.stop();
    await handler({}, context);
    expect(await sns.drain()).toEqual([]);
    await handler({}, context);
    const down = await sns.drain();
    expect(down.map((m) => m.subject)).toEqual(['[FIRING critical] web-1: target-down (refused)']);
  }, 90_000);
});
