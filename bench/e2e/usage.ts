/**
 * What a month of real use does, counted: the unmodified Lambda handler (`src/lambda/handler.ts`,
 * in process) runs once per simulated minute, its scheduled event's `time` advancing by the
 * schedule, so checkpoints, spread first writes and every other periodic write fall as they do in
 * a deployment (runs back to back, as `run.ts` times them, almost never reach one). DynamoDB is
 * dynalite behind the counting proxy (capacity units as on-demand bills them), SNS fauxqs behind
 * one, SSM the fake server; the targets are a loopback server answering real Apache pages
 * (a fifth HTML, the rest `?auto`; 2 % of them 404, down for the whole run).
 *
 *   npx tsx bench/e2e/usage.ts                  # 10 and 100 targets, then the template counts; writes usage.json
 *   npx tsx bench/e2e/usage.ts --print          # the tables again from usage.json (prices or assumptions changed)
 *   npx tsx bench/e2e/usage.ts --targets=100    # one size (a child process: the handler reads its environment once)
 *
 * Per size: 15 runs of warm-up (cold start, configuration stored, first writes spread over the
 * checkpoint interval), then 60 runs, one simulated hour, counted. Method and figures:
 * docs/scale.md ("Cost per month").
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'aws-lambda';
import { DEFAULT_CHECKPOINT_INTERVAL_MS, DEFAULT_TARGETS_PER_SHARD } from '../../src/core/constants.ts';
import { region, startDynalite, startSns } from '../../test/support/emulators.ts';
import { startFakeSsm } from '../../test/support/fakeSsm.ts';
import { startCountingProxy } from './countingProxy.ts';
import { type MeasuredUsage, USAGE_FILE } from './fleetUsage.ts';

const WARMUP_RUNS = DEFAULT_CHECKPOINT_INTERVAL_MS / 60_000;
const HOUR_RUNS = 60;
const SIZES = [10, 100] as const;
const FIXTURES = new URL('../../test/fixtures/apache-2.4.71/', import.meta.url);

function arg(name: string): string | undefined {
  return process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** One size, in this process: the hour's counts as JSON on the last line of stdout. */
async function measure(targets: number): Promise<MeasuredUsage['sizes'][number]> {
  const auto = readFileSync(new URL('prefork-idle/report.auto.txt', FIXTURES), 'latin1');
  const html = readFileSync(new URL('prefork-idle/report.html', FIXTURES), 'latin1');
  const server = createServer((req, res) => {
    const i = Number(/^\/t\/(\d+)\//.exec(req.url ?? '')?.[1] ?? -1);
    if (i < 0 || req.url?.includes('/missing/')) {
      res.writeHead(404).end('not found');
      return;
    }
    const isAuto = req.url?.includes('?auto') === true;
    res.writeHead(200, { 'content-type': isAuto ? 'text/plain' : 'text/html' }).end(isAuto ? auto : html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const dynamo = await startDynalite();
  await dynamo.createTable('state');
  const sns = await startSns();
  const ssm = await startFakeSsm();
  const dynamoProxy = await startCountingProxy(dynamo.endpoint);
  const snsProxy = await startCountingProxy(sns.endpoint);
  const prefix = '/usage';
  const down = Math.max(1, Math.round(targets * 0.02));
  for (let i = 0; i < targets; i++) {
    const path = i < down ? `/t/${i}/missing/server-status` : `/t/${i}/server-status${i % 5 === 0 ? '' : '?auto'}`;
    const name = `t-${String(i).padStart(5, '0')}`;
    ssm.put(
      `${prefix}/targets/${name}`,
      JSON.stringify({ url: `http://127.0.0.1:${port}${path}`, allowLoopback: true }),
    );
  }
  Object.assign(process.env, {
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_SSM: ssm.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamoProxy.endpoint,
    AWS_ENDPOINT_URL_SNS: snsProxy.endpoint,
    SSM_PREFIX: prefix,
    TOPIC_ARN: sns.topicArn,
    STATE_TABLE: 'state',
  });
  // The log group's bytes and the EMF series: everything the handler writes to stdout and stderr.
  let logBytes = 0;
  const series = new Set<string>();
  let pending = '';
  const realOut = process.stdout.write.bind(process.stdout);
  const count = (chunk: unknown): boolean => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    logBytes += Buffer.byteLength(text);
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.includes('"_aws"')) continue;
      const doc = JSON.parse(line) as {
        _aws: {
          CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }>;
        };
      } & Record<string, unknown>;
      for (const m of doc._aws.CloudWatchMetrics)
        for (const dims of m.Dimensions)
          for (const metric of m.Metrics)
            series.add(`${m.Namespace}/${metric.Name}/${dims.map((d) => `${d}=${String(doc[d])}`).join(',')}`);
    }
    return true;
  };
  process.stdout.write = count as typeof process.stdout.write;
  process.stderr.write = count as typeof process.stderr.write;
  const { handler } = (await import('../../src/lambda/handler.ts')) as {
    handler: (event: unknown, context: Context) => Promise<unknown>;
  };
  const context = {
    functionName: 'httpd-status-alerts',
    awsRequestId: 'usage',
    getRemainingTimeInMillis: () => 60_000,
  } as unknown as Context;
  // Ticks in the past, a minute apart, the last one now: nothing is later than the clock.
  const t0 = Math.floor(Date.now() / 60_000) * 60_000 - (WARMUP_RUNS + HOUR_RUNS) * 60_000;
  const hour = { readUnits: 0, writeUnits: 0, logBytes: 0, snsPublishes: 0, dynamodb: {} as Record<string, number> };
  for (let i = 0; i < WARMUP_RUNS + HOUR_RUNS; i++) {
    dynamoProxy.reset();
    snsProxy.reset();
    const before = logBytes;
    await handler(
      { 'detail-type': 'Scheduled Event', source: 'aws.events', time: new Date(t0 + i * 60_000).toISOString() },
      context,
    );
    if (i < WARMUP_RUNS) continue;
    hour.readUnits += dynamoProxy.capacity.read;
    hour.writeUnits += dynamoProxy.capacity.write;
    hour.logBytes += logBytes - before;
    hour.snsPublishes += snsProxy.calls.Publish ?? 0;
    for (const [op, n] of Object.entries(dynamoProxy.calls)) hour.dynamodb[op] = (hour.dynamodb[op] ?? 0) + n;
  }
  process.stdout.write = realOut;
  for (const stop of [
    () => dynamoProxy.stop(),
    () => snsProxy.stop(),
    () => ssm.stop(),
    () => sns.stop(),
    () => dynamo.stop(),
  ])
    await stop().catch(() => undefined);
  server.close();
  return {
    targets,
    down,
    runs: HOUR_RUNS,
    readUnits: hour.readUnits,
    writeUnits: hour.writeUnits,
    logBytes: hour.logBytes,
    snsPublishes: hour.snsPublishes,
    dynamodbCalls: hour.dynamodb,
    metricSeries: series.size,
  };
}

/** Alarms, metric filters and Logs Insights widgets of the synthesized template, as deployed with those options. */
async function templateCounts(): Promise<MeasuredUsage['template']> {
  const { synth } = await import('../../test/infra/synth.ts');
  const names = (n: number) => Array.from({ length: n }, (_, i) => `t-${String(i).padStart(5, '0')}`);
  const count = (context: Record<string, unknown>) => {
    const { template } = synth(context);
    const json = template.toJSON() as { Resources: Record<string, { Type: string }> };
    const of = (type: string) => Object.values(json.Resources).filter((r) => r.Type === type).length;
    const body = JSON.stringify(template.findResources('AWS::CloudWatch::Dashboard'));
    return {
      alarms: of('AWS::CloudWatch::Alarm'),
      metricFilters: of('AWS::Logs::MetricFilter'),
      logWidgets: (body.match(/\\"type\\":\\"log\\"/g) ?? []).length,
    };
  };
  return {
    default: count({}),
    dashboard10: count({ dashboardTargets: names(10) }),
    dashboard100: count({ dashboardTargets: names(100) }),
    forwarder: count({ pagerDutyRoutingKeyParameter: '/pagerduty/routing-key' }),
    sharded: count({ shardMode: 'sqs' }),
  };
}

/** The shard messages the dispatch of 10,000 realistic targets sends, and its `SendMessageBatch` batches, in bytes. */
async function shardBytes(): Promise<MeasuredUsage['shards']> {
  const { planShards } = await import('../../src/app/shards.ts');
  const { toBatches } = await import('../../src/adapters/sqsShardQueue.ts');
  const { buildMonitorConfig } = await import('../../src/core/monitorConfig.ts');
  const { defaultRulesDocument } = await import('../../infra/defaultRules.ts');
  const { realisticTargets } = await import('../../test/support/realisticTargets.ts');
  const targets = 10_000;
  const raw = {
    targets: realisticTargets(targets, '/usage', 'http://web.example.internal/server-status'),
    rules: { '/usage/rules/default': defaultRulesDocument() },
    silences: {},
  };
  const config = buildMonitorConfig(raw, { prefix: '/usage', sharedSecretParameters: [] });
  const messages = planShards(raw, config, DEFAULT_TARGETS_PER_SHARD, 'run-usage', new Date().toISOString(), 'g1');
  const bytes = (m: unknown) => Buffer.byteLength(JSON.stringify(m));
  return {
    targets,
    messageBytes: messages.map(bytes),
    batchBytes: toBatches(messages).map((batch) => batch.reduce((sum, e) => sum + Buffer.byteLength(e.MessageBody), 0)),
  };
}

async function main(): Promise<void> {
  if (process.argv.includes('--print')) {
    // The tables again from the stored counts (after a change of prices or assumptions).
    const { printCostTables } = await import('./fleetUsage.ts');
    printCostTables(JSON.parse(readFileSync(USAGE_FILE, 'utf8')) as MeasuredUsage);
    return;
  }
  const one = arg('targets');
  if (one !== undefined) {
    const result = await measure(Number(one));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  }
  const sizes: MeasuredUsage['sizes'] = [];
  for (const n of SIZES) {
    const out = execFileSync('npx', ['tsx', fileURLToPath(import.meta.url), `--targets=${n}`], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const last = out.trim().split('\n').at(-1) ?? '';
    sizes.push(JSON.parse(last) as MeasuredUsage['sizes'][number]);
    console.log(`${n} targets, one hour after ${WARMUP_RUNS} runs of warm-up:`, sizes.at(-1));
  }
  const template = await templateCounts();
  console.log('template:', template);
  const shards = await shardBytes();
  console.log('shards:', shards);
  const measured: MeasuredUsage = {
    date: new Date().toISOString().slice(0, 10),
    loadavg: loadavg(),
    sizes,
    template,
    shards,
  };
  writeFileSync(USAGE_FILE, `${JSON.stringify(measured, null, 2)}\n`);
  console.log(`written: ${USAGE_FILE} (raw copy in ${join(tmpdir(), 'hsa-usage.json')})`);
  writeFileSync(join(tmpdir(), 'hsa-usage.json'), JSON.stringify(measured, null, 2));
  const { printCostTables } = await import('./fleetUsage.ts');
  printCostTables(measured);
}

await main();
