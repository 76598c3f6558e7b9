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
import { createMemoryStateTable } from '../../src/adapters/memoryStateStore.ts';
import { createSnsNotifier } from '../../src/adapters/snsNotifier.ts';
import { createSqsShardQueue } from '../../src/adapters/sqsShardQueue.ts';
import type { DiscoveryDeps, DiscoverySource } from '../../src/app/discovery/ports.ts';
import type { CycleDeps, ShardMessage, StateTable } from '../../src/app/ports.ts';
import { consumeShards, dispatchShards, planShards, type ShardOutcome } from '../../src/app/shards.ts';
import type { Notification } from '../../src/core/alerts/types.ts';
import { buildMonitorConfig, type RawConfig, renderTargetList } from '../../src/core/monitorConfig.ts';
import { SHARD_BUDGET, SQS_LIMITS } from '../../src/core/sqsLimits.ts';
import { packTargets } from '../../src/core/targetDocuments.ts';
import { createMetricsSink } from '../../src/lambda/metricsSink.ts';
import { credentials, type LocalDynamo, type LocalSns, region, startDynalite, startSns } from '../support/emulators.ts';
import { realisticTargets } from '../support/realisticTargets.ts';

/** The scope of the targets under `/p` (none names a secret). */
const SCOPE = { prefix: '/p', sharedSecretParameters: [] };
const BUSY = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-busy/report.html', import.meta.url), 'latin1');
const IDLE = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-idle/report.html', import.meta.url), 'latin1');
const IDLE_AUTO = readFileSync(
  new URL('../fixtures/apache-2.4.71/prefork-idle/report.auto.txt', import.meta.url),
  'latin1',
);
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
    const shards = planShards(raw, buildMonitorConfig(raw, SCOPE), 10, 'run-1', '2026-11-22T12:00:00Z', 'g1');
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
    expect(
      shards.every((s) => s.raw.rules['/p/rules/r'] === RULES && s.runId === 'run-1' && s.generation === 'g1'),
    ).toBe(true);
  });

  it('carries discovered targets as the dispatch rendered them, by name among the configured ones', () => {
    const raw = rawWith(3, 'http://127.0.0.1:1/');
    const discovered = (ip: string) =>
      JSON.stringify({ url: `http://${ip}/server-status`, labels: { discovery: '/p/discovery/web' } });
    raw.discovered = {
      '/p/discovery/web/web-00a': discovered('10.0.0.1'),
      '/p/discovery/web/web-02a': discovered('10.0.0.2'),
    };
    const shards = planShards(raw, buildMonitorConfig(raw, SCOPE), 2, 'run-d', '2026-11-22T12:00:00Z', 'g1');
    expect(
      shards.map((s) => [Object.keys(s.raw.targets), Object.keys(s.raw.discovered ?? {}), 'discovered' in s.raw]),
    ).toEqual([
      [['/p/targets/web-00'], ['/p/discovery/web/web-00a'], true],
      [['/p/targets/web-01', '/p/targets/web-02'], [], false],
      [[], ['/p/discovery/web/web-02a'], true],
    ]);
    expect(shards[2]?.raw.discovered?.['/p/discovery/web/web-02a']).toBe(discovered('10.0.0.2'));
    // A shard's configuration holds them with their discovery parameter, as the dispatch's did.
    expect(buildMonitorConfig(shards[2]?.raw as RawConfig, SCOPE).targets).toEqual([
      {
        name: 'web-02a',
        url: 'http://10.0.0.2/server-status',
        labels: { discovery: '/p/discovery/web' },
        origin: '/p/discovery/web',
      },
    ]);
  });

  it('fills a shard by bytes when its targets would not fit in one SQS message', () => {
    const raw = rawWith(8, 'http://127.0.0.1:1/');
    for (const key of Object.keys(raw.targets)) {
      raw.targets[key] = JSON.stringify({ url: 'http://127.0.0.1:1/', labels: { note: 'x'.repeat(250) } }).padEnd(
        100_000,
        ' ',
      );
    }
    const shards = planShards(raw, buildMonitorConfig(raw, SCOPE), 500, 'run-2', '2026-11-22T12:00:00Z', 'g1');
    expect(shards.map((s) => Object.keys(s.raw.targets).length)).toEqual([2, 2, 2, 2]);
    expect(shards.every((s) => Buffer.byteLength(JSON.stringify(s)) <= SHARD_BUDGET.messageBytes)).toBe(true);
  });

  it.each<[string, number, number[]]>([
    // [case, targets per shard, targets in each shard]: 5,000 targets of 262-293 bytes
    ['500 a shard fits (about 165 KiB each)', 500, Array(10).fill(500)],
    ['1,000 a shard would be about 330 KiB: filled to the byte budget instead', 1000, [...Array(6).fill(731), 614]],
  ])('realistic targets, %s', (_, perShard, sizes) => {
    const raw: RawConfig = {
      targets: realisticTargets(5000, '/p', 'http://127.0.0.1:1/'),
      rules: { '/p/rules/r': RULES },
      silences: {},
    };
    const shards = planShards(raw, buildMonitorConfig(raw, SCOPE), perShard, 'run-3', '2026-11-22T12:00:00Z', 'g1');
    expect(shards.map((s) => Object.keys(s.raw.targets).length)).toEqual(sizes);
    const sent = shards.flatMap((s) => Object.keys(s.raw.targets));
    expect(sent).toEqual(Object.keys(raw.targets).sort());
    for (const s of shards) expect(Buffer.byteLength(JSON.stringify(s))).toBeLessThanOrEqual(SHARD_BUDGET.messageBytes);
  });

  it('splits list documents by entry: each shard holds only its entries, under their own parameter', () => {
    const entry = (i: number) => ({ name: `web-${String(i).padStart(2, '0')}`, url: 'http://127.0.0.1:1/' });
    const raw: RawConfig = {
      targets: {
        '/p/targets/list-a': JSON.stringify({ targets: [0, 1, 2, 3, 4, 5, 6].map(entry) }),
        '/p/targets/list-b': JSON.stringify({ targets: [7, 8, 9, 10].map(entry) }),
        '/p/targets/web-11': JSON.stringify({ url: 'http://127.0.0.1:1/' }),
      },
      rules: { '/p/rules/r': RULES },
      silences: {},
    };
    const shards = planShards(raw, buildMonitorConfig(raw, SCOPE), 5, 'run-4', '2026-11-22T12:00:00Z', 'g1');
    expect(shards.map((s) => buildMonitorConfig(s.raw, SCOPE).targets.map((t) => t.name))).toEqual([
      ['web-00', 'web-01', 'web-02', 'web-03', 'web-04'],
      ['web-05', 'web-06', 'web-07', 'web-08', 'web-09'],
      ['web-10', 'web-11'],
    ]);
    expect(shards[1]?.raw.targets).toEqual({
      '/p/targets/list-a': JSON.stringify({ targets: [5, 6].map(entry) }),
      '/p/targets/list-b': JSON.stringify({ targets: [7, 8, 9].map(entry) }),
    });
    expect(Object.keys(shards[2]?.raw.targets ?? {})).toEqual(['/p/targets/web-11', '/p/targets/list-b']);
  });

  it('fills a shard of list documents by bytes: full, each under the budget', () => {
    // 5,000 realistic targets in list documents of 13 (a standard parameter's 4 KB).
    const singles = realisticTargets(5000, '/p', 'http://127.0.0.1:1/');
    const documents = Object.entries(singles).map(([parameter, text]) => ({
      name: parameter.slice(parameter.lastIndexOf('/') + 1),
      ...JSON.parse(text),
    }));
    const targets: Record<string, string> = {};
    for (let i = 0; i < documents.length; i += 13)
      targets[`/p/targets/list-${String(i / 13).padStart(4, '0')}`] = JSON.stringify({
        targets: documents.slice(i, i + 13),
      });
    const raw: RawConfig = { targets, rules: { '/p/rules/r': RULES }, silences: {} };
    const shards = planShards(raw, buildMonitorConfig(raw, SCOPE), 1000, 'run-5', '2026-11-22T12:00:00Z', 'g1');
    const names = shards.map((s) => buildMonitorConfig(s.raw, SCOPE).targets.map((t) => t.name));
    expect(names.map((n) => n.length)).toEqual([...Array(6).fill(728), 632]);
    expect(names.flat()).toEqual(documents.map((d) => d.name));
    for (const s of shards) expect(Buffer.byteLength(JSON.stringify(s))).toBeLessThanOrEqual(SHARD_BUDGET.messageBytes);
    // Full: the room left in a full shard is less than the next target (which opens the next list
    // document: its key and brackets too) plus what the plan holds back (the `discovered` folder's
    // name, a comma per list).
    for (const [i, s] of shards.slice(0, -1).entries()) {
      const index = (i + 1) * 728;
      const parameter = `/p/targets/list-${String(index / 13).padStart(4, '0')}`;
      const opening = Buffer.byteLength(
        JSON.stringify({ [parameter]: JSON.stringify({ targets: [documents[index]] }) }),
      );
      const heldBack = Buffer.byteLength(',"discovered":{}') + 728 / 13;
      expect(SHARD_BUDGET.messageBytes - Buffer.byteLength(JSON.stringify(s))).toBeLessThan(opening + heldBack);
    }
  });

  it("carries a list's defaults with the shard's entries: each shard reads the same merged targets", () => {
    const defaults = { url: 'http://127.0.0.1:1/', timeoutMs: 5000, labels: { env: 'prod' } };
    const entry = (i: number) => ({ name: `web-${String(i).padStart(2, '0')}`, labels: { role: `r${i}` } });
    const raw: RawConfig = {
      targets: { '/p/targets/list-a': JSON.stringify({ defaults, targets: [0, 1, 2, 3, 4].map(entry) }) },
      rules: { '/p/rules/r': RULES },
      silences: {},
    };
    const config = buildMonitorConfig(raw, SCOPE);
    const shards = planShards(raw, config, 3, 'run-6', '2026-11-22T12:00:00Z', 'g1');
    expect(shards.map((s) => s.raw.targets)).toEqual([
      { '/p/targets/list-a': JSON.stringify({ defaults, targets: [0, 1, 2].map(entry) }) },
      { '/p/targets/list-a': JSON.stringify({ defaults, targets: [3, 4].map(entry) }) },
    ]);
    expect(shards.flatMap((s) => buildMonitorConfig(s.raw, SCOPE).targets)).toEqual(config.targets);
  });

  it('fills a shard of lists with defaults by bytes, the defaults counted once per shard: full, under the budget', () => {
    // 5,000 realistic targets as `targets pack` writes them on the standard tier (with defaults).
    const singles = realisticTargets(5000, '/p', 'http://127.0.0.1:1/');
    const documents = Object.entries(singles).map(([parameter, text]) => {
      const name = parameter.slice(parameter.lastIndexOf('/') + 1);
      return { name, document: { name, ...JSON.parse(text) } };
    });
    const packs = packTargets(documents, 'standard', '/p/targets', new Set());
    const targets = Object.fromEntries(packs.map((p) => [p.parameter, p.text]));
    const raw: RawConfig = { targets, rules: { '/p/rules/r': RULES }, silences: {} };
    const shards = planShards(raw, buildMonitorConfig(raw, SCOPE), 5000, 'run-7', '2026-11-22T12:00:00Z', 'g1');
    const names = shards.map((s) => buildMonitorConfig(s.raw, SCOPE).targets.map((t) => t.name));
    expect(names.map((n) => n.length)).toEqual([1256, 1254, 1255, 1235]);
    expect(names.flat()).toEqual(documents.map((d) => d.name));
    expect(buildMonitorConfig(shards[0]?.raw as RawConfig, SCOPE).targets[0]).toEqual(
      buildMonitorConfig(raw, SCOPE).targets[0],
    );
    for (const s of shards) expect(Buffer.byteLength(JSON.stringify(s))).toBeLessThanOrEqual(SHARD_BUDGET.messageBytes);
    // Full: the room left is less than the next target opening its list (key, brackets and
    // defaults), plus what the plan holds back (the `discovered` folder's name, a comma per list).
    let first = 0;
    for (const s of shards.slice(0, -1)) {
      first += buildMonitorConfig(s.raw, SCOPE).targets.length;
      const next = documents[first]?.name as string;
      const pack = packs.find((p) => p.names.includes(next));
      const list = JSON.parse(pack?.text as string) as { defaults?: unknown; targets: Array<{ name: string }> };
      const opening = Buffer.byteLength(
        JSON.stringify({
          [pack?.parameter as string]: renderTargetList([list.targets.find((t) => t.name === next)], list.defaults),
        }),
      );
      const heldBack = Buffer.byteLength(',"discovered":{}') + Object.keys(s.raw.targets).length;
      expect(SHARD_BUDGET.messageBytes - Buffer.byteLength(JSON.stringify(s))).toBeLessThan(opening + heldBack);
    }
  });

  it('refuses, saying why, a shard of one target that the rules alone make too large', () => {
    const raw = rawWith(1, 'http://127.0.0.1:1/');
    raw.silences['/p/silences/big'] = 'x'.repeat(SHARD_BUDGET.messageBytes);
    expect(() =>
      planShards(raw, buildMonitorConfig({ ...raw, silences: {} }, SCOPE), 10, 'r', '2026-11-22T12:00:00Z', null),
    ).toThrow(
      /expected a shard message of one target \(web-00\) with every rules and silences parameter to fit in 245760 bytes \(SQS takes 262144\), found 2\d{5} bytes/,
    );
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
      secretScope: SCOPE,
      table: createDynamoStateTable(dynamo.doc, 'shards'),
      notifier: createSnsNotifier(sns.sns, sns.topicArn, { sleep: async () => {} }),
      fetch: (t) => fetchStatusPage(t),
      metrics: { target: () => {}, run: () => {} },
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      concurrency: 8,
      evaluate: {},
      claimLeaseMs: 60_000,
      warm: new Map(),
      warmConfig: { applied: null },
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
    const raw = rawWith(25, url, { allowLoopback: true });
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
    const raw = rawWith(10_000, `${url}/idle`, { labels: { env: 'prod', team: 'web' }, allowLoopback: true });
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
    const raw = rawWith(2, url, { allowLoopback: true });
    const stale = planShards(raw, buildMonitorConfig(raw, SCOPE), 10, 'run-old', '2026-11-22T11:00:00Z', 'g1')[0];
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

describe('5,000 realistic targets through an SQS that enforces its size limits', () => {
  let sns: LocalSns;
  let page: Server;
  let sqs: SQSClient;
  let queueUrl: string;
  /** Each SendMessageBatch call: its entries and their bodies' bytes. */
  const batches: Array<{ entries: number; bytes: number }> = [];

  beforeAll(async () => {
    sns = await startSns();
    page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(IDLE_AUTO));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    sqs = new SQSClient({ endpoint: sns.endpoint, region, credentials });
    sqs.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Entries?: Array<{ MessageBody: string }> };
        if (input.Entries)
          batches.push({
            entries: input.Entries.length,
            bytes: input.Entries.reduce((n, e) => n + Buffer.byteLength(e.MessageBody), 0),
          });
        return next(args);
      },
      { step: 'initialize' },
    );
    // A queue made before SQS raised its default: 256 KiB a message (fauxqs enforces it, and 1 MiB a batch).
    queueUrl = (
      await sqs.send(
        new CreateQueueCommand({
          QueueName: 'shards-256k',
          Attributes: { MaximumMessageSize: String(SQS_LIMITS.messageBytes) },
        }),
      )
    ).QueueUrl as string;
  });
  afterAll(async () => {
    sqs.destroy();
    page.closeAllConnections();
    await Promise.all([sns.stop(), new Promise<void>((resolve) => page.close(() => resolve()))]);
  });

  it('dispatches in batches under 1 MiB and 10 entries; every shard is received and checked', async () => {
    const url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/server-status?auto`;
    const raw: RawConfig = { targets: realisticTargets(5000, '/p', url), rules: { '/p/rules/r': RULES }, silences: {} };
    const secrets: string[] = [];
    const d: CycleDeps = {
      config: {
        loadRaw: async () => raw,
        getSecret: async (name) => {
          secrets.push(name);
          return 'monitor:s3cret';
        },
      },
      secretScope: SCOPE,
      table: createMemoryStateTable(),
      notifier: createSnsNotifier(sns.sns, sns.topicArn, { sleep: async () => {} }),
      fetch: (t) => fetchStatusPage(t),
      metrics: { target: () => {}, run: () => {} },
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      concurrency: 32,
      evaluate: {},
      claimLeaseMs: 60_000,
      warm: new Map(),
      warmConfig: { applied: null },
    };
    const now = new Date('2026-11-22T12:00:00Z');
    const dispatched = await dispatchShards(d, createSqsShardQueue(sqs, queueUrl), now, {
      perShard: 500,
      scheduledAt: now.toISOString(),
    });
    expect(dispatched).toEqual({ mode: 'dispatch', shards: 10, targets: 5000, configError: null });
    // Ten messages of about 165 KiB: one batch of all ten would be past 1 MiB (BatchRequestTooLong).
    expect(batches.reduce((n, b) => n + b.bytes, 0)).toBeGreaterThan(SQS_LIMITS.batchBytes);
    expect(batches.map((b) => b.entries)).toEqual([5, 5]);
    expect(batches.every((b) => b.bytes <= SHARD_BUDGET.batchBytes)).toBe(true);

    const records: Array<{ messageId: string; body: string }> = [];
    for (;;) {
      const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
      if (!got.Messages?.length) break;
      for (const m of got.Messages) records.push({ messageId: m.MessageId as string, body: m.Body as string });
    }
    expect(records).toHaveLength(10);
    const consumed = await consumeShards(records, d, new Date(now.getTime() + 5_000), 60);
    expect(consumed.batchItemFailures).toEqual([]);
    expect(consumed.summaries.reduce((n, s) => n + s.targets, 0)).toBe(5000);
    expect(consumed.summaries.every((s) => s.down === 0 && s.failed === 0)).toBe(true);
    // Every target read its own secret, once.
    expect(new Set(secrets).size).toBe(5000);
  }, 120_000);
});

describe('a shard message delivered after the configuration moved on', () => {
  // One rule per alert (no group waits), closing slots by target: what each fetch answers.
  const perAlert = (name: string) =>
    JSON.stringify({
      rules: [{ name, metric: 'slots_closing', op: '>=', threshold: 1, severity: 'critical', groupBy: [] }],
    });
  const targetsOf = (...names: string[]) =>
    Object.fromEntries(
      names.map((n) => [`/m/targets/${n}`, JSON.stringify({ url: `http://${n}.test/server-status` })]),
    );
  const configOf = (names: string[], rule = 'r0', url?: (name: string) => string): RawConfig => ({
    targets: url
      ? Object.fromEntries(names.map((n) => [`/m/targets/${n}`, JSON.stringify({ url: url(n) })]))
      : targetsOf(...names),
    rules: { '/m/rules/all': perAlert(rule) },
    silences: {},
  });
  const T0 = Date.parse('2026-11-22T12:00:00Z');
  const at = (minute: number, seconds = 0) => new Date(T0 + minute * 60_000 + seconds * 1000);

  function world(initial: RawConfig = configOf(['a0', 'a1']), discovery?: DiscoveryDeps) {
    const table: StateTable & { keys(): string[] } = createMemoryStateTable();
    const pages: Notification[] = [];
    const logs: Array<[string, Record<string, unknown>]> = [];
    const queue: ShardMessage[] = [];
    let raw: RawConfig = initial;
    const deps = (): CycleDeps => ({
      config: { loadRaw: async () => structuredClone(raw), getSecret: async () => '' },
      secretScope: SCOPE,
      table,
      notifier: { publish: async (n) => void pages.push(n) },
      // Two closing slots (every rule fires) except at a moved status page (none close).
      fetch: async (t) => ({
        ok: true,
        body: `Total Accesses: 100\nUptime: 1000\nScoreboard: ${t.url.includes('other') ? '' : 'CC'}________\n`,
        status: 200,
        contentType: 'text/plain',
        latencyMs: 1,
        url: t.url,
      }),
      metrics: { target: () => {}, run: () => {} },
      logger: {
        info: (m, e) => void logs.push([m, e]),
        warn: (m, e) => void logs.push([m, e]),
        error: (m, e) => void logs.push([m, e]),
      },
      concurrency: 2,
      evaluate: {},
      claimLeaseMs: 60_000,
      warm: new Map(),
      warmConfig: { applied: null },
      ...(discovery === undefined ? {} : { discovery }),
    });
    const dispatch = async (now: Date) => {
      await dispatchShards(deps(), { send: async (m) => void queue.push(...m) }, now, {
        perShard: 10,
        scheduledAt: now.toISOString(),
      });
      return queue.splice(0);
    };
    const consume = (messages: ShardMessage[], now: Date) =>
      consumeShards(
        messages.map((m, i) => ({ messageId: `m${i}`, body: JSON.stringify(m) })),
        deps(),
        now,
        600,
      );
    return {
      table,
      pages,
      logs,
      dispatch,
      consume,
      configure: (next: RawConfig) => {
        raw = next;
      },
      said: () => pages.map((p) => `${p.target}/${p.rule} ${p.status}`),
    };
  }

  it.each<{
    name: string;
    /** The configuration the operator sets after the first dispatch's shards were checked. */
    next: RawConfig;
    /** What the pages say after the late copy of the first dispatch's shard is checked. */
    pages: string[];
    /** Target items in the table at the end. */
    items: string[];
  }>([
    {
      name: 'a target removed (and resolved by the next dispatch) is never paged again',
      next: configOf(['a1']),
      pages: ['a0/r0 firing', 'a1/r0 firing', 'a0/r0 resolved'],
      items: ['target#a1'],
    },
    {
      name: "a rule renamed: the old rule's alerts are resolved once and never fire again",
      next: configOf(['a0', 'a1'], 'r1'),
      pages: ['a0/r0 firing', 'a1/r0 firing', 'a0/r0 resolved', 'a1/r0 resolved', 'a0/r1 firing', 'a1/r1 firing'],
      items: ['target#a0', 'target#a1'],
    },
    {
      name: "a target's URL changed: the late copy leaves it to the next dispatch's shard",
      next: configOf(['a0', 'a1'], 'r0', (n) =>
        n === 'a0' ? 'http://a0.test/other-status' : `http://${n}.test/server-status`,
      ),
      pages: ['a0/r0 firing', 'a1/r0 firing', 'a0/r0 resolved'],
      items: ['target#a0', 'target#a1'],
    },
    {
      name: 'nothing changed: the late copy is checked again and pages nothing twice',
      next: configOf(['a0', 'a1']),
      pages: ['a0/r0 firing', 'a1/r0 firing'],
      items: ['target#a0', 'target#a1'],
    },
  ])('$name', async ({ next, pages, items }) => {
    const w = world();
    const first = await w.dispatch(at(0));
    expect((await w.consume(first, at(0, 5))).batchItemFailures).toEqual([]);
    w.configure(next);
    const second = await w.dispatch(at(1));
    expect((await w.consume(second, at(1, 5))).batchItemFailures).toEqual([]);
    // SQS delivers the first dispatch's shard again (a visibility timeout ran out), within its age.
    const late = await w.consume(first, at(2));
    expect(late.batchItemFailures).toEqual([]);
    expect(w.said()).toEqual(pages);
    expect(w.table.keys().filter((k) => k.startsWith('target#'))).toEqual(items);
    // The next dispatch owes nothing: no resolve was left to page.
    await w.consume(await w.dispatch(at(3)), at(3, 5));
    expect(w.said()).toEqual(pages);
  });

  it('a discovered instance scaled in between dispatches: the late copy leaves it to the newer dispatch, never paged again', async () => {
    let instances = ['i-a', 'i-b'];
    const ec2: DiscoverySource<'ec2'> = {
      list: async () => ({
        ok: true,
        listing: {
          instances: instances.map((id) => ({ instanceId: id, privateIp: '10.0.0.1', tags: {} })),
          skipped: [],
          calls: 1,
          throttledRetries: 0,
        },
      }),
    };
    const w = world(undefined, { sources: { ec2 }, warm: new Map(), listingBudgetMs: () => 1000 });
    w.configure({
      targets: {},
      rules: { '/m/rules/all': perAlert('r0') },
      silences: {},
      discovery: {
        '/m/discovery/web': JSON.stringify({
          source: 'ec2',
          filters: { 'tag:Role': ['web'] },
          url: 'http://{{privateIp}}/server-status/{{instanceId}}',
        }),
      },
    });
    const first = await w.dispatch(at(0));
    expect(first.map((m) => [Object.keys(m.raw.targets), Object.keys(m.raw.discovered ?? {})])).toEqual([
      [[], ['/m/discovery/web/i-a', '/m/discovery/web/i-b']],
    ]);
    await w.consume(first, at(0, 5));
    instances = ['i-b'];
    await w.consume(await w.dispatch(at(1)), at(1, 5));
    // SQS delivers the first dispatch's shard again, within its age: i-a is no longer stored.
    expect((await w.consume(first, at(2))).batchItemFailures).toEqual([]);
    await w.consume(await w.dispatch(at(3)), at(3, 5));
    expect(w.said()).toEqual(['i-a/r0 firing', 'i-b/r0 firing', 'i-a/r0 resolved']);
    expect(w.pages.map((p) => p.subject).at(-1)).toBe(
      '[RESOLVED critical] i-a: r0 (target removed from configuration)',
    );
    expect(w.table.keys().filter((k) => k.startsWith('target#'))).toEqual(['target#i-b']);
    expect(
      w.logs.find(([m]) => m === 'shard checked against the configuration stored since its dispatch')?.[1],
    ).toMatchObject({
      leftToNewerDispatch: ['i-a'],
    });
  });

  /** The targets `names` in one list document, `/m/targets/all`; `url` as in `configOf`. */
  const listOf = (names: string[], url = (n: string) => `http://${n}.test/server-status`): RawConfig => ({
    targets: { '/m/targets/all': JSON.stringify({ targets: names.map((name) => ({ name, url: url(name) })) }) },
    rules: { '/m/rules/all': perAlert('r0') },
    silences: {},
  });

  it.each<{ name: string; next: RawConfig; pages: string[]; items: string[] }>([
    {
      name: 'an entry removed from its list is never paged again',
      next: listOf(['a1']),
      pages: ['a0/r0 firing', 'a1/r0 firing', 'a0/r0 resolved'],
      items: ['target#a1'],
    },
    {
      name: "an entry's URL changed: the late copy leaves it to the next dispatch's shard",
      next: listOf(['a0', 'a1'], (n) =>
        n === 'a0' ? 'http://a0.test/other-status' : `http://${n}.test/server-status`,
      ),
      pages: ['a0/r0 firing', 'a1/r0 firing', 'a0/r0 resolved'],
      items: ['target#a0', 'target#a1'],
    },
    {
      name: 'another entry added to the list: the late copy checks its own entries again, pages nothing twice',
      next: listOf(['a0', 'a1', 'a2'], (n) =>
        n === 'a2' ? 'http://a2.test/other-status' : `http://${n}.test/server-status`,
      ),
      pages: ['a0/r0 firing', 'a1/r0 firing'],
      items: ['target#a0', 'target#a1'],
    },
  ])('list documents: $name', async ({ next, pages, items }) => {
    const w = world(listOf(['a0', 'a1']));
    const first = await w.dispatch(at(0));
    expect((await w.consume(first, at(0, 5))).batchItemFailures).toEqual([]);
    w.configure(next);
    expect((await w.consume(await w.dispatch(at(1)), at(1, 5))).batchItemFailures).toEqual([]);
    const late = await w.consume(first, at(2));
    expect(late.batchItemFailures).toEqual([]);
    expect(w.said()).toEqual(pages);
    expect(w.table.keys().filter((k) => k.startsWith('target#'))).toEqual(items);
    const checked = w.logs.find(([m]) => m === 'shard checked against the configuration stored since its dispatch');
    expect(checked?.[1].leftToNewerDispatch).toEqual(pages.length === 3 ? ['a0'] : []);
  });

  /** The targets `names` in one list document with `defaults`, each entry with its `own` fields. */
  const listWithDefaults = (names: string[], defaults: object, own: object = {}): RawConfig => ({
    targets: {
      '/m/targets/all': JSON.stringify({
        defaults,
        targets: names.map((name) => ({ name, url: `http://${name}.test/server-status`, ...own })),
      }),
    },
    rules: { '/m/rules/all': perAlert('r0') },
    silences: {},
  });

  it.each<{ name: string; before: RawConfig; next: RawConfig; left: string[] }>([
    {
      name: 'a default changed: every entry keeping it is left to the next dispatch',
      before: listWithDefaults(['a0', 'a1'], { timeoutMs: 5000 }),
      next: listWithDefaults(['a0', 'a1'], { timeoutMs: 4000 }),
      left: ['a0', 'a1'],
    },
    {
      name: 'a default an entry overrides changed: that entry checked by the late copy, the other left',
      before: {
        targets: {
          '/m/targets/all': JSON.stringify({
            defaults: { timeoutMs: 5000 },
            targets: [
              { name: 'a0', url: 'http://a0.test/server-status', timeoutMs: 2000 },
              { name: 'a1', url: 'http://a1.test/server-status' },
            ],
          }),
        },
        rules: { '/m/rules/all': perAlert('r0') },
        silences: {},
      },
      next: {
        targets: {
          '/m/targets/all': JSON.stringify({
            defaults: { timeoutMs: 4000 },
            targets: [
              { name: 'a0', url: 'http://a0.test/server-status', timeoutMs: 2000 },
              { name: 'a1', url: 'http://a1.test/server-status' },
            ],
          }),
        },
        rules: { '/m/rules/all': perAlert('r0') },
        silences: {},
      },
      left: ['a1'],
    },
    {
      name: 'a label moved from the entries into the defaults: the same targets, the late copy checks them',
      before: listWithDefaults(['a0', 'a1'], { timeoutMs: 5000 }, { labels: { team: 'web' } }),
      next: listWithDefaults(['a0', 'a1'], { timeoutMs: 5000, labels: { team: 'web' } }),
      left: [],
    },
  ])('list defaults: $name', async ({ before, next, left }) => {
    const w = world(before);
    const first = await w.dispatch(at(0));
    expect((await w.consume(first, at(0, 5))).batchItemFailures).toEqual([]);
    w.configure(next);
    expect((await w.consume(await w.dispatch(at(1)), at(1, 5))).batchItemFailures).toEqual([]);
    expect((await w.consume(first, at(2))).batchItemFailures).toEqual([]);
    // Every target still configured and still firing: paged once each, whoever checks it.
    expect(w.said()).toEqual(['a0/r0 firing', 'a1/r0 firing']);
    const checked = w.logs.find(([m]) => m === 'shard checked against the configuration stored since its dispatch');
    expect(checked?.[1].leftToNewerDispatch).toEqual(left);
  });

  it('a message from before messages carried a generation is checked against the stored configuration', async () => {
    const w = world();
    const first = (await w.dispatch(at(0))).map(({ generation: _, ...m }) => m as ShardMessage);
    w.configure(configOf(['a1']));
    await w.consume(await w.dispatch(at(1)), at(1, 5));
    await w.consume(first, at(2));
    expect(w.said()).toEqual(['a1/r0 firing']);
    expect(w.logs.map(([m]) => m)).toContain('shard checked against the configuration stored since its dispatch');
  });
});

describe('a shard that fails alarms: counted, no heartbeat, its redelivery dead-lettered', () => {
  const T0 = Date.parse('2026-11-22T12:00:00Z');
  const raw: RawConfig = {
    targets: {
      '/m/targets/a0': JSON.stringify({ url: 'http://a0.test/server-status' }),
      '/m/targets/a1': JSON.stringify({ url: 'http://a1.test/server-status' }),
    },
    rules: {
      '/m/rules/all': JSON.stringify({
        rules: [{ name: 'r0', metric: 'slots_closing', op: '>=', threshold: 1, severity: 'critical', groupBy: [] }],
      }),
    },
    silences: {},
  };

  /** A fault that lasts from the shard's first delivery on: SNS refusing every page, or DynamoDB every write. */
  type Fault = 'none' | 'sns' | 'dynamodb';

  function world(fault: Fault) {
    const memory = createMemoryStateTable();
    let faulty = false;
    const refuse = (what: string) => {
      throw new Error(`${what} refused (a lasting fault)`);
    };
    const table: StateTable = {
      ...memory,
      put: async (...a) => (faulty && fault === 'dynamodb' ? refuse('PutItem') : memory.put(...a)),
      putMeta: async (...a) => (faulty && fault === 'dynamodb' ? refuse('PutItem') : memory.putMeta(...a)),
    };
    const recorded: Array<[string, number]> = [];
    const logs: string[] = [];
    const deps: CycleDeps = {
      config: { loadRaw: async () => structuredClone(raw), getSecret: async () => '' },
      secretScope: { prefix: '/m', sharedSecretParameters: [] },
      table,
      notifier: {
        publish: async () => {
          if (faulty && fault === 'sns') refuse('Publish (KMS key disabled)');
        },
      },
      fetch: async (t) => ({
        ok: true,
        body: 'Total Accesses: 100\nUptime: 1000\nScoreboard: CC________\n',
        status: 200,
        contentType: 'text/plain',
        latencyMs: 1,
        url: t.url,
      }),
      metrics: createMetricsSink({
        namespace: 'N',
        service: 's',
        wantsTargetMetrics: () => false,
        runMetrics: { addMetric: (name, _unit, value) => void recorded.push([name, value]) },
        write: () => {},
        clock: () => 0,
      }),
      logger: { info: (m) => void logs.push(m), warn: (m) => void logs.push(m), error: (m) => void logs.push(m) },
      concurrency: 2,
      evaluate: {},
      claimLeaseMs: 60_000,
      warm: new Map(),
      warmConfig: { applied: null },
    };
    return {
      deps,
      recorded,
      logs,
      breakNow: () => {
        faulty = true;
      },
    };
  }

  /** The run metrics a consume recorded: heartbeats and failed runs. */
  const runFigures = (recorded: Array<[string, number]>) => ({
    heartbeats: recorded.filter(([n]) => n === 'Heartbeat').length,
    failed: recorded.filter(([n]) => n === 'RunsFailed').reduce((sum, [, v]) => sum + v, 0),
  });

  it.each<[Fault, { first: string[]; redelivered: string[]; heartbeats: number; failed: number }]>([
    // [the fault, records returned to SQS on the first delivery and on the redelivery 65 s later (past the
    //  60 s shard age), heartbeats and failed runs counted over both]
    ['none', { first: [], redelivered: [], heartbeats: 1, failed: 0 }],
    ['sns', { first: ['m0'], redelivered: ['m0'], heartbeats: 0, failed: 2 }],
    ['dynamodb', { first: ['m0'], redelivered: ['m0'], heartbeats: 0, failed: 2 }],
  ])('fault: %s', async (fault, expected) => {
    const w = world(fault);
    const queued: ShardMessage[] = [];
    await dispatchShards(w.deps, { send: async (m) => void queued.push(...m) }, new Date(T0), {
      perShard: 10,
      scheduledAt: new Date(T0).toISOString(),
    });
    w.breakNow();
    const body = JSON.stringify(queued[0]);
    const first = await consumeShards(
      [{ messageId: 'm0', body, attributes: { ApproximateReceiveCount: '1' } }],
      w.deps,
      new Date(T0 + 5_000),
      60,
    );
    // SQS deletes a shard that succeeded; a failed one is visible again at its visibility timeout
    // (the function's timeout), past its tick.
    const redelivered =
      first.batchItemFailures.length === 0
        ? { batchItemFailures: [] }
        : await consumeShards(
            [{ messageId: 'm0', body, attributes: { ApproximateReceiveCount: '2' } }],
            w.deps,
            new Date(T0 + 65_000),
            60,
          );
    expect({
      first: first.batchItemFailures.map((f) => f.itemIdentifier),
      redelivered: redelivered.batchItemFailures.map((f) => f.itemIdentifier),
      ...runFigures(w.recorded),
    }).toEqual(expected);
    if (fault !== 'none')
      expect(w.logs).toContain('stale shard that failed before: returned for the dead-letter queue');
  });

  interface Redelivery {
    firstDelivery: boolean;
    outcome: ShardOutcome | undefined;
    redelivered: string[];
    heartbeats: number;
    failed: number;
    log: string | undefined;
  }

  it.each<[string, Redelivery]>([
    // [case, whether its first delivery was consumed (false: the invocation died before answering,
    //  a timeout), then what its redelivery 65 s later (past the 60 s shard age, receive count 2)
    //  returned, the heartbeats and failed runs counted over both, and the redelivery's log line]
    [
      'a shard that succeeded, delivered again (at-least-once): acknowledged as a duplicate',
      {
        firstDelivery: true,
        outcome: 'stale-duplicate',
        redelivered: [],
        heartbeats: 1,
        failed: 0,
        log: 'stale duplicate of a completed shard acknowledged',
      },
    ],
    [
      'a shard that never completed: dead-lettered',
      {
        firstDelivery: false,
        outcome: 'stale-dead-lettered',
        redelivered: ['m0'],
        heartbeats: 0,
        failed: 1,
        log: 'stale shard that failed before: returned for the dead-letter queue',
      },
    ],
  ])('%s', async (_, expected) => {
    const w = world('none');
    const queued: ShardMessage[] = [];
    await dispatchShards(w.deps, { send: async (m) => void queued.push(...m) }, new Date(T0), {
      perShard: 10,
      scheduledAt: new Date(T0).toISOString(),
    });
    const body = JSON.stringify(queued[0]);
    if (expected.firstDelivery) {
      const first = await consumeShards(
        [{ messageId: 'm0', body, attributes: { ApproximateReceiveCount: '1' } }],
        w.deps,
        new Date(T0 + 5_000),
        60,
      );
      expect(first.batchItemFailures).toEqual([]);
    }
    const redelivered = await consumeShards(
      [{ messageId: 'm0', body, attributes: { ApproximateReceiveCount: '2' } }],
      w.deps,
      new Date(T0 + 65_000),
      60,
    );
    expect({
      firstDelivery: expected.firstDelivery,
      outcome: redelivered.outcomes[0]?.outcome,
      redelivered: redelivered.batchItemFailures.map((f) => f.itemIdentifier),
      ...runFigures(w.recorded),
      log: w.logs.at(-1),
    }).toEqual(expected);
  });
});

describe('consumers count one failed fetch per schedule tick, by the shard message tick', () => {
  const T0 = Date.parse('2026-11-22T12:00:00Z');
  const MIN = 60_000;

  it.each<[string, Array<[tick: number, deliveredAt: number]>, string[]]>([
    // [case, each delivery: (its shard's tick, when it is consumed) in minutes after T0, the pages after each]
    [
      'one shard a tick',
      [
        [0, 0.1],
        [1, 1.1],
      ],
      ['', 'firing target-down'],
    ],
    [
      'a duplicate delivery of one tick',
      [
        [0, 0.1],
        [0, 0.5],
        [1, 1.1],
      ],
      ['', '', 'firing target-down'],
    ],
    [
      "a late shard of the previous tick next to this tick's",
      [
        [0, 0.1],
        [1, 1.1],
        [0, 1.2],
      ],
      ['', 'firing target-down', ''],
    ],
    [
      "out of order: this tick's shard before the previous tick's",
      [
        [1, 1.1],
        [0, 1.2],
        [2, 2.1],
      ],
      ['', '', 'firing target-down'],
    ],
    [
      'the same tick delivered three times',
      [
        [0, 0.1],
        [0, 0.2],
        [0, 0.3],
      ],
      ['', '', ''],
    ],
  ])('%s', async (_, deliveries, expected) => {
    const table = createMemoryStateTable();
    const pages: Notification[] = [];
    const raw: RawConfig = {
      targets: { '/m/targets/web-1': JSON.stringify({ url: 'http://web-1.test/server-status' }) },
      rules: {},
      silences: {},
    };
    const deps: CycleDeps = {
      config: { loadRaw: async () => raw, getSecret: async () => '' },
      secretScope: { prefix: '/m', sharedSecretParameters: [] },
      table,
      notifier: { publish: async (n) => void pages.push(n) },
      fetch: async (t) => ({ ok: false, reason: 'timeout', detail: 'no answer', latencyMs: 1, url: t.url }),
      metrics: { target: () => {}, run: () => {} },
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      concurrency: 1,
      evaluate: { downAfterFailures: 2 },
      claimLeaseMs: 90_000,
      warm: new Map(),
      warmConfig: { applied: null },
    };
    // Every tick's shard, dispatched at its tick (one configuration throughout: one generation).
    const shards = new Map<number, ShardMessage>();
    for (const tick of new Set(deliveries.map(([t]) => t)).values()) {
      const at = new Date(T0 + tick * MIN);
      await dispatchShards(deps, { send: async (m) => void shards.set(tick, m[0] as ShardMessage) }, at, {
        perShard: 10,
        scheduledAt: at.toISOString(),
      });
    }
    const after: string[] = [];
    for (const [i, [tick, deliveredAt]] of deliveries.entries()) {
      const before = pages.length;
      const consumed = await consumeShards(
        [{ messageId: `m${i}`, body: JSON.stringify(shards.get(tick)) }],
        deps,
        new Date(T0 + deliveredAt * MIN),
        600,
      );
      expect(consumed.batchItemFailures).toEqual([]);
      after.push(
        pages
          .slice(before)
          .map((p) => `${p.status} ${p.rule}`)
          .join(', '),
      );
    }
    expect(after).toEqual(expected);
  });
});
