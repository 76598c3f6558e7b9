/**
 * Monthly cost of a deployment from what a month of its use does: a pure function of counted
 * figures (DynamoDB capacity units per hour of runs spaced by the schedule, log bytes per tick,
 * metric series, alarms and log widgets of the synthesized template, SQS requests per tick) and
 * list prices, one line per billed item. Nothing here is measured or assumed about a fleet:
 * `bench/e2e/usage.ts` counts the figures and says how; docs/scale.md quotes the lines.
 */

/**
 * us-east-1 list prices, taken on 2026-11-28 (the AWS pricing pages for Lambda, DynamoDB
 * on-demand, CloudWatch, SNS, SQS, Systems Manager and KMS, as quoted by public pricing guides of
 * 2025-2026; the machine that wrote this has no network to read AWS's own pages). Free tiers are
 * ignored: an account that already uses them pays these.
 */
const PRICES = {
  asOf: '2026-11-28',
  region: 'us-east-1',
  /** Lambda on arm64 (the stack's architecture), per GB-second and per request. */
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerRequest: 0.2 / 1e6,
  /** DynamoDB on-demand, per write request unit and per read request unit. */
  dynamoPerWriteUnit: 0.625 / 1e6,
  dynamoPerReadUnit: 0.125 / 1e6,
  /** CloudWatch: a custom metric series (first 10,000), a standard-resolution alarm, a dashboard. */
  customMetricPerMonth: 0.3,
  alarmPerMonth: 0.1,
  dashboardPerMonth: 3,
  /** CloudWatch Logs (standard class): ingestion, archive storage, Logs Insights scans. */
  logsIngestionPerGb: 0.5,
  logsStoragePerGbMonth: 0.03,
  logsInsightsPerGbScanned: 0.005,
  snsPerPublish: 0.5 / 1e6,
  /** SQS standard queue, per request; each 64 KiB of a request's payload bills as one request. */
  sqsPerRequest: 0.4 / 1e6,
  /** Systems Manager: standard parameters and standard throughput are free; an advanced parameter is not. */
  ssmAdvancedParameterPerMonth: 0.05,
  kmsKeyPerMonth: 1,
} as const;

/** A billing month: 30 days. */
const DAYS_PER_MONTH = 30;
const HOURS_PER_MONTH = DAYS_PER_MONTH * 24;
const GB = 1e9;

/** Every line of the bill, in the order the tables print them. */
const COST_ITEMS = {
  lambda: 'lambda',
  dynamoReads: 'dynamoReads',
  dynamoWrites: 'dynamoWrites',
  customMetrics: 'customMetrics',
  alarms: 'alarms',
  dashboard: 'dashboard',
  logsIngestion: 'logsIngestion',
  logsStorage: 'logsStorage',
  logsInsights: 'logsInsights',
  sns: 'sns',
  sqs: 'sqs',
  ssm: 'ssm',
  kms: 'kms',
} as const;
type CostItem = (typeof COST_ITEMS)[keyof typeof COST_ITEMS];

/** What a month of one deployment does, each figure counted (or derived from counts) elsewhere. */
interface MonthlyUsage {
  /** The schedule's interval: one tick (a run, or a dispatch and its shards) per interval. */
  scheduleMinutes: number;
  memoryMb: number;
  /** Invocations per tick: 1, or the dispatch and one per shard. */
  invocationsPerTick: number;
  /** Billed milliseconds of all the tick's invocations together. */
  billedMsPerTick: number;
  /** DynamoDB capacity units an hour of ticks consumed, checkpoints and transitions included. */
  readUnitsPerHour: number;
  writeUnitsPerHour: number;
  snsPublishesPerHour: number;
  /** Custom metric series: the EMF documents' and any metric filter's. */
  metricSeries: number;
  /** Standard-resolution alarms of the template. */
  alarms: number;
  dashboards: number;
  /** Bytes the tick's invocations wrote to the log group, Lambda's own START/END/REPORT lines included. */
  logBytesPerTick: number;
  logRetentionDays: number;
  /** Fleet Logs Insights widgets of the dashboard: each scans the whole log group over the dashboard's range at every open. */
  fleetLogWidgets: number;
  /**
   * Per-target Logs Insights widgets: each starts with an equality on the log group's indexed
   * `target` field, so it scans only that target's lines over the range at every open.
   */
  targetLogWidgets: number;
  /** Bytes one target's own lines add to the log group a tick: what a per-target widget scans. */
  targetLogBytesPerTick: number;
  dashboardRangeHours: number;
  dashboardOpensPerDay: number;
  /** SQS requests a tick bills (64 KiB chunks counted, the event source mapping's polls included). */
  sqsRequestsPerTick: number;
  advancedParameters: number;
  kmsKeys: number;
}

interface CostLine {
  item: CostItem;
  /** What is billed, in the price's unit (GB-s, units, series, GB, requests...), per month. */
  quantity: number;
  unit: string;
  monthly: number;
}

interface MonthlyCost {
  lines: CostLine[];
  total: number;
}

/**
 * The month's bill, one line per item, at `PRICES`. Logs storage is the retained volume at steady
 * state (ingestion over the retention period), uncompressed: CloudWatch bills the compressed
 * archive, so this line is an upper bound. A dashboard open scans, per fleet widget, what the log
 * group received over the dashboard's range, and per target widget what that one target's lines
 * were (the field index skips the rest). The index covers events ingested after its policy exists:
 * a deployment upgraded from before it scans the whole group for older events until the range has
 * passed them, which this steady-state bill leaves out.
 *
 * @example
 * monthlyCost({ ...usage, scheduleMinutes: 1 }).total
 */
function monthlyCost(u: MonthlyUsage): MonthlyCost {
  const ticks = (DAYS_PER_MONTH * 24 * 60) / u.scheduleMinutes;
  const gbSeconds = (ticks * u.billedMsPerTick * u.memoryMb) / 1000 / 1024;
  const requests = ticks * u.invocationsPerTick;
  const ingestedGb = (ticks * u.logBytesPerTick) / GB;
  const retainedGb = (ingestedGb * u.logRetentionDays) / DAYS_PER_MONTH;
  const perHour = (bytesPerTick: number) => (bytesPerTick * 60) / u.scheduleMinutes;
  const scannedPerOpen =
    (u.fleetLogWidgets * perHour(u.logBytesPerTick) + u.targetLogWidgets * perHour(u.targetLogBytesPerTick)) *
    u.dashboardRangeHours;
  const scannedGb = (u.dashboardOpensPerDay * DAYS_PER_MONTH * scannedPerOpen) / GB;
  const line = (item: CostItem, quantity: number, unit: string, monthly: number): CostLine => ({
    item,
    quantity,
    unit,
    monthly,
  });
  const lines = [
    line(
      COST_ITEMS.lambda,
      gbSeconds,
      'GB-s',
      gbSeconds * PRICES.lambdaArmPerGbSecond + requests * PRICES.lambdaPerRequest,
    ),
    line(
      COST_ITEMS.dynamoReads,
      u.readUnitsPerHour * HOURS_PER_MONTH,
      'read units',
      u.readUnitsPerHour * HOURS_PER_MONTH * PRICES.dynamoPerReadUnit,
    ),
    line(
      COST_ITEMS.dynamoWrites,
      u.writeUnitsPerHour * HOURS_PER_MONTH,
      'write units',
      u.writeUnitsPerHour * HOURS_PER_MONTH * PRICES.dynamoPerWriteUnit,
    ),
    line(COST_ITEMS.customMetrics, u.metricSeries, 'series', u.metricSeries * PRICES.customMetricPerMonth),
    line(COST_ITEMS.alarms, u.alarms, 'alarms', u.alarms * PRICES.alarmPerMonth),
    line(COST_ITEMS.dashboard, u.dashboards, 'dashboards', u.dashboards * PRICES.dashboardPerMonth),
    line(COST_ITEMS.logsIngestion, ingestedGb, 'GB', ingestedGb * PRICES.logsIngestionPerGb),
    line(COST_ITEMS.logsStorage, retainedGb, 'GB-month', retainedGb * PRICES.logsStoragePerGbMonth),
    line(COST_ITEMS.logsInsights, scannedGb, 'GB scanned', scannedGb * PRICES.logsInsightsPerGbScanned),
    line(
      COST_ITEMS.sns,
      u.snsPublishesPerHour * HOURS_PER_MONTH,
      'publishes',
      u.snsPublishesPerHour * HOURS_PER_MONTH * PRICES.snsPerPublish,
    ),
    line(COST_ITEMS.sqs, ticks * u.sqsRequestsPerTick, 'requests', ticks * u.sqsRequestsPerTick * PRICES.sqsPerRequest),
    line(
      COST_ITEMS.ssm,
      u.advancedParameters,
      'advanced parameters',
      u.advancedParameters * PRICES.ssmAdvancedParameterPerMonth,
    ),
    line(COST_ITEMS.kms, u.kmsKeys, 'keys', u.kmsKeys * PRICES.kmsKeyPerMonth),
  ];
  return { lines, total: lines.reduce((sum, l) => sum + l.monthly, 0) };
}

/** Dollars as the docs print them: cents below $100, whole dollars above. */
function dollars(x: number): string {
  return x < 100 ? `$${x.toFixed(2)}` : `$${Math.round(x).toLocaleString('en-US')}`;
}

export type { CostItem, CostLine, MonthlyCost, MonthlyUsage };
export { COST_ITEMS, DAYS_PER_MONTH, dollars, HOURS_PER_MONTH, monthlyCost, PRICES };
