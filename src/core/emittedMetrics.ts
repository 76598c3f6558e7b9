/**
 * Every CloudWatch metric the function emits, in one table that the handler's metrics sink, the
 * dashboard and the alarms import, so that renaming a metric renames it everywhere. Run metrics are
 * fleet-level (one series each, whatever the fleet's size); target metrics are opt-in
 * (`TARGET_METRICS`), because each costs one series per target. Every target's figures are also
 * fields of its `target checked` log line, under the same names, where the dashboard reads them
 * with Logs Insights; for an opted-in target that line is also the EMF document.
 */

/** Who emits a metric: once per run, or once per target and run. */
const METRIC_SCOPES = { run: 'run', target: 'target', discovery: 'discovery' } as const;

/** Where a value comes from: a metric of the catalogue (`src/core/rules/metrics.ts`), the fetch, or the run. */
const METRIC_SOURCES = { catalogue: 'catalogue', fetch: 'fetch', run: 'run' } as const;

/** CloudWatch units used here (the strings Powertools' `MetricUnit` holds). */
const METRIC_UNITS = { count: 'Count', milliseconds: 'Milliseconds', none: 'None' } as const;

/**
 * `monitor` is the monitor's SSM prefix: two monitors in one account and region (another prefix,
 * another stack) each have their own heartbeat and alarms, so one dead monitor is never hidden by
 * the other's runs.
 */
const RUN_DIMENSIONS = ['service', 'monitor'] as const;
const TARGET_DIMENSIONS = ['service', 'target'] as const;
/** A discovery parameter's metric: its full name, `<prefix>/discovery/web`. */
const DISCOVERY_DIMENSIONS = ['service', 'discovery'] as const;

const EMITTED_METRICS = {
  /**
   * One per run that completed without a failure (a one-invocation run, or one shard in sharded
   * mode): the heartbeat alarm pages when it stops. A run whose pages or state writes failed emits
   * `RunsFailed` instead: a monitor failing every run is not healthy.
   */
  heartbeat: {
    name: 'Heartbeat',
    unit: METRIC_UNITS.count,
    scope: METRIC_SCOPES.run,
    dimensions: RUN_DIMENSIONS,
    source: { from: METRIC_SOURCES.run, field: 'runs' },
  },
  /**
   * 1 for a run whose pages or state reads and writes failed (or whose shard could not be checked),
   * 0 for one that did not: in sharded mode a failed shard is returned to SQS, so Lambda's Errors
   * never counts it, and this is what alarms.
   */
  runsFailed: {
    name: 'RunsFailed',
    unit: METRIC_UNITS.count,
    scope: METRIC_SCOPES.run,
    dimensions: RUN_DIMENSIONS,
    source: { from: METRIC_SOURCES.run, field: 'failed' },
  },
  /**
   * 1 for a configuration read whose source (SSM) could not be read within its budget (throttled,
   * denied, timed out), 0 for one that could: the last valid configuration stays in force and no
   * configuration page goes out, so this metric's alarm is what tells.
   */
  configurationUnreadable: {
    name: 'ConfigurationUnreadable',
    unit: METRIC_UNITS.count,
    scope: METRIC_SCOPES.run,
    dimensions: RUN_DIMENSIONS,
    source: { from: METRIC_SOURCES.run, field: 'configurationUnreadable' },
  },
  alertsSent: {
    name: 'AlertsSent',
    unit: METRIC_UNITS.count,
    scope: METRIC_SCOPES.run,
    dimensions: RUN_DIMENSIONS,
    source: { from: METRIC_SOURCES.run, field: 'alertsSent' },
  },
  /** Targets whose fetch or parse failed this run (not debounced): a fleet-wide outage shows here. */
  targetsDown: {
    name: 'TargetsDown',
    unit: METRIC_UNITS.count,
    scope: METRIC_SCOPES.run,
    dimensions: RUN_DIMENSIONS,
    source: { from: METRIC_SOURCES.run, field: 'targetsDown' },
  },
  /** Whether this run got a report (1) or not (0): not debounced, unlike the catalogue's `target_up`. */
  targetUp: {
    name: 'TargetUp',
    unit: METRIC_UNITS.count,
    scope: METRIC_SCOPES.target,
    dimensions: TARGET_DIMENSIONS,
    source: { from: METRIC_SOURCES.fetch, field: 'up' },
  },
  fetchLatency: {
    name: 'FetchLatency',
    unit: METRIC_UNITS.milliseconds,
    scope: METRIC_SCOPES.target,
    dimensions: TARGET_DIMENSIONS,
    source: { from: METRIC_SOURCES.fetch, field: 'latencyMs' },
  },
  busySlots: {
    name: 'BusySlots',
    unit: METRIC_UNITS.count,
    scope: METRIC_SCOPES.target,
    dimensions: TARGET_DIMENSIONS,
    source: { from: METRIC_SOURCES.catalogue, field: 'slots_busy' },
  },
  idleSlots: {
    name: 'IdleSlots',
    unit: METRIC_UNITS.count,
    scope: METRIC_SCOPES.target,
    dimensions: TARGET_DIMENSIONS,
    source: { from: METRIC_SOURCES.catalogue, field: 'slots_idle' },
  },
  closingSlots: {
    name: 'ClosingSlots',
    unit: METRIC_UNITS.count,
    scope: METRIC_SCOPES.target,
    dimensions: TARGET_DIMENSIONS,
    source: { from: METRIC_SOURCES.catalogue, field: 'slots_closing' },
  },
  freeSlotsRatio: {
    name: 'FreeSlotsRatio',
    unit: METRIC_UNITS.none,
    scope: METRIC_SCOPES.target,
    dimensions: TARGET_DIMENSIONS,
    source: { from: METRIC_SOURCES.catalogue, field: 'slots_free_ratio' },
  },
  /** Windowed since the previous run, exactly as the `ssl-cache-misses` rule sees it. */
  sslCacheMissRatio: {
    name: 'SslCacheMissRatio',
    unit: METRIC_UNITS.none,
    scope: METRIC_SCOPES.target,
    dimensions: TARGET_DIMENSIONS,
    source: { from: METRIC_SOURCES.catalogue, field: 'ssl_cache_miss_ratio' },
  },
  requestsPerSecond: {
    name: 'RequestsPerSecond',
    unit: METRIC_UNITS.none,
    scope: METRIC_SCOPES.target,
    dimensions: TARGET_DIMENSIONS,
    source: { from: METRIC_SOURCES.catalogue, field: 'requests_per_second' },
  },
  /**
   * Per discovery parameter and run: 1 while its listing fails (the last good list in force), 0
   * while it lists. The stack's `discovery failing` alarm watches its maximum.
   */
  discoveryFailing: {
    name: 'DiscoveryFailing',
    unit: METRIC_UNITS.count,
    scope: METRIC_SCOPES.discovery,
    dimensions: DISCOVERY_DIMENSIONS,
    source: { from: METRIC_SOURCES.run, field: 'discoveryFailing' },
  },
} as const;

type EmittedMetric = (typeof EMITTED_METRICS)[keyof typeof EMITTED_METRICS];
type RunMetric = Extract<EmittedMetric, { scope: 'run' }>;
type TargetMetric = Extract<EmittedMetric, { scope: 'target' }>;

const ALL_METRICS: readonly EmittedMetric[] = Object.values(EMITTED_METRICS);
const RUN_METRICS = ALL_METRICS.filter((m): m is RunMetric => m.scope === METRIC_SCOPES.run);
const TARGET_METRICS = ALL_METRICS.filter((m): m is TargetMetric => m.scope === METRIC_SCOPES.target);

/** The message of the one log line per target and run that carries the target metrics' values. */
const TARGET_LOG_MESSAGE = 'target checked';
/**
 * The field of that line naming its target: the log group's field index, so that a query for one
 * target's lines scans those lines only.
 */
const TARGET_LOG_FIELD = 'target';

export type { EmittedMetric, RunMetric, TargetMetric };
export {
  DISCOVERY_DIMENSIONS,
  EMITTED_METRICS,
  METRIC_SCOPES,
  METRIC_SOURCES,
  METRIC_UNITS,
  RUN_DIMENSIONS,
  RUN_METRICS,
  TARGET_DIMENSIONS,
  TARGET_LOG_FIELD,
  TARGET_LOG_MESSAGE,
  TARGET_METRICS,
};
