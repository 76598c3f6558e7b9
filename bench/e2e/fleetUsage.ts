/**
 * From what `usage.ts` counted (one simulated hour of runs at 10 and 100 targets, the template's
 * alarms, metric filters and log widgets, the shard messages of 10,000 targets) to a month of use
 * at any fleet size, then the bill (`costModel.ts`). Pure: the same counts give the same tables,
 * which is what lets test/project/docsConstants check docs/scale.md's totals against them.
 *
 * Scaling: every per-hour count (read and write units, log bytes, publishes) is a line through the
 * two measured sizes, a part per target and a part per invocation; sharded fleets pay the part per
 * invocation once per shard and once for the dispatch, and each shard its completion record.
 */
import { fileURLToPath } from 'node:url';
import { DEFAULT_CONFIG } from '../../infra/config.ts';
import { MAX_DASHBOARD_TARGETS } from '../../infra/constructs/dashboard.ts';
import { MEASURED_CPU_MS_PER_TARGET } from '../../infra/memorySize.ts';
import { DEFAULT_TARGETS_PER_SHARD } from '../../src/core/constants.ts';
import { COST_ITEMS, type CostItem, dollars, type MonthlyUsage, monthlyCost, PRICES } from './costModel.ts';

/** Where `usage.ts` writes its counts, and the docs test reads them. */
const USAGE_FILE = fileURLToPath(new URL('./usage.json', import.meta.url));

interface TemplateCounts {
  alarms: number;
  metricFilters: number;
  logWidgets: number;
}

/** What `usage.ts` counted. */
interface MeasuredUsage {
  date: string;
  loadavg: number[];
  sizes: Array<{
    targets: number;
    /** Targets answering 404 throughout (down, paged once in the warm-up). */
    down: number;
    runs: number;
    /** Over the counted hour. */
    readUnits: number;
    writeUnits: number;
    logBytes: number;
    snsPublishes: number;
    dynamodbCalls: Record<string, number>;
    metricSeries: number;
  }>;
  template: {
    default: TemplateCounts;
    dashboard10: TemplateCounts;
    dashboard100: TemplateCounts;
    forwarder: TemplateCounts;
    sharded: TemplateCounts;
  };
  /** The shard messages of 10,000 realistic targets (262-293 B each) and the `SendMessageBatch` batches they go in. */
  shards: { targets: number; messageBytes: number[]; batchBytes: number[] };
}

interface Assumptions {
  scheduleMinutes: number;
  memoryMb: number;
  logRetentionDays: number;
  slowestTargetMs: number;
  cpuMsPerTarget: number;
  mbPerVcpu: number;
  platformLogBytesPerInvocation: number;
  dashboardOpensPerDay: number;
  dashboardRangeHours: number;
  oneInvocationMaxTargets: number;
  targetsPerShard: number;
  dispatchBilledMs: number;
  idlePollsPerMinute: number;
  forwarder: boolean;
  kmsKeys: number;
}

/** What is assumed, not counted: each says why. */
const ASSUMPTIONS: Assumptions = {
  scheduleMinutes: DEFAULT_CONFIG.scheduleMinutes,
  memoryMb: DEFAULT_CONFIG.memoryMb,
  logRetentionDays: DEFAULT_CONFIG.logRetentionDays,
  /** The slowest target's answer, as bench/e2e's slow targets (1.2 s, `mod_ratelimit`): no run is shorter. */
  slowestTargetMs: 1209,
  /** CPU per target on one vCPU (`MEASURED_CPU_MS_PER_TARGET`, bench/e2e); Lambda gives 1 vCPU at 1,769 MB. */
  cpuMsPerTarget: MEASURED_CPU_MS_PER_TARGET,
  mbPerVcpu: 1769,
  /** Lambda's own START, END and REPORT lines per invocation. */
  platformLogBytesPerInvocation: 350,
  /** A team opening the dashboard ten times a day, without auto-refresh. */
  dashboardOpensPerDay: 10,
  /** The dashboard's default range (`defaultInterval`, infra/constructs/dashboard.ts). */
  dashboardRangeHours: 3,
  /** Past this many targets a deployment shards (docs/scale.md: about 1,000 at 256 MB). */
  oneInvocationMaxTargets: 1000,
  targetsPerShard: DEFAULT_TARGETS_PER_SHARD,
  /** The dispatch: configuration (cached four runs of five), group pages due, `SendMessageBatch`. */
  dispatchBilledMs: 3000,
  /** Lambda's event source mapping long-polls an idle queue with 5 pollers, 20 s a poll. */
  idlePollsPerMinute: 15,
  /** The PagerDuty forwarder is optional (`-c pagerDutyRoutingKeyParameter`): priced apart. */
  forwarder: false,
  /** The topic's customer key. */
  kmsKeys: 1,
};

const CHUNK = 64 * 1024;

/** A line through the two measured sizes: its value at `targets`, and the part that is per invocation. */
function line(
  measured: MeasuredUsage['sizes'],
  pick: (s: MeasuredUsage['sizes'][number]) => number,
): { perTarget: number; perInvocation: number } {
  const sorted = [...measured].sort((a, b) => a.targets - b.targets);
  const small = sorted[0];
  const large = sorted.at(-1);
  if (small === undefined || large === undefined || small.targets === large.targets)
    throw new Error(`expected two measured fleet sizes, found ${sorted.map((s) => s.targets).join(', ') || 'none'}`);
  const perTarget = (pick(large) - pick(small)) / (large.targets - small.targets);
  return { perTarget, perInvocation: Math.max(0, pick(small) - perTarget * small.targets) };
}

/** A month of `targets` targets on the stack's defaults, from the counts. */
function usageAt(targets: number, m: MeasuredUsage, a: Assumptions = ASSUMPTIONS): MonthlyUsage {
  const sharded = targets > a.oneInvocationMaxTargets;
  const shards = sharded ? Math.ceil(targets / a.targetsPerShard) : 0;
  const invocations = sharded ? 1 + shards : 1;
  const runMs = (n: number) => Math.max(a.slowestTargetMs, (n * a.cpuMsPerTarget * a.mbPerVcpu) / a.memoryMb);
  const billedMsPerTick = sharded ? a.dispatchBilledMs + shards * runMs(a.targetsPerShard) : runMs(targets);
  const hourly = (pick: (s: MeasuredUsage['sizes'][number]) => number) => line(m.sizes, (s) => (pick(s) * 60) / s.runs);
  const perHour = (pick: (s: MeasuredUsage['sizes'][number]) => number) => {
    const l = hourly(pick);
    return l.perTarget * targets + l.perInvocation * invocations;
  };
  const ticksPerHour = 60 / a.scheduleMinutes;
  // Each shard that completes writes its completion record (one small item: 1 write unit).
  const writeUnitsPerHour = perHour((s) => s.writeUnits) + shards * ticksPerHour;
  const t = m.template;
  const shown = Math.min(targets, MAX_DASHBOARD_TARGETS);
  const widgetsPerTarget = (t.dashboard100.logWidgets - t.dashboard10.logWidgets) / 90;
  const fleetLogWidgets = t.dashboard10.logWidgets - 10 * widgetsPerTarget;
  const extra = (what: keyof TemplateCounts) =>
    (a.forwarder ? t.forwarder[what] - t.default[what] : 0) + (sharded ? t.sharded[what] - t.default[what] : 0);
  const metricSeries =
    Math.max(...m.sizes.map((s) => s.metricSeries)) + t.default.metricFilters + extra('metricFilters');
  const scale = targets / m.shards.targets;
  const sqsRequestsPerTick = sharded
    ? scale *
        (m.shards.batchBytes.reduce((sum, b) => sum + Math.ceil(b / CHUNK), 0) +
          m.shards.messageBytes.reduce((sum, b) => sum + Math.ceil(b / CHUNK) + 1, 0)) +
      a.idlePollsPerMinute * a.scheduleMinutes
    : 0;
  return {
    scheduleMinutes: a.scheduleMinutes,
    memoryMb: a.memoryMb,
    invocationsPerTick: invocations,
    billedMsPerTick,
    readUnitsPerHour: perHour((s) => s.readUnits),
    writeUnitsPerHour,
    snsPublishesPerHour: perHour((s) => s.snsPublishes),
    metricSeries,
    alarms: t.default.alarms + extra('alarms'),
    dashboards: 1,
    logBytesPerTick: perHour((s) => s.logBytes) / ticksPerHour + invocations * a.platformLogBytesPerInvocation,
    logRetentionDays: a.logRetentionDays,
    fleetLogWidgets,
    targetLogWidgets: shown * widgetsPerTarget,
    // A target's own lines: the part of the log bytes per target (the platform's lines name none).
    targetLogBytesPerTick: hourly((s) => s.logBytes).perTarget / ticksPerHour,
    dashboardRangeHours: a.dashboardRangeHours,
    dashboardOpensPerDay: a.dashboardOpensPerDay,
    sqsRequestsPerTick,
    advancedParameters: 0,
    kmsKeys: a.kmsKeys,
  };
}

/** The fleets the docs price. */
const FLEETS = [10, 100, 1000, 10_000] as const;

/** How the tables name each line. */
const ITEM_LABELS: Readonly<Record<CostItem, string>> = {
  [COST_ITEMS.lambda]: 'Lambda (GB-s at 256 MB, requests)',
  [COST_ITEMS.dynamoReads]: 'DynamoDB reads',
  [COST_ITEMS.dynamoWrites]: 'DynamoDB writes (checkpoints, transitions, shard records)',
  [COST_ITEMS.customMetrics]: 'CloudWatch metric series',
  [COST_ITEMS.alarms]: 'CloudWatch alarms',
  [COST_ITEMS.dashboard]: 'CloudWatch dashboard',
  [COST_ITEMS.logsIngestion]: 'CloudWatch Logs ingestion',
  [COST_ITEMS.logsStorage]: 'CloudWatch Logs storage (30 days)',
  [COST_ITEMS.logsInsights]: 'Logs Insights (dashboard opens)',
  [COST_ITEMS.sns]: 'SNS',
  [COST_ITEMS.sqs]: 'SQS (sharded)',
  [COST_ITEMS.ssm]: 'SSM',
  [COST_ITEMS.kms]: 'KMS key',
};

/** The month's bill of each fleet, as Markdown: a row per item, a column per fleet. */
function costTable(m: MeasuredUsage, fleets: readonly number[] = FLEETS): string {
  const costs = fleets.map((n) => monthlyCost(usageAt(n, m)));
  const withForwarder = fleets.map((n) => monthlyCost(usageAt(n, m, { ...ASSUMPTIONS, forwarder: true })));
  const rows = Object.values(COST_ITEMS).map(
    (item) =>
      `| ${ITEM_LABELS[item]} | ${costs.map((c) => dollars(c.lines.find((l) => l.item === item)?.monthly ?? 0)).join(' | ')} |`,
  );
  return [
    `| item | ${fleets.map((n) => `${n.toLocaleString('en-US')} targets`).join(' | ')} |`,
    `|---|${fleets.map(() => '---').join('|')}|`,
    ...rows,
    `| **total** | ${costs.map((c) => `**${dollars(c.total)}**`).join(' | ')} |`,
    `| total with the PagerDuty forwarder (its alarms and metric filter) | ${withForwarder.map((c) => dollars(c.total)).join(' | ')} |`,
  ].join('\n');
}

function printCostTables(m: MeasuredUsage): void {
  for (const n of FLEETS) console.log(`usage at ${n} targets:`, usageAt(n, m));
  console.log(`\nCost per month, us-east-1 list prices of ${PRICES.asOf}:\n`);
  console.log(costTable(m));
}

export type { Assumptions, MeasuredUsage, TemplateCounts };
export { ASSUMPTIONS, costTable, FLEETS, printCostTables, USAGE_FILE, usageAt };
