/**
 * Per-target CPU of a steady warm run, in process: `runCycle` with the real parser, rules,
 * grouping, accounting and `target checked` log line, on an in-memory state table, with every
 * fetch answering at once with a pre-rendered page (no network, no AWS SDK: those are the
 * end-to-end benchmark's, bench/e2e). Nothing fires and nothing is written once warm, so what is
 * left is the CPU each target costs the function itself. Then each phase timed alone on the same
 * page: parse, metrics and rules (`evaluateTarget`), the log line.
 *
 *   npx tsx bench/perTarget.ts [--targets=1000] [--runs=8]
 */
import { createMemoryStateTable } from '../src/adapters/memoryStateStore.ts';
import type { CycleDeps } from '../src/app/ports.ts';
import { runCycle } from '../src/app/run.ts';
import { evaluateTarget } from '../src/core/evaluate.ts';
import { buildMonitorConfig, type RawConfig } from '../src/core/monitorConfig.ts';
import { parseReport } from '../src/core/report/parse.ts';
import type { Slot } from '../src/core/report/types.ts';
import { createMetricsSink } from '../src/lambda/metricsSink.ts';
import { generateSlots, modelOf } from '../test/support/generate.ts';
import { renderAuto, renderHtml } from '../test/support/generatePages.ts';
import { measure } from './measure.ts';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;

/**
 * Slots of a healthy server under the stack's default rules: each busy slot from its own client
 * (the generated ones share a few, which `client-concentration` pages) and no lingering close
 * (`closing-pileup`); every other field as generated.
 */
function quietSlots(n: number): Slot[] {
  return generateSlots(n, 'prefork').map((s, i) => ({
    ...s,
    mode: s.mode === 'C' ? '_' : s.mode,
    client: s.client === '' ? '' : `10.0.${i >> 8}.${i & 255}`,
  }));
}

/** The two pages of the targets: a 256-slot `?auto` report and a 1,024-slot HTML page. */
const PAGES = {
  'auto 256': () => renderAuto(modelOf(quietSlots(256), { mpm: 'prefork' })),
  'html 1,024': () => renderHtml(modelOf(quietSlots(1024), { mpm: 'prefork' })),
} as const;
type PageName = keyof typeof PAGES;

/** What the per-target target allows, ms of CPU per target and run. */
const LIMIT_MS: Record<PageName, number> = { 'auto 256': 0.5, 'html 1,024': 1 };

interface PerTargetFigures {
  page: PageName;
  targets: number;
  /** Median over the steady runs of the run's CPU (user + system) divided by its targets. */
  cpuMsPerTarget: number;
  limitMs: number;
  /** Each phase alone on the same page, median ms. */
  phases: { parse: number; evaluate: number; logLine: number };
  /** Lines the sink wrote in the last run (one per target), and their bytes. */
  logBytesPerTarget: number;
}

const T0 = Date.parse('2026-11-22T12:00:00Z');
/** The scope of the targets under `/bench` (none names a secret). */
const SCOPE = { prefix: '/bench', sharedSecretParameters: [] };

function rawConfig(targets: number): RawConfig {
  const raw: RawConfig = { targets: {}, rules: {}, silences: {} };
  for (let i = 0; i < targets; i++) {
    const name = `web-${String(i).padStart(5, '0')}`;
    raw.targets[`/bench/targets/${name}`] = JSON.stringify({ url: `http://127.0.0.1:1/${name}/server-status` });
  }
  return raw;
}

/** A run's deps: every target's fetch answers with `body`; the log line goes to a byte counter. */
function steadyDeps(body: string, targets: number, log: { bytes: number; lines: number }): CycleDeps {
  const raw = rawConfig(targets);
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  return {
    config: { loadRaw: async () => raw, getSecret: async () => '' },
    secretScope: SCOPE,
    table: createMemoryStateTable(),
    notifier: {
      publish: async () => {
        throw new Error('expected a steady run to page nothing, found a page');
      },
    },
    fetch: async (t) => ({ ok: true, body, status: 200, contentType: 'text/html', latencyMs: 3, url: t.url }),
    metrics: createMetricsSink({
      namespace: 'bench',
      service: 'bench',
      wantsTargetMetrics: () => false,
      runMetrics: { addMetric: () => undefined },
      write: (line) => {
        log.bytes += line.length + 1;
        log.lines++;
      },
      clock: () => T0,
    }),
    logger: quiet,
    concurrency: 16,
    evaluate: {},
    claimLeaseMs: 60_000,
    warm: new Map(),
    warmConfig: { applied: null },
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/** Steady runs of `targets` targets all answering `body`: CPU per target, median of the runs after the warm-up. */
async function steadyCpuPerTarget(
  body: string,
  targets: number,
  runs: number,
): Promise<{ ms: number; logBytes: number }> {
  const log = { bytes: 0, lines: 0 };
  const deps = steadyDeps(body, targets, log);
  const perTarget: number[] = [];
  // Run 1 stores the configuration and keeps the quiet targets warm; run 2, 16 minutes later,
  // writes them all (new targets are spread over the 15-minute checkpoint interval); from run 3
  // on, a minute apart, nothing is written: those are timed after one more run to warm the JIT.
  for (let run = 0; run < runs + 3; run++) {
    log.bytes = 0;
    log.lines = 0;
    const before = process.cpuUsage();
    const summary = await runCycle(deps, new Date(T0 + (run === 0 ? 0 : 15 + run) * 60_000));
    const used = process.cpuUsage(before);
    if (summary.targets !== targets || summary.down !== 0)
      throw new Error(`expected ${targets} targets up, found ${summary.targets} checked, ${summary.down} down`);
    if (run >= 3) {
      if (summary.writes !== 0 || summary.sent !== 0)
        throw new Error(`expected a steady run, found ${summary.writes} writes and ${summary.sent} pages`);
      perTarget.push((used.user + used.system) / 1000 / targets);
    }
  }
  return { ms: median(perTarget), logBytes: log.bytes / Math.max(log.lines, 1) };
}

/** Each phase of one target alone, on `body`: parse, evaluate (metrics and rules), the log line. */
function phases(body: string): PerTargetFigures['phases'] {
  const config = buildMonitorConfig(rawConfig(1), SCOPE);
  const report = parseReport(body);
  const evaluate = (previous: ReturnType<typeof evaluateTarget>['state'] | null, minute: number) =>
    evaluateTarget({
      target: 'web-00000',
      observation: { kind: 'report', report },
      rules: config.rules,
      silences: [],
      previous,
      now: new Date(T0 + minute * 60_000),
      countOnlyWhatRulesRead: true, // as the run evaluates
    });
  const first = evaluate(null, 0);
  const sink = createMetricsSink({
    namespace: 'bench',
    service: 'bench',
    wantsTargetMetrics: () => false,
    runMetrics: { addMetric: () => undefined },
    write: () => {},
    clock: () => T0,
  });
  return {
    parse: measure(() => parseReport(body), 800).cpuMedianMs,
    evaluate: measure(() => evaluate(first.state, 1), 800).cpuMedianMs,
    logLine: measure(
      () => sink.target({ target: 'web-00000', up: true, fetchLatencyMs: 3, metrics: first.metrics }),
      400,
    ).cpuMedianMs,
  };
}

async function perTargetFigures(targets: number, runs: number): Promise<PerTargetFigures[]> {
  const out: PerTargetFigures[] = [];
  for (const page of Object.keys(PAGES) as PageName[]) {
    const body = PAGES[page]();
    const steady = await steadyCpuPerTarget(body, targets, runs);
    out.push({
      page,
      targets,
      cpuMsPerTarget: steady.ms,
      limitMs: LIMIT_MS[page],
      phases: phases(body),
      logBytesPerTarget: Math.round(steady.logBytes),
    });
  }
  return out;
}

function printPerTarget(rows: readonly PerTargetFigures[]): void {
  const f = (ms: number) => ms.toFixed(3);
  console.log(
    '\nPer-target CPU of a steady warm run, in process (ms per target and run; phases alone, CPU-time median)',
  );
  console.log('| page | targets | CPU per target | limit | met | parse | metrics + rules | log line | log bytes |');
  console.log('|---|---:|---:|---:|---|---:|---:|---:|---:|');
  for (const r of rows)
    console.log(
      `| ${r.page} | ${r.targets} | ${f(r.cpuMsPerTarget)} | ${r.limitMs} | ${r.cpuMsPerTarget <= r.limitMs ? 'yes' : 'NO'} | ${f(r.phases.parse)} | ${f(r.phases.evaluate)} | ${f(r.phases.logLine)} | ${r.logBytesPerTarget} |`,
    );
}

export type { PerTargetFigures };
export { perTargetFigures, printPerTarget };

if (process.argv[1]?.endsWith('perTarget.ts')) {
  printPerTarget(await perTargetFigures(Number(arg('targets', '1000')), Number(arg('runs', '8'))));
}
