/**
 * End-to-end benchmark of the Lambda as deployed: the built bundle under the real Runtime
 * Interface Client, against real Apache instances on loopback, dynalite, fauxqs and a fake SSM,
 * for 10, 100 and 500 targets at several fetch concurrencies. Method and figures: README.md here.
 *
 *   npx tsx bench/e2e/run.ts [--sizes=10,100,500] [--concurrency=16,64,1] [--runs=5] [--import-runs=9]
 *
 * Loopback only; every loop is bounded in count and time; Apache, the emulators and the runtime
 * processes are stopped at the end, also on failure.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DEFAULT_CONFIG } from '../../infra/config.ts';
import { HANDLER_ENTRY } from '../../infra/constructs/monitorFunction.ts';
import { fetchStatusPage } from '../../src/adapters/httpStatusSource.ts';
import { parseReport } from '../../src/core/report/parse.ts';
import { region, startDynalite, startSns } from '../../test/support/emulators.ts';
import { startFakeSsm } from '../../test/support/fakeSsm.ts';
import { buildBundle, buildExternal, importTiming, sizeBreakdown } from './bundle.ts';
import { startCountingProxy } from './countingProxy.ts';
import { type BenchTarget, startFleet, TARGET_KINDS } from './fleet.ts';
import { startLocalLambda } from './lambdaRuntime.ts';

/** The stack's function settings (infra/config.ts defaults), so figures match a deployment. */
const MEMORY_MB = DEFAULT_CONFIG.memoryMb;
const APACHE_INSTANCES = 4;
/** Whole benchmark budget; a run that would pass it is skipped, not waited for. */
const BUDGET_MS = 20 * 60_000;
const INVOKE_TIMEOUT_MS = 120_000;
/** Lambda gives a function one vCPU at 1,769 MB, and CPU in proportion to memory below that. */
const MB_PER_VCPU = 1769;

function arg(name: string, fallback: string): string {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found === undefined ? fallback : found.slice(name.length + 3);
}
const ints = (text: string) => text.split(',').map((v) => Number.parseInt(v, 10));

const SIZES = ints(arg('sizes', '10,100,500'));
const CONCURRENCIES = ints(arg('concurrency', '16,64,1'));
const RUNS = Number(arg('runs', '5'));
const IMPORT_RUNS = Number(arg('import-runs', '9'));

const median = (xs: number[]) => {
  const s = [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const r0 = (x: number) => Math.round(x);
const r1 = (x: number) => Math.round(x * 10) / 10;
const sum = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);

function scheduledEvent(): Record<string, unknown> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: new Date().toISOString(),
    region,
    resources: ['arn:aws:events:us-east-1:123456789012:rule/httpd-status-alerts-bench'],
    detail: {},
  };
}

interface RunRecord {
  run: number;
  ms: number;
  ok: boolean;
  cpuMs: number;
  logBytes: number;
  ssm: Record<string, number>;
  dynamodb: Record<string, number>;
  sns: Record<string, number>;
  summary: string;
}

interface ConfigRecord {
  targets: number;
  concurrency: number;
  initMs: number;
  peakRssMb: number;
  runs: RunRecord[];
}

async function main(): Promise<void> {
  const started = Date.now();
  const cleanups: Array<() => Promise<void>> = [];
  const results: {
    machine: Record<string, unknown>;
    bundle: Record<string, unknown>;
    imports: Record<string, { importMs: number[]; processMs: number[] }>;
    single: Record<string, number>;
    configs: ConfigRecord[];
  } = {
    machine: {
      node: process.version,
      cpus: cpus().length,
      loadavg: loadavg(),
    },
    bundle: {},
    imports: {},
    single: {},
    configs: [],
  };
  try {
    // 1. The bundle, as `cdk synth` builds it.
    const bundle = await buildBundle();
    for (const dir of bundle.tempDirs) cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const code = readFileSync(bundle.file);
    results.bundle = {
      source: bundle.source,
      file: bundle.file,
      bytes: bundle.bytes,
      gzipBytes: gzipSync(code, { level: 9 }).length,
      synthError: bundle.synthError,
      breakdown: await sizeBreakdown(),
    };
    console.log('bundle', JSON.stringify(results.bundle, null, 2));

    // 2. Import time in fresh processes, variants interleaved so load spikes hit all alike.
    const importEnv = {
      AWS_REGION: region,
      TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:alerts',
      STATE_TABLE: 'state',
      SSM_PREFIX: '/httpd-status-alerts',
    };
    const external = await buildExternal();
    cleanups.push(async () => {
      // Unlink the node_modules symlink first, so nothing can ever reach the project's copy.
      unlinkSync(join(dirname(external), 'node_modules'));
      rmSync(dirname(external), { recursive: true, force: true });
    });
    const variants: Record<string, [string, string[], Record<string, string>]> = {
      'bundle (SDK inside)': [bundle.file, [], importEnv],
      'bundle + --enable-source-maps (as deployed)': [bundle.file, ['--enable-source-maps'], importEnv],
      'our code bundled, packages from node_modules': [external, [], importEnv],
      'unbundled: src/handler.ts via tsx': [HANDLER_ENTRY, ['--import', 'tsx'], importEnv],
    };
    for (const name of Object.keys(variants)) results.imports[name] = { importMs: [], processMs: [] };
    for (let i = 0; i < IMPORT_RUNS; i++) {
      for (const [name, [module, flags, env]] of Object.entries(variants)) {
        const t = await importTiming(module, flags, env, 1);
        results.imports[name]?.importMs.push(...t.importMs);
        results.imports[name]?.processMs.push(...t.processMs);
      }
    }
    for (const [name, t] of Object.entries(results.imports)) {
      console.log(`import ${name}: median ${r0(median(t.importMs))} ms, process ${r0(median(t.processMs))} ms`);
    }

    // 3. The fleet and the emulators, each behind a counting proxy.
    const fleet = await startFleet(APACHE_INSTANCES);
    cleanups.push(() => fleet.stop());
    const dynamo = await startDynalite();
    cleanups.push(() => dynamo.stop());
    const sns = await startSns();
    cleanups.push(() => sns.stop());
    const ssm = await startFakeSsm();
    cleanups.push(() => ssm.stop());
    const dynamoProxy = await startCountingProxy(dynamo.endpoint);
    cleanups.push(() => dynamoProxy.stop());
    const snsProxy = await startCountingProxy(sns.endpoint);
    cleanups.push(() => snsProxy.stop());

    // 4. The slowest single target (fetch + parse) and a normal one, in this process.
    const all = fleet.targets(Math.max(...SIZES));
    const one = async (t: BenchTarget) => {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const result = await fetchStatusPage({ name: t.name, url: t.url });
        if (result.ok) parseReport(result.body);
        times.push(performance.now() - t0);
      }
      return median(times);
    };
    const pick = (kind: string) => all.find((t) => t.kind === kind) as BenchTarget;
    results.single = {
      slowMs: await one(pick(TARGET_KINDS.slow)),
      okMs: await one(pick(TARGET_KINDS.ok)),
      htmlMs: await one(pick(TARGET_KINDS.html)),
      refusedMs: await one(pick(TARGET_KINDS.refused)),
      notFoundMs: await one(pick(TARGET_KINDS.notFound)),
    };
    console.log('single target fetch+parse (median of 3, ms)', results.single);

    // 5. The handler under the RIC for each size and concurrency.
    for (const n of SIZES) {
      const targets = fleet.targets(n);
      const prefix = `/bench/n${n}`;
      for (const t of targets) ssm.put(`${prefix}/targets/${t.name}`, JSON.stringify({ url: t.url }));
      for (const c of CONCURRENCIES) {
        if (Date.now() - started > BUDGET_MS) {
          console.log(`budget spent: skipping ${n} targets at concurrency ${c}`);
          continue;
        }
        const table = `state-n${n}-c${c}`;
        await dynamo.createTable(table);
        const lambda = await startLocalLambda({
          taskRoot: bundle.dir,
          memoryMb: MEMORY_MB,
          env: {
            AWS_REGION: region,
            AWS_ACCESS_KEY_ID: 'test',
            AWS_SECRET_ACCESS_KEY: 'test',
            AWS_ENDPOINT_URL_SSM: ssm.endpoint,
            AWS_ENDPOINT_URL_DYNAMODB: dynamoProxy.endpoint,
            AWS_ENDPOINT_URL_SNS: snsProxy.endpoint,
            SSM_PREFIX: prefix,
            TOPIC_ARN: sns.topicArn,
            STATE_TABLE: table,
            FETCH_CONCURRENCY: String(c),
            // Longer than the whole series, so warm runs show the cache; see README for 60 s.
            CONFIG_MAX_AGE_SECONDS: '600',
            NODE_OPTIONS: '--enable-source-maps',
          },
        });
        const record: ConfigRecord = { targets: n, concurrency: c, initMs: 0, peakRssMb: 0, runs: [] };
        try {
          record.initMs = await lambda.initMs();
          // Sequential runs are long: fewer of them (cold, first pages, then steady).
          const runs = c === 1 ? Math.min(RUNS, 4) : RUNS;
          for (let i = 1; i <= runs; i++) {
            ssm.reset();
            dynamoProxy.reset();
            snsProxy.reset();
            const cpu0 = lambda.cpuMs();
            const log0 = lambda.logBytes();
            const out = await lambda.invoke(scheduledEvent(), INVOKE_TIMEOUT_MS);
            await sns.drain();
            record.runs.push({
              run: i,
              ms: out.ms,
              ok: out.ok,
              cpuMs: lambda.cpuMs() - cpu0,
              logBytes: lambda.logBytes() - log0,
              ssm: { ...ssm.calls },
              dynamodb: { ...dynamoProxy.calls },
              sns: { ...snsProxy.calls },
              summary: out.body.slice(0, 300),
            });
            const last = record.runs.at(-1) as RunRecord;
            console.log(
              `n=${n} c=${c} run ${i}: ${r0(last.ms)} ms, cpu ${last.cpuMs} ms, ssm ${sum(last.ssm)}, ` +
                `ddb ${JSON.stringify(last.dynamodb)}, sns ${sum(last.sns)}, log ${last.logBytes} B ${out.ok ? '' : `ERROR ${last.summary}`}`,
            );
          }
          record.peakRssMb = lambda.peakRssMb();
        } finally {
          await lambda.stop();
        }
        results.configs.push(record);
      }
    }
    report(results);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup', e));
  }
  const file = join(tmpdir(), `hsa-bench-e2e-${Date.now()}.json`);
  writeFileSync(file, JSON.stringify(results, null, 2));
  console.log(`raw results: ${file}`);
}

/** The figures README.md quotes, as Markdown tables. */
function report(results: {
  single: Record<string, number>;
  configs: ConfigRecord[];
  imports: Record<string, { importMs: number[]; processMs: number[] }>;
}): void {
  const slowest = results.single.slowMs ?? Number.NaN;
  console.log(
    '\n| targets | concurrency | init ms | cold run ms | warm median ms | warm / slowest | CPU ms per warm run | peak RSS MB | log KB per run |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const c of results.configs) {
    const warm = c.runs.slice(2);
    const warmMs = median(warm.map((r) => r.ms));
    console.log(
      `| ${c.targets} | ${c.concurrency} | ${r0(c.initMs)} | ${r0(c.runs[0]?.ms ?? Number.NaN)} | ${r0(warmMs)} | ${r1(warmMs / slowest)} | ${r0(median(warm.map((r) => r.cpuMs)))} | ${r0(c.peakRssMb)} | ${r1(median(warm.map((r) => r.logBytes)) / 1024)} |`,
    );
  }
  console.log('\n| targets | concurrency | run | SSM calls | DynamoDB calls | SNS Publish |');
  console.log('|---|---|---|---|---|---|');
  for (const c of results.configs) {
    for (const r of c.runs) {
      console.log(
        `| ${c.targets} | ${c.concurrency} | ${r.run} | ${sum(r.ssm)} | ${Object.entries(r.dynamodb)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} | ${r.sns.Publish ?? 0} |`,
      );
    }
  }
  // Capacity: per-target slot time from the sequential runs; CPU per target scaled to 256 MB.
  for (const c of results.configs) {
    const warm = c.runs.slice(2);
    const perTargetMs = median(warm.map((r) => r.ms)) / c.targets;
    const cpuPerTarget = median(warm.map((r) => r.cpuMs)) / c.targets;
    console.log(
      `n=${c.targets} c=${c.concurrency}: wall ${r1(perTargetMs)} ms/target, CPU ${r1(cpuPerTarget)} ms/target ` +
        `(x${r1(MB_PER_VCPU / MEMORY_MB)} at ${MEMORY_MB} MB = ${r1((cpuPerTarget * MB_PER_VCPU) / MEMORY_MB)} ms/target)`,
    );
  }
}

await main();
