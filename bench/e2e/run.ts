/**
 * End-to-end benchmark of the Lambda as deployed: the built bundle under the real Runtime
 * Interface Client, against real Apache instances on loopback, dynalite, fauxqs and a fake SSM,
 * for 10, 100 and 1,000 targets at several fetch concurrencies, slow targets spread through the
 * name order; then 500 targets with the slow ones first, spread and last (pace); then the monthly
 * cost from the calls counted in the steady runs. Method and figures: README.md here.
 *
 *   npx tsx bench/e2e/run.ts [--sizes=10,100,1000] [--concurrency=16,64] [--pace=first,spread,last]
 *     [--pace-size=500] [--runs=6] [--import-runs=9]
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
import { MEMORY_SIZES_MB, PACE_RATIO, targetsPerRun } from '../../infra/memorySize.ts';
import { fetchStatusPage } from '../../src/adapters/httpStatusSource.ts';
import { parseReport } from '../../src/core/report/parse.ts';
import { region, startDynalite, startSns } from '../../test/support/emulators.ts';
import { startFakeSsm } from '../../test/support/fakeSsm.ts';
import { buildBundle, buildExternal, importTiming, sizeBreakdown } from './bundle.ts';
import { dollars, monthlyCost, PRICES } from './costModel.ts';
import { startCountingProxy } from './countingProxy.ts';
import { type BenchTarget, SLOW_PLACEMENTS, type SlowPlacement, startFleet, TARGET_KINDS } from './fleet.ts';
import { startLocalLambda } from './lambdaRuntime.ts';

/** The stack's function settings (infra/config.ts defaults), so figures match a deployment. */
const MEMORY_MB = DEFAULT_CONFIG.memoryMb;
const APACHE_INSTANCES = 4;
/** Whole benchmark budget; a run that would pass it is skipped, not waited for. */
const BUDGET_MS = 25 * 60_000;
const INVOKE_TIMEOUT_MS = 120_000;
/** Lambda gives one vCPU at 1,769 MB and CPU in proportion to memory below that. */
const MB_PER_VCPU = 1769;
/** Lambda's own START, END and REPORT lines per invocation, which the function does not write. */
const PLATFORM_LOG_BYTES_PER_RUN = 350;

/** What one steady run consumed, back to back with the one before. */
interface SteadyRun {
  /** The slowest target's fetch: no run is shorter. */
  slowestTargetMs: number;
  cpuMs: number;
  readUnits: number;
  writeUnits: number;
  snsPublishes: number;
  logBytes: number;
}

/** Billed duration at `memoryMb`: the CPU time scaled to that memory's share of a vCPU, or the slowest target if longer. */
const billedMs = (run: SteadyRun, memoryMb: number): number =>
  Math.max(run.slowestTargetMs, (run.cpuMs * MB_PER_VCPU) / memoryMb);

/**
 * The run-level part of a month (Lambda, DynamoDB, logs ingestion, metric series) if every run of
 * it were this steady run, back to back: no checkpoint falls in a few runs, so the month's own
 * bill is `bench/e2e/usage.ts`'s, from runs spaced by the schedule. For comparing memory sizes.
 */
function runLevelCost(run: SteadyRun, emfSeries: number, memoryMb: number): { durationMs: number; total: number } {
  const durationMs = billedMs(run, memoryMb);
  const cost = monthlyCost({
    scheduleMinutes: 1,
    memoryMb,
    invocationsPerTick: 1,
    billedMsPerTick: durationMs,
    readUnitsPerHour: run.readUnits * 60,
    writeUnitsPerHour: run.writeUnits * 60,
    snsPublishesPerHour: run.snsPublishes * 60,
    metricSeries: emfSeries,
    alarms: 0,
    dashboards: 0,
    logBytesPerTick: run.logBytes + PLATFORM_LOG_BYTES_PER_RUN,
    logRetentionDays: 0,
    fleetLogWidgets: 0,
    targetLogWidgets: 0,
    targetLogBytesPerTick: 0,
    dashboardRangeHours: 0,
    dashboardOpensPerDay: 0,
    sqsRequestsPerTick: 0,
    advancedParameters: 0,
    kmsKeys: 0,
  });
  return { durationMs, total: cost.total };
}

/**
 * A steady run of `targets` targets from the measured ones: each counted figure is a line through
 * the smallest and the largest measured size (a fixed part per run plus a part per target).
 */
function steadyRunAt(targets: number, measured: ReadonlyArray<{ targets: number; run: SteadyRun }>): SteadyRun {
  const sorted = [...measured].sort((a, b) => a.targets - b.targets);
  const small = sorted[0];
  const large = sorted.at(-1);
  if (small === undefined || large === undefined) throw new Error('expected at least one measured run, found none');
  const exact = sorted.find((m) => m.targets === targets);
  if (exact !== undefined) return exact.run;
  const at = (pick: (r: SteadyRun) => number): number => {
    if (large.targets === small.targets) return (pick(large.run) * targets) / large.targets;
    const perTarget = (pick(large.run) - pick(small.run)) / (large.targets - small.targets);
    return Math.max(0, pick(small.run) + perTarget * (targets - small.targets));
  };
  return {
    slowestTargetMs: large.run.slowestTargetMs,
    cpuMs: at((r) => r.cpuMs),
    readUnits: at((r) => r.readUnits),
    writeUnits: at((r) => r.writeUnits),
    snsPublishes: at((r) => r.snsPublishes),
    logBytes: at((r) => r.logBytes),
  };
}

function arg(name: string, fallback: string): string {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found === undefined ? fallback : found.slice(name.length + 3);
}
const ints = (text: string) =>
  text
    .split(',')
    .filter((v) => v !== '')
    .map((v) => Number.parseInt(v, 10));

const SIZES = ints(arg('sizes', '10,100,1000'));
const CONCURRENCIES = ints(arg('concurrency', '16,64'));
const PACE_PLACEMENTS = arg('pace', 'first,spread,last')
  .split(',')
  .filter((p): p is SlowPlacement => p in SLOW_PLACEMENTS);
const PACE_SIZE = Number(arg('pace-size', '500'));
const PACE_CONCURRENCY = 16;
const RUNS = Number(arg('runs', '6'));
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
  readUnits: number;
  writeUnits: number;
  /** When the last slow target's request reached Apache, in ms after the invocation began: what order costs. */
  lastSlowStartMs: number;
  ssm: Record<string, number>;
  dynamodb: Record<string, number>;
  sns: Record<string, number>;
  summary: string;
}

interface ConfigRecord {
  targets: number;
  concurrency: number;
  placement: SlowPlacement;
  /** `size`: the fleet-size series the cost model reads; `pace`: the slow-target placements. */
  purpose: 'size' | 'pace';
  initMs: number;
  peakRssMb: number;
  /** Custom metric series defined by the EMF documents of all runs (each billed as one metric). */
  emfSeries: number;
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
      'unbundled: src/lambda/handler.ts via tsx': [HANDLER_ENTRY, ['--import', 'tsx'], importEnv],
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
    const all = fleet.targets(Math.max(...SIZES, PACE_SIZE));
    const one = async (t: BenchTarget) => {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        const result = await fetchStatusPage({ name: t.name, url: t.url, allowLoopback: true });
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

    // 5. The handler under the RIC: one process per configuration, several runs in it (warm).
    const measure = async (n: number, c: number, placement: SlowPlacement, purpose: 'size' | 'pace'): Promise<void> => {
      if (Date.now() - started > BUDGET_MS) {
        console.log(`budget spent: skipping ${n} targets at concurrency ${c}, slow ${placement}`);
        return;
      }
      const prefix = `/bench/n${n}-${placement}`;
      for (const t of fleet.targets(n, placement))
        ssm.put(`${prefix}/targets/${t.name}`, JSON.stringify({ url: t.url, allowLoopback: true }));
      const table = `state-n${n}-c${c}-${placement}`;
      await dynamo.createTable(table);
      // The stack's environment (its defaults: configuration cache, TARGET_METRICS) but the endpoints.
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
          NODE_OPTIONS: '--enable-source-maps',
        },
      });
      const record: ConfigRecord = {
        targets: n,
        concurrency: c,
        placement,
        purpose,
        initMs: 0,
        peakRssMb: 0,
        emfSeries: 0,
        runs: [],
      };
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
          const startedAt = Date.now();
          const out = await lambda.invoke(scheduledEvent(), INVOKE_TIMEOUT_MS);
          const slowStarts = await fleet.slowStarts(startedAt);
          await sns.drain();
          record.runs.push({
            run: i,
            ms: out.ms,
            ok: out.ok,
            cpuMs: lambda.cpuMs() - cpu0,
            logBytes: lambda.logBytes() - log0,
            readUnits: dynamoProxy.capacity.read,
            writeUnits: dynamoProxy.capacity.write,
            lastSlowStartMs: slowStarts.length === 0 ? Number.NaN : (slowStarts.at(-1) as number) - startedAt,
            ssm: { ...ssm.calls },
            dynamodb: { ...dynamoProxy.calls },
            sns: { ...snsProxy.calls },
            summary: out.body.slice(0, 300),
          });
          const last = record.runs.at(-1) as RunRecord;
          console.log(
            `n=${n} c=${c} slow ${placement} run ${i}: ${r0(last.ms)} ms, last slow start +${r0(last.lastSlowStartMs)} ms, cpu ${last.cpuMs} ms, ssm ${sum(last.ssm)}, ` +
              `ddb ${JSON.stringify(last.dynamodb)} RCU ${r1(last.readUnits)} WCU ${r1(last.writeUnits)}, ` +
              `sns ${sum(last.sns)}, log ${last.logBytes} B ${out.ok ? '' : `ERROR ${last.summary}`}`,
          );
        }
        record.peakRssMb = lambda.peakRssMb();
        record.emfSeries = lambda.emfSeries().size;
        console.log(`n=${n} c=${c}: EMF series ${[...lambda.emfSeries()].join(' ')}`);
      } finally {
        await lambda.stop();
      }
      results.configs.push(record);
    };
    for (const n of SIZES) for (const c of CONCURRENCIES) await measure(n, c, SLOW_PLACEMENTS.spread, 'size');
    for (const placement of PACE_PLACEMENTS) await measure(PACE_SIZE, PACE_CONCURRENCY, placement, 'pace');
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
  const steady = (c: ConfigRecord) => c.runs.slice(2);
  console.log(
    '\n| targets | concurrency | slow targets | init ms | cold run ms (/ slowest) | warm median ms | warm / slowest | CPU ms per warm run | peak RSS MB | log KB per run | EMF series |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const c of results.configs) {
    const warmMs = median(steady(c).map((r) => r.ms));
    const cold = c.runs[0]?.ms ?? Number.NaN;
    console.log(
      `| ${c.targets} | ${c.concurrency} | ${c.placement} | ${r0(c.initMs)} | ${r0(cold)} (${r1(cold / slowest)}x) | ${r0(warmMs)} | ${(warmMs / slowest).toFixed(2)}x | ${r0(median(steady(c).map((r) => r.cpuMs)))} | ${r0(c.peakRssMb)} | ${r1(median(steady(c).map((r) => r.logBytes)) / 1024)} | ${c.emfSeries} |`,
    );
  }
  console.log(
    '\n| targets | concurrency | slow targets | run | ms | / slowest | last slow target started (ms after the run began) |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const c of results.configs) {
    for (const r of c.runs)
      console.log(
        `| ${c.targets} | ${c.concurrency} | ${c.placement} | ${r.run} | ${r0(r.ms)} | ${(r.ms / slowest).toFixed(2)}x | ${r0(r.lastSlowStartMs)} |`,
      );
  }
  console.log(
    '\n| targets | concurrency | slow targets | run | SSM calls | DynamoDB calls | read units | write units | SNS Publish |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const c of results.configs) {
    for (const r of c.runs) {
      console.log(
        `| ${c.targets} | ${c.concurrency} | ${c.placement} | ${r.run} | ${sum(r.ssm)} | ${Object.entries(r.dynamodb)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} | ${r1(r.readUnits)} | ${r1(r.writeUnits)} | ${r.sns.Publish ?? 0} |`,
      );
    }
  }
  // Capacity: CPU per target scaled to the stack's memory.
  for (const c of results.configs) {
    const cpuPerTarget = median(steady(c).map((r) => r.cpuMs)) / c.targets;
    console.log(
      `n=${c.targets} c=${c.concurrency} slow ${c.placement}: CPU ${r1(cpuPerTarget)} ms/target ` +
        `(x${r1(MB_PER_VCPU / MEMORY_MB)} at ${MEMORY_MB} MB = ${r1((cpuPerTarget * MB_PER_VCPU) / MEMORY_MB)} ms/target)`,
    );
  }
  // Cost: the median steady run of each size at the stack's concurrency, slow targets spread.
  const costed = results.configs.filter((c) => c.purpose === 'size' && c.concurrency === PACE_CONCURRENCY);
  if (costed.length === 0) return;
  console.log(
    `\nRun-level cost per month if every run were the median steady run, back to back (${MEMORY_MB} MB, list prices of ${PRICES.asOf}; the month's bill, checkpoints and all: npx tsx bench/e2e/usage.ts):`,
  );
  for (const c of costed) {
    const runs = steady(c);
    const cost = runLevelCost(
      {
        slowestTargetMs: slowest,
        cpuMs: median(runs.map((r) => r.cpuMs)),
        readUnits: median(runs.map((r) => r.readUnits)),
        writeUnits: median(runs.map((r) => r.writeUnits)),
        snsPublishes: median(runs.map((r) => r.sns.Publish ?? 0)),
        logBytes: median(runs.map((r) => r.logBytes)),
      },
      c.emfSeries,
      MEMORY_MB,
    );
    console.log(`- ${c.targets} targets: ${r0(cost.durationMs)} ms billed a run, ${dollars(cost.total)} a month`);
  }
  memoryTable(results, costed, slowest);
  sideBySide(results.configs, slowest);
}

/** What `npm run bench:parser` wrote just before (bench/results/latest.json), if it ran. */
interface ParserResults {
  date: string;
  html1024: { vsCheerio: number; vsFloor: number };
  perTarget?: Array<{ page: string; cpuMsPerTarget: number; limitMs: number }>;
  /** Per form, CPU per slot at 20,000 over 1,024 slots, the two timed in alternation (older results lack it). */
  linear?: Array<{ form: string; alternatedRatio?: number }>;
  load?: { before: number[]; after: number[] };
}

/**
 * The issue's figures in one table: per-target CPU (in process and end to end), the 1,000-target
 * warm run against its slowest target, the parse ratios and linearity. `npm run bench` runs the parser part
 * first, so its results are read back here.
 */
function sideBySide(configs: ConfigRecord[], slowest: number): void {
  const file = new URL('../results/latest.json', import.meta.url);
  let parser: ParserResults | null = null;
  try {
    parser = JSON.parse(readFileSync(file, 'utf8')) as ParserResults;
  } catch {
    parser = null;
  }
  const steady = (c: ConfigRecord) => c.runs.slice(2);
  const thousand = configs.find(
    (c) => c.purpose === 'size' && c.targets === 1000 && c.concurrency === PACE_CONCURRENCY,
  );
  console.log(
    '\nSide by side (load average now: ' +
      loadavg()
        .map((l) => l.toFixed(1))
        .join(' ') +
      '):',
  );
  console.log('\n| figure | value | target |\n|---|---|---|');
  for (const p of parser?.perTarget ?? [])
    console.log(
      `| CPU per target, steady warm run in process, ${p.page} | ${p.cpuMsPerTarget.toFixed(3)} ms | <= ${p.limitMs} ms |`,
    );
  if (thousand !== undefined) {
    const warm = median(steady(thousand).map((r) => r.ms));
    const cpu = median(steady(thousand).map((r) => r.cpuMs));
    console.log(
      `| CPU per target, 1,000-target warm run end to end (bundle, SDK, HTTP) | ${(cpu / 1000).toFixed(2)} ms | - |`,
    );
    console.log(
      `| 1,000-target warm run / slowest target (slow spread, broken among them, c=${PACE_CONCURRENCY}, ${MEMORY_MB} MB) | ${(warm / slowest).toFixed(2)}x | <= 1.5x |`,
    );
  }
  if (parser !== null) {
    console.log(
      `| parse, 1,024-slot HTML, x faster than cheerio (${parser.date}) | ${parser.html1024.vsCheerio.toFixed(0)}x | >= 40x |`,
    );
    console.log(`| parse, 1,024-slot HTML, x the line-split floor | ${parser.html1024.vsFloor.toFixed(1)}x | <= 15x |`);
    const linear = (parser.linear ?? []).filter((l) => l.alternatedRatio !== undefined);
    if (linear.length > 0)
      console.log(
        `| parse, CPU per slot at 20,000 over 1,024 slots (timed in alternation) | ${linear.map((l) => `${l.form} ${(l.alternatedRatio as number).toFixed(2)}`).join(', ')} | <= 1.5 each |`,
      );
  }
}

/** The fleets the memory table prices; sizes not run are extrapolated from the measured ones. */
const FLEETS = [10, 100, 1000, 10_000] as const;

/**
 * Targets per run at each memory size from the largest measured run's CPU per target, and the
 * monthly cost of 10 / 100 / 1,000 / 10,000 targets at each size (one function; past what a size
 * holds the run outgrows the 1.5x pace, past the 60 s timeout it must shard).
 */
function memoryTable(results: { configs: ConfigRecord[] }, costed: ConfigRecord[], slowest: number): void {
  const steady = (c: ConfigRecord) => c.runs.slice(2);
  const measured = costed.map((c) => {
    const runs = steady(c);
    return {
      targets: c.targets,
      emfSeries: c.emfSeries,
      run: {
        slowestTargetMs: slowest,
        cpuMs: median(runs.map((r) => r.cpuMs)),
        readUnits: median(runs.map((r) => r.readUnits)),
        writeUnits: median(runs.map((r) => r.writeUnits)),
        snsPublishes: median(runs.map((r) => r.sns.Publish ?? 0)),
        logBytes: median(runs.map((r) => r.logBytes)),
      },
    };
  });
  const largest = measured.at(-1);
  if (largest === undefined) return;
  const cpuPerTarget = largest.run.cpuMs / largest.targets;
  console.log(
    `\nMemory sizes: targets one warm run keeps within ${PACE_RATIO}x of the slowest target (${r0(slowest)} ms), ` +
      `at ${cpuPerTarget.toFixed(2)} ms of CPU per target on one core (${largest.targets} targets, median steady run; ${results.configs.length} configurations run):`,
  );
  console.log(
    `\n| memory | vCPU share | targets per run | ${FLEETS.map((n) => `${n} targets: run ms, $ a month`).join(' | ')} |`,
  );
  console.log(`|---|---|---|${FLEETS.map(() => '---').join('|')}|`);
  for (const memoryMb of MEMORY_SIZES_MB) {
    const cells = FLEETS.map((n) => {
      const run = steadyRunAt(n, measured);
      const cost = runLevelCost(run, largest.emfSeries, memoryMb);
      const over = cost.durationMs > 60_000 ? ' (over the 60 s timeout: shard)' : '';
      const ran = measured.some((m) => m.targets === n) ? '' : ' (extrapolated)';
      return `${r0(cost.durationMs)} ms, ${dollars(cost.total)}${ran}${over}`;
    });
    console.log(
      `| ${memoryMb} MB | ${(Math.min(memoryMb, MB_PER_VCPU) / MB_PER_VCPU).toFixed(2)} | ${targetsPerRun(memoryMb, cpuPerTarget, slowest)} | ${cells.join(' | ')} |`,
    );
  }
}

await main();
