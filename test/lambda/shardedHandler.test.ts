/**
 * The two Lambda entries as deployed: `src/lambda/shardedHandler.ts` dispatching and consuming through
 * SQS (fauxqs) with pages through SNS (fauxqs) and state in dynalite, SSM through
 * aws-sdk-client-mock; and each entry refusing the other mode's environment or events.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { credentials, type LocalDynamo, type LocalSns, region, startDynalite, startSns } from '../support/emulators.ts';

const BUSY = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-busy/report.html', import.meta.url), 'latin1');
const PREFIX = '/hsa-shards';
const TARGETS = 12;
const context = {
  functionName: 'httpd-status-alerts',
  awsRequestId: 'req-1',
  getRemainingTimeInMillis: () => 60_000,
} as unknown as Context;

type Handler = (event: unknown, context: Context) => Promise<unknown>;

/** A fresh import of an entry, so it reads the environment stubbed now. */
async function entry(module: 'handler' | 'shardedHandler'): Promise<Handler> {
  vi.resetModules();
  const loaded = (await import(`../../src/lambda/${module}.ts`)) as { handler: Handler };
  return loaded.handler;
}

const QUIET = { POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'SILENT' };
const BASE = { SSM_PREFIX: PREFIX, TOPIC_ARN: 'arn:aws:sns:eu-west-1:000000000000:t', STATE_TABLE: 'state', ...QUIET };

function stubEnvironment(values: Partial<Record<string, string>>): void {
  for (const [name, value] of Object.entries(values)) if (value !== undefined) vi.stubEnv(name, value);
}

describe('each entry refuses the other mode', () => {
  afterEach(() => vi.unstubAllEnvs());

  it.each([
    {
      case: 'src/lambda/handler.ts with SHARD_MODE=sqs',
      module: 'handler' as const,
      env: { SHARD_MODE: 'sqs', SHARD_QUEUE_URL: 'http://127.0.0.1:1/q' },
      error:
        'invalid environment: SHARD_MODE: expected none for src/lambda/handler.ts, found sqs (sharded mode deploys src/lambda/shardedHandler.ts)',
    },
    {
      case: 'src/lambda/shardedHandler.ts without SHARD_MODE',
      module: 'shardedHandler' as const,
      env: {},
      error:
        'invalid environment: SHARD_MODE: expected sqs for src/lambda/shardedHandler.ts, found none; SHARD_QUEUE_URL: expected the shard queue URL, found none',
    },
  ])('$case fails at start-up', async ({ module, env, error }) => {
    stubEnvironment({ ...BASE, ...env });
    await expect(entry(module)).rejects.toThrow(error);
  });

  it('src/lambda/handler.ts given an SQS event says what it expected', async () => {
    stubEnvironment(BASE);
    const handler = await entry('handler');
    const event = { Records: [{ eventSource: 'aws:sqs', messageId: 'm-1', body: '{}' }] };
    await expect(handler(event, context)).rejects.toThrow(
      'expected a scheduled event, found an SQS event (sharded mode deploys src/lambda/shardedHandler.ts)',
    );
  });
});

describe('src/lambda/shardedHandler.ts through SQS, SNS and DynamoDB', () => {
  let dynamo: LocalDynamo;
  let sns: LocalSns;
  let sqs: SQSClient;
  let queueUrl: string;
  let page: Server;
  const ssm = mockClient(SSMClient);

  beforeAll(async () => {
    [dynamo, sns] = await Promise.all([startDynalite(), startSns()]);
    await dynamo.createTable('sharded');
    sqs = new SQSClient({ endpoint: sns.endpoint, region, credentials });
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'handler-shards' }))).QueueUrl as string;
    page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(BUSY));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/server-status`;
    // Five targets in their own parameters, the others in one list document that the two shards split.
    const parameters = [
      ...Array.from({ length: 5 }, (_, i) => ({
        Name: `${PREFIX}/targets/web-${String(i).padStart(2, '0')}`,
        Value: JSON.stringify({ url, allowLoopback: true }),
      })),
      {
        Name: `${PREFIX}/targets/list-0001`,
        Value: JSON.stringify({
          targets: Array.from({ length: TARGETS - 5 }, (_, i) => ({
            name: `web-${String(i + 5).padStart(2, '0')}`,
            url,
            allowLoopback: true,
          })),
        }),
      },
      {
        Name: `${PREFIX}/rules/closing`,
        Value: JSON.stringify({
          // One page per alert: this checks each shard's targets; grouping across shards: shards.test.ts.
          rules: [
            {
              name: 'closing-seen',
              metric: 'slots_closing',
              op: '>=',
              threshold: 3,
              severity: 'critical',
              groupBy: [],
            },
          ],
        }),
      },
    ];
    ssm.on(GetParametersByPathCommand).callsFake((input: { Path: string }) => ({
      Parameters: parameters.filter((p) => p.Name.startsWith(`${input.Path}/`)).map((p) => ({ ...p, Type: 'String' })),
    }));
    stubEnvironment({
      ...BASE,
      TOPIC_ARN: sns.topicArn,
      STATE_TABLE: 'sharded',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_SNS: sns.endpoint,
      AWS_ENDPOINT_URL_SQS: sns.endpoint,
      SHARD_MODE: 'sqs',
      SHARD_QUEUE_URL: queueUrl,
      TARGETS_PER_SHARD: '10',
      SHARD_MAX_AGE_SECONDS: '60',
    });
  }, 60_000);

  afterAll(async () => {
    ssm.restore();
    vi.unstubAllEnvs();
    sqs?.destroy();
    page?.closeAllConnections();
    await Promise.all([dynamo?.stop(), sns?.stop(), new Promise<void>((resolve) => page?.close(() => resolve()))]);
  });

  it('a scheduled event dispatches the shards; each SQS event checks one and pages for its targets', async () => {
    const handler = await entry('shardedHandler');
    const scheduled = { source: 'aws.events', 'detail-type': 'Scheduled Event', time: new Date().toISOString() };
    expect(await handler(scheduled, context)).toEqual({
      mode: 'dispatch',
      shards: 2,
      targets: TARGETS,
      configError: null,
    });
    expect(await sns.drain()).toEqual([]);

    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    const records = (received.Messages ?? []).map((m) => ({
      eventSource: 'aws:sqs',
      messageId: m.MessageId as string,
      body: m.Body as string,
    }));
    expect(records).toHaveLength(2);
    // Each shard carries the list with only its own entries.
    const listed = records.map((r) => {
      const raw = (JSON.parse(r.body) as { raw: { targets: Record<string, string> } }).raw.targets;
      return (
        JSON.parse(raw[`${PREFIX}/targets/list-0001`] ?? '{"targets":[]}') as { targets: Array<{ name: string }> }
      ).targets.map((t) => t.name);
    });
    expect(listed.flat().sort()).toEqual(
      Array.from({ length: TARGETS - 5 }, (_, i) => `web-${String(i + 5).padStart(2, '0')}`),
    );
    expect(listed.every((names) => names.length > 0)).toBe(true);
    for (const record of records)
      expect(await handler({ Records: [record] }, context)).toEqual({ batchItemFailures: [] });

    const pages = await sns.drain();
    expect(pages.map((p) => p.attributes.target).sort()).toEqual(
      Array.from({ length: TARGETS }, (_, i) => `web-${String(i).padStart(2, '0')}`),
    );
    expect(new Set(pages.map((p) => p.attributes.rule))).toEqual(new Set(['closing-seen']));
  });
});
