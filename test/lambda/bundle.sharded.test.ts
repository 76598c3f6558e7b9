/**
 * 10,000 realistic targets (an `authParameter` and four labels, 262-293 bytes each) in sharded
 * mode through the synthesized bundle (`-c shardMode=sqs`) under the Lambda runtime interface
 * client: the scheduled event validates, stores and dispatches the configuration into a queue
 * that takes 256 KiB a message (fauxqs enforces it, and 1 MiB a batch); an SQS event runs each
 * shard, every target reading its own secret. fauxqs is SQS and SNS, dynalite DynamoDB.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQS_LIMITS } from '../../src/core/sqsLimits.ts';
import { synth } from '../infra/synth.ts';
import { credentials, type LocalDynamo, type LocalSns, region, startDynalite, startSns } from '../support/emulators.ts';
import { type LambdaProcess, startLambda } from '../support/fakeLambda.ts';
import { type FakeSsm, startFakeSsm } from '../support/fakeSsm.ts';
import { realisticTargets } from '../support/realisticTargets.ts';

const AUTO = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-idle/report.auto.txt', import.meta.url), 'latin1');

describe('10,000 targets through the sharded bundle', () => {
  let dynamo: LocalDynamo;
  let sns: LocalSns;
  let ssm: FakeSsm;
  let sqs: SQSClient;
  let lambda: LambdaProcess;
  let page: Server;

  beforeAll(async () => {
    const { template, outdir } = synth({ shardMode: 'sqs' }, { bundle: true });
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0] as {
      Properties: { Code: { S3Key: string } };
    };
    const assetDir = join(outdir, `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
    [dynamo, sns, ssm] = await Promise.all([startDynalite(), startSns(), startFakeSsm()]);
    await dynamo.createTable('sharded');
    sqs = new SQSClient({ endpoint: sns.endpoint, region, credentials });
    const queueUrl = (
      await sqs.send(
        new CreateQueueCommand({
          QueueName: 'shards',
          Attributes: { MaximumMessageSize: String(SQS_LIMITS.messageBytes) },
        }),
      )
    ).QueueUrl as string;
    page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(AUTO));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/server-status?auto`;
    for (const [name, value] of Object.entries(realisticTargets(10_000, '/shd', url))) {
      ssm.put(name, value);
      ssm.put(name.replace('/targets/', '/secrets/'), 'monitor:s3cret', 'SecureString');
    }
    lambda = await startLambda(
      assetDir,
      {
        AWS_REGION: region,
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        AWS_ENDPOINT_URL_SSM: ssm.endpoint,
        AWS_ENDPOINT_URL_SNS: sns.endpoint,
        AWS_ENDPOINT_URL_SQS: sns.endpoint,
        AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
        SSM_PREFIX: '/shd',
        TOPIC_ARN: sns.topicArn,
        STATE_TABLE: 'sharded',
        SHARD_MODE: 'sqs',
        SHARD_QUEUE_URL: queueUrl,
        TARGETS_PER_SHARD: '500',
        SHARD_MAX_AGE_SECONDS: '3600',
        CONFIG_MAX_AGE_SECONDS: '3600',
        TARGET_METRICS: 'none',
        FETCH_CONCURRENCY: '32',
      },
      { deadlineMs: 600_000 },
    );
  }, 180_000);

  afterAll(async () => {
    await lambda?.stop();
    sqs?.destroy();
    page?.closeAllConnections();
    await Promise.all([
      dynamo?.stop(),
      sns?.stop(),
      ssm?.stop(),
      new Promise<void>((resolve) => (page ? page.close(() => resolve()) : resolve())),
    ]);
  });

  it('the scheduled event dispatches 20 shards; SQS events check all 10,000 targets', async () => {
    const invoke = async (event: unknown) => {
      try {
        return await lambda.invoke(event);
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${lambda.output().slice(-3000)}`);
      }
    };
    expect(await invoke({ source: 'aws.events', time: new Date().toISOString() })).toEqual({
      mode: 'dispatch',
      shards: 20,
      targets: 10_000,
      configError: null,
    });
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'shards' }))).QueueUrl as string;
    const messages = [];
    for (;;) {
      const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
      if (!got.Messages?.length) break;
      messages.push(...got.Messages);
    }
    expect(messages).toHaveLength(20);
    for (const message of messages) {
      const result = await invoke({
        Records: [{ eventSource: 'aws:sqs', messageId: message.MessageId, body: message.Body }],
      });
      expect(result).toEqual({ batchItemFailures: [] });
    }
    const runs = [...lambda.output().matchAll(/"message":"run complete".*?"targets":(\d+),"down":(\d+)/g)];
    expect(runs.map((m) => [Number(m[1]), Number(m[2])])).toEqual(Array(20).fill([500, 0]));
  }, 900_000);
});
