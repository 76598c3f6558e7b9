/**
 * Command-line thresholds (`-w`/`-c <metric>=<range>`), as Nagios and Icinga administrators set
 * them per service: each becomes a rule at its severity, and replaces the rules that watch its
 * metric (the others stay).
 */
import { DEFAULT_GROUP_BY, DEFAULT_GROUP_INTERVAL_MS } from '../constants.ts';
import { didYouMean } from '../nearest.ts';
import { METRIC_NAMES, metricSpec } from './metrics.ts';
import { type NagiosRange, parseRange, RangeSyntaxError } from './range.ts';
import { type Op, type Rule, SEVERITIES, type Severity } from './types.ts';

/** One `-w`/`-c` given on the command line. */
interface Threshold {
  metric: string;
  severity: Severity;
  range: NagiosRange;
}

/** A threshold that cannot be read: says what was expected and what was found. */
class ThresholdError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ThresholdError';
  }
}

/**
 * Reads `<metric>=<range>`.
 *
 * @throws ThresholdError saying what was expected and what was found
 * @example
 * parseThreshold('slots_idle=5:', 'critical') // { metric: 'slots_idle', severity: 'critical', range: { start: 5, ... } }
 */
function parseThreshold(text: string, severity: Severity): Threshold {
  const equals = text.indexOf('=');
  if (equals < 0)
    throw new ThresholdError(`expected <metric>=<range> such as slots_idle=5:, found "${text}" without "="`);
  const metric = text.slice(0, equals);
  if (metricSpec(metric) === undefined || metric === 'target_up')
    throw new ThresholdError(
      `expected a metric name of docs/rules-and-cli.md before "=", found "${metric}"${didYouMean(metric, METRIC_NAMES)}`,
    );
  try {
    return { metric, severity, range: parseRange(text.slice(equals + 1)) };
  } catch (error) {
    if (!(error instanceof RangeSyntaxError)) throw error;
    throw new ThresholdError(`${metric}: ${error.message}`, { cause: error });
  }
}

/** The side of the range nearer to trouble, as `op threshold`, for subjects and messages. */
function nearerSide(range: NagiosRange): { op: Op; threshold: number } {
  if (range.inside) {
    return range.start === Number.NEGATIVE_INFINITY
      ? { op: '<=', threshold: range.end }
      : { op: '>=', threshold: range.start };
  }
  return range.end === Number.POSITIVE_INFINITY
    ? { op: '<', threshold: range.start }
    : { op: '>', threshold: range.end };
}

/** A rule name from a metric and severity: `slots-idle-critical`. */
function thresholdRuleName(threshold: Pick<Threshold, 'metric' | 'severity'>): string {
  return `${threshold.metric.replaceAll('_', '-')}-${threshold.severity}`;
}

function toRule(threshold: Threshold): Rule {
  return {
    name: thresholdRuleName(threshold),
    metric: threshold.metric,
    ...nearerSide(threshold.range),
    range: threshold.range,
    clearThreshold: null,
    forMs: 0,
    keepFiringForMs: 0,
    severity: threshold.severity,
    summary: null,
    runbook: null,
    minSamples: null,
    targets: null,
    groupBy: [...DEFAULT_GROUP_BY],
    groupIntervalMs: DEFAULT_GROUP_INTERVAL_MS,
  };
}

/**
 * The rules with the thresholds applied: every rule on a threshold's metric leaves, and each
 * threshold's rule follows. One threshold per metric and severity.
 *
 * @throws ThresholdError when a metric has two thresholds of one severity
 * @example
 * applyThresholds(DEFAULT_RULES, [parseThreshold('connections_closing=30', 'warning')])
 * // the built-ins without closing-pileup, then connections-closing-warning
 */
function applyThresholds(rules: readonly Rule[], thresholds: readonly Threshold[]): Rule[] {
  const names = new Set<string>();
  for (const t of thresholds) {
    const name = thresholdRuleName(t);
    if (names.has(name))
      throw new ThresholdError(
        `expected one ${t.severity === SEVERITIES.critical ? '-c' : '-w'} per metric, found ${t.metric} twice`,
      );
    names.add(name);
  }
  const metrics = new Set(thresholds.map((t) => t.metric));
  return [...rules.filter((r) => !metrics.has(r.metric)), ...thresholds.map(toRule)];
}

export type { Threshold };
export { applyThresholds, parseThreshold, ThresholdError };
