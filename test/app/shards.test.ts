/**
 * Sharded mode with real parts: dispatch through SQS (fauxqs), consume the messages back, pages
 * through SNS (fauxqs) and state in dynalite.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoStateTable } from '../../src/adapters/dynamoStateStore.ts';
import { fetchStatusPage } from '../../src/adapters/httpStatusSource.ts';
import { createSnsNotifier } from '../../src/adapters/snsNotifier.ts';
import { createSqsShardQueue } from '../../src/adapters/sqsShardQueue.ts';
import type { CycleDeps } from '../../src/app/ports.ts';
import { consumeShards, dispatchShards, planShards } from '../../src/app/shards.ts';
import { buildMonitorConfig, type RawConfig } from '../../src/core/monitorConfig.ts';
import { credentials, type LocalDynamo, type LocalSns, region, startDynalite, startSns } from '../support/emulators.ts';

const BUSY = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-busy/report.html', import.meta.url), 'latin1');
const IDLE = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-idle/report.html', import.meta.url), 'latin1');
const RULES = JSON.stringify({
  rules: [{ name: 'closing-seen', metric: 'slots_closing', op: '>=', threshold: 3, severity: 'critical' }],
});

function rawWith(count: number, url: string, extra: Record<string, unknown> = {}): RawConfig {
  const targets: Record<string, string> = {};
  for (let i = 0; i < count; i++)
    targets[`/p/targets/web-${String(i).padStart(2, '0')}`] = JSON.stringify({ url, ...extra });
  return { targets, rules: { '/p/rules/r': RULES }, silences: {} };
}

describe('planShards', () => {
  it('splits the targets by name into shards, each with every rule', () => {
    const raw = rawWith(23, 'http://127.0.0.1:1/');
    const shards = planShards(raw, buildMonitorConfig(raw), 10, 'run-1', '2026-11-22T12:00:00Z');
    expect(shards.map((s) => [s.shard, Object.keys(s.raw.targets).length])).toEqual([
      [{ index: 0, count: 3 }, 10],
      [{ index: 1, count: 3 }, 10],
      [{ index: 2, count: 3 }, 3],
    ]);
    expect(Object.keys(shards[2]?.raw.targets ?? {})).toEqual([
      '/p/targets/web-20',
      '/p/targets/web-21',
      '/p/targets/web-22',
    ]);
    expect(shards.every((s) => s.raw.rules['/p/rules/r'] === RULES && s.runId === 'run-1')).toBe(true);
  });

  it('halves a shard that would not fit in one SQS message', () => {
    const raw = rawWith(8, 'http://127.0.0.1:1/');
    for (const key of Object.keys(raw.targets)) {
      raw.targets[key] = JSON.stringify({ url: 'http://127.0.0.1:1/', labels: { note: 'x'.repeat(250) } }).padEnd(
        100_000,
        ' ',
      );
    }
    const shards = planShards(raw, buildMonitorConfig(raw), 500, 'run-2', '2026-11-22T12:00:00Z');
    expect(shards.map((s) => Object.keys(s.raw.targets).length)).toEqual([2, 2, 2, 2]);
    expect(shards.every((s) => Buffer.byteLength(JSON.stringify(s)) < 256 * 1024)).toBe(true);
  });
});

describe('dispatch and consume through SQS', () => {
  let dynamo: LocalDynamo;
  let sns: LocalSns;
  let page: Server;
  let url: string;
  let sqs: SQSClient;
  let queueUrl: string;

  beforeAll(async () => {
    [dynamo, sns] = await Promise.all([startDynalite(), startSns()]);
    await dynamo.createTable('shards');
    page = createServer((req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(req.url?.endsWith('/idle') ? IDLE : BUSY),
    );
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/server-status`;
    sqs = new SQSClient({ endpoint: sns.endpoint, region, credentials });
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'shards' }))).QueueUrl as string;
  });
  afterAll(async () => {
    sqs.destroy();
    page.closeAllConnections();
    await Promise.all([dynamo.stop(), sns.stop(), new Promise<void>((resolve) => page.close(() => resolve()))]);
  });

  function deps(raw: RawConfig): CycleDeps {
    return {
      config: { loadRaw: async () => raw, getSecret: async () => '' },
      table: createDynamoStateTable(dynamo.doc, 'shards'),
      notifier: createSnsNotifier(sns.sns, sns.topicArn, { sleep: async () => {} }),
      fetch: (t) => fetchStatusPage(t),
      metrics: { target: () => {}, run: () => {} },
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      concurrency: 8,
      evaluate: {},
      claimLeaseMs: 60_000,
      warm: new Map(),
    };
  }

  async function receiveAll(): Promise<Array<{ messageId: string; body: string }>> {
    const out: Array<{ messageId: string; body: string }> = [];
    for (;;) {
      const got = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      if (!got.Messages?.length) return out;
      for (const m of got.Messages) out.push({ messageId: m.MessageId as string, body: m.Body as string });
    }
  }

  it('the scheduled run sends one message per shard; shards group their pages across shards', async () => {
    const raw = rawWith(25, url);
    const d = deps(raw);
    const now = new Date('2026-11-22T12:00:00Z');
    const dispatched = await dispatchShards(d, createSqsShardQueue(sqs, queueUrl), now, {
      perShard: 10,
      scheduledAt: now.toISOString(),
    });
    expect(dispatched).toEqual({ mode: 'dispatch', shards: 3, targets: 25, configError: null });
    expect(await sns.drain()).toEqual([]); // dispatch fetches nothing

    const records = await receiveAll();
    expect(records).toHaveLength(3);
    const consumed = await consumeShards(records, d, new Date(now.getTime() + 5_000), 60);
    expect(consumed.batchItemFailures).toEqual([]);
    expect(consumed.summaries.map((s) => s.targets)).toEqual([10, 10, 5]);
    // The first shard opens the rule's group and pages its 10 targets at once; the other shards'
    // alerts join the standing page and wait for the group interval.
    const first = await sns.drain();
    expect(first.map((p) => p.subject)).toEqual([
      '[FIRING critical] closing-seen on 10 targets: web-00, web-01, web-02, web-03, web-04, web-05, ...',
    ]);
    expect(JSON.parse(first[0]?.body as string).alerts).toHaveLength(10);

    // A retried shard sends nothing twice.
    const again = await consumeShards(records.slice(0, 1), d, new Date(now.getTime() + 6_000), 60);
    expect(again.batchItemFailures).toEqual([]);
    expect(await sns.drain()).toEqual([]);

    // The dispatch five minutes later pages the group's update: every alert, 15 of them new.
    const later = new Date(now.getTime() + 5 * 60_000 + 5_000);
    await dispatchShards(d, createSqsShardQueue(sqs, queueUrl), later, {
      perShard: 10,
      scheduledAt: later.toISOString(),
    });
    const update = await sns.drain();
    expect(update).toHaveLength(1);
    const alerts = JSON.parse(update[0]?.body as string).alerts as Array<{ target: string; new: boolean }>;
    expect(alerts.map((a) => a.target)).toEqual(Object.keys(raw.targets).map((k) => k.slice(k.lastIndexOf('/') + 1)));
    expect(alerts.filter((a) => a.new)).toHaveLength(15);
    await receiveAll(); // the second dispatch's shards, not consumed here
  });

  it('10,000 targets: validated, stored in chunks under the item limit, dispatched in 20 shards; a shard runs', async () => {
    const raw = rawWith(10_000, `${url}/idle`, { labels: { env: 'prod', team: 'web' } });
    for (const [i, key] of Object.keys(raw.targets).entries())
      raw.targets[key.replace(/web-\d+$/, `fleet-${String(i).padStart(5, '0')}`)] = raw.targets[key] as string;
    for (const key of Object.keys(raw.targets)) if (/web-\d+$/.test(key)) delete raw.targets[key];
    const d = deps(raw);
    const now = new Date('2026-11-22T13:00:00Z');
    const dispatched = await dispatchShards(d, createSqsShardQueue(sqs, queueUrl), now, {
      perShard: 500,
      scheduledAt: now.toISOString(),
    });
    expect(dispatched).toEqual({ mode: 'dispatch', shards: 20, targets: 10_000, configError: null });
    const pointer = await d.table.getMeta('last-valid-config');
    // The previous test's 25 targets were resolved (below); their grouped records, and so their
    // removal, stay until their group can no longer hold a page of them.
    expect(pointer?.value).toMatchObject({
      chunks: 1,
      removing: Array.from({ length: 25 }, (_, i) => `web-${String(i).padStart(2, '0')}`),
    });
    const chunk = await d.table.getMeta(`config#${pointer?.value.chunksId}#0`);
    expect(String(chunk?.value.data).length).toBeLessThan(300_000); // far under DynamoDB's 400 KB
    const records = await receiveAll();
    expect(records).toHaveLength(20);
    const consumed = await consumeShards(records.slice(0, 1), d, new Date(now.getTime() + 5_000), 60);
    expect(consumed.batchItemFailures).toEqual([]);
    expect(consumed.summaries.map((s) => [s.targets, s.down, s.failed])).toEqual([[500, 0, 0]]);
    // Nothing fires on the idle fleet; the previous test's 25 targets left the configuration while
    // firing: the dispatch resolved them, in one page for their group.
    const pages = await sns.drain();
    expect(pages.map((p) => p.subject)).toEqual([
      '[RESOLVED critical] closing-seen on 25 targets: web-00, web-01, web-02, web-03, web-04, web-05, ...',
    ]);
    const alerts = JSON.parse(pages[0]?.body as string).alerts as Array<{ status: string }>;
    expect(alerts.map((a) => a.status)).toEqual(Array(25).fill('resolved'));
  }, 300_000);

  it('drops a stale shard and returns an unreadable one for a retry', async () => {
    const raw = rawWith(2, url);
    const stale = planShards(raw, buildMonitorConfig(raw), 10, 'run-old', '2026-11-22T11:00:00Z')[0];
    const result = await consumeShards(
      [
        { messageId: 'stale', body: JSON.stringify(stale) },
        { messageId: 'garbage', body: '{"version":2}' },
      ],
      deps(raw),
      new Date('2026-11-22T12:00:00Z'),
      60,
    );
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'garbage' }]);
    expect(result.summaries).toEqual([]);
    expect(await sns.drain()).toEqual([]);
  });
});
