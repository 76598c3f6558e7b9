/**
 * Monthly cost from counted calls: what one steady run consumed (DynamoDB capacity units, SNS
 * publishes, log bytes, CPU and wall time) and the custom metric series the EMF documents define,
 * times the runs of a month, at list prices. Nothing here is estimated per target: when a change
 * to the code changes the calls, the next benchmark run changes the figures.
 */

/**
 * us-east-1 list prices, as checked for the project's first cost model (November 2026). Not
 * re-checked since (this machine has no network): compare with the AWS pricing pages.
 */
const PRICES = {
  asOf: '2026-11',
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerRequest: 0.2 / 1e6,
  dynamoPerWriteUnit: 0.625 / 1e6,
  dynamoPerReadUnit: 0.125 / 1e6,
  customMetricPerMonth: 0.3,
  logsIngestionPerGb: 0.5,
  snsPerPublish: 0.5 / 1e6,
  alarmPerMonth: 0.1,
  dashboardPerMonth: 3,
  kmsKeyPerMonth: 1,
} as const;

/** A one-minute schedule for 30 days. */
const RUNS_PER_MONTH = 43_200;
/** Lambda gives one vCPU at 1,769 MB and CPU in proportion to memory below that. */
const MB_PER_VCPU = 1769;
/** Lambda's own START, END and REPORT lines per invocation, which the function does not write. */
const PLATFORM_LOG_BYTES_PER_RUN = 350;
/** What the stack creates whatever the fleet: 5 alarms, 1 dashboard, 1 KMS key. */
const FIXED_MONTHLY = {
  alarms: 5 * PRICES.alarmPerMonth,
  dashboard: PRICES.dashboardPerMonth,
  kmsKey: PRICES.kmsKeyPerMonth,
} as const;

interface SteadyRun {
  /** The slowest target's fetch: no run is shorter. */
  slowestTargetMs: number;
  cpuMs: number;
  readUnits: number;
  writeUnits: number;
  snsPublishes: number;
  logBytes: number;
}

interface MonthlyCost {
  /**
   * Billed duration at `memoryMb`: the CPU time scaled to that memory's share of a vCPU, or the
   * slowest target if longer. Not the wall time measured on loopback, which waits for emulators
   * sharing the benchmark's cores (DynamoDB answers in milliseconds and costs the function no CPU).
   */
  durationMs: number;
  items: {
    lambda: number;
    dynamoReads: number;
    dynamoWrites: number;
    customMetrics: number;
    logs: number;
    sns: number;
  };
  /** Everything that grows with the fleet or the runs (fixed costs apart). */
  total: number;
}

/**
 * @example
 * monthlyCost({ slowestTargetMs: 1200, cpuMs: 200, readUnits: 101, writeUnits: 100, snsPublishes: 0, logBytes: 30_000 }, 3, 256)
 */
function monthlyCost(run: SteadyRun, emfSeries: number, memoryMb: number): MonthlyCost {
  const durationMs = Math.max(run.slowestTargetMs, (run.cpuMs * MB_PER_VCPU) / memoryMb);
  const items = {
    lambda:
      RUNS_PER_MONTH *
      ((durationMs / 1000) * (memoryMb / 1024) * PRICES.lambdaArmPerGbSecond + PRICES.lambdaPerRequest),
    dynamoReads: RUNS_PER_MONTH * run.readUnits * PRICES.dynamoPerReadUnit,
    dynamoWrites: RUNS_PER_MONTH * run.writeUnits * PRICES.dynamoPerWriteUnit,
    customMetrics: emfSeries * PRICES.customMetricPerMonth,
    logs: (RUNS_PER_MONTH * (run.logBytes + PLATFORM_LOG_BYTES_PER_RUN) * PRICES.logsIngestionPerGb) / 1e9,
    sns: RUNS_PER_MONTH * run.snsPublishes * PRICES.snsPerPublish,
  };
  const total = Object.values(items).reduce((a, b) => a + b, 0);
  return { durationMs, items, total };
}

export type { MonthlyCost, SteadyRun };
export { FIXED_MONTHLY, MB_PER_VCPU, monthlyCost, PLATFORM_LOG_BYTES_PER_RUN, PRICES, RUNS_PER_MONTH };

/**
 * A steady run of `targets` targets from the measured ones: each counted figure is a line through
 * the smallest and the largest measured size (a fixed part per run plus a part per target), so a
 * size that was not run (10,000 targets) is extrapolated from what was counted, not assumed.
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

export { steadyRunAt };
