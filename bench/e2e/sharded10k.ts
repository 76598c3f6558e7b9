/**
 * 10,000 targets in sharded mode, in one process: the dispatch (configuration validated, stored
 * chunked, shards sent to SQS) and every shard consumed, twice (the first pass writes each new
 * target once; the second is a steady run), with DynamoDB calls counted through a proxy.
 * Targets answer from one loopback server with a real `?auto` capture. fauxqs stands in for SQS
 * and SNS, dynalite for DynamoDB.
 *
 * npx tsx bench/e2e/sharded10k.ts [targets]   (default 10000)
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoStateTable } from '../../src/adapters/dynamoStateStore.ts';
import { fetchStatusPage } from '../../src/adapters/httpStatusSource.ts';
import { createSnsNotifier } from '../../src/adapters/snsNotifier.ts';
import { createSqsShardQueue } from '../../src/adapters/sqsShardQueue.ts';
import type { CycleDeps } from '../../src/app/ports.ts';
import { consumeShards, dispatchShards } from '../../src/app/shards.ts';
import type { RawConfig } from '../../src/core/monitorConfig.ts';
import { credentials, region, startDynalite, startSns } from '../../test/support/emulators.ts';
import { startCountingProxy } from './countingProxy.ts';

const COUNT = Number(process.argv[2] ?? 10_000);
const PER_SHARD = 500;
const AUTO = readFileSync(
  new URL('../../test/fixtures/apache-2.4.71/prefork-idle/report.auto.txt', import.meta.url),
  'latin1',
);

async function main() {
  const [dynamo, sns] = await Promise.all([startDynalite(), startSns()]);
  await dynamo.createTable('bench');
  const proxy = await startCountingProxy(dynamo.endpoint);
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: proxy.endpoint, region, credentials }), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(AUTO));
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/server-status?auto`;
  const sqs = new SQSClient({ endpoint: sns.endpoint, region, credentials });
  const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'bench-shards' }))).QueueUrl as string;

  const raw: RawConfig = { targets: {}, rules: {}, silences: {} };
  for (let i = 0; i < COUNT; i++)
    raw.targets[`/b/targets/web-${String(i).padStart(5, '0')}`] = JSON.stringify({
      url,
      labels: { env: 'prod' },
      allowLoopback: true,
    });
  const deps: CycleDeps = {
    config: { loadRaw: async () => raw, getSecret: async () => '' },
    secretScope: { prefix: '/b', sharedSecretParameters: [] },
    table: createDynamoStateTable(doc, 'bench'),
    notifier: createSnsNotifier(sns.sns, sns.topicArn),
    fetch: (t) => fetchStatusPage(t),
    metrics: { target: () => {}, run: () => {} },
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    concurrency: 32,
    evaluate: {},
    claimLeaseMs: 300_000,
    warm: new Map(),
    warmConfig: { applied: null },
  };
  const queue = createSqsShardQueue(sqs, queueUrl);
  const rows: string[] = [];

  for (const pass of ['first (new targets)', 'steady']) {
    proxy.reset();
    const now = new Date();
    let t = performance.now();
    const dispatched = await dispatchShards(deps, queue, now, { perShard: PER_SHARD, scheduledAt: now.toISOString() });
    const dispatchMs = performance.now() - t;
    const dispatchCalls = { ...proxy.calls };
    const pointer = await deps.table.getMeta('last-valid-config');
    proxy.reset();
    t = performance.now();
    let checked = 0;
    let slowestShardMs = 0;
    for (;;) {
      const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1 }));
      const message = got.Messages?.[0];
      if (message === undefined) break;
      const started = performance.now();
      const out = await consumeShards(
        [{ messageId: message.MessageId as string, body: message.Body as string }],
        deps,
        new Date(),
        600,
      );
      slowestShardMs = Math.max(slowestShardMs, performance.now() - started);
      checked += out.summaries.reduce((n, s) => n + s.targets, 0);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle as string }));
    }
    const consumeMs = performance.now() - t;
    const writes = (proxy.calls.PutItem ?? 0) + (proxy.calls.DeleteItem ?? 0) + (proxy.calls.UpdateItem ?? 0);
    rows.push(
      `| ${pass} | ${dispatched.targets} | ${dispatched.shards} | ${Math.round(dispatchMs)} ms (${JSON.stringify(dispatchCalls)}) | ${pointer?.value.chunks} | ${checked} | ${Math.round(consumeMs)} ms, slowest shard ${Math.round(slowestShardMs)} ms | ${proxy.calls.BatchGetItem ?? 0} | ${writes} |`,
    );
  }
  process.stdout.write(
    [
      `Sharded mode, ${COUNT} targets, ${PER_SHARD} per shard, shards consumed one after another in one process:`,
      '',
      '| pass | targets dispatched | shards | dispatch (DynamoDB calls) | config chunks | targets checked | consume | BatchGetItem | writes |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
  sqs.destroy();
  page.closeAllConnections();
  page.close();
  await Promise.all([proxy.stop(), dynamo.stop(), sns.stop()]);
}

await main();
