/**
 * Nagios/Icinga performance data for `check`'s first line (`text | label=value;warn;crit;min;max ...`),
 * from the same metrics the rules see, with the rules' thresholds on them as Nagios ranges, so
 * graphs and their warning lines come with no extra configuration. One row per figure: a new
 * figure (a forecast, say) is one more row in PERFDATA.
 */
import type { MetricResult } from '../core/rules/compute.ts';
import { formatRange } from '../core/rules/range.ts';
import type { Op, Rule } from '../core/rules/types.ts';

/** What the maximum of a figure is: the slots (the report's positions), 1 (a ratio), or none. */
const SCALES = { slots: 'slots', ratio: 'ratio', open: 'open' } as const;
type Scale = (typeof SCALES)[keyof typeof SCALES];

/**
 * Label, metric and scale of each figure the default rules watch. `closing` is every connection
 * in lingering close (`connections_closing`: scoreboard `C` plus the event MPM's async ones).
 */
const PERFDATA: ReadonlyArray<readonly [label: string, metric: string, scale: Scale, unit?: string]> = [
  ['idle', 'slots_idle', SCALES.slots],
  ['busy', 'slots_busy', SCALES.slots],
  ['free_ratio', 'slots_free_ratio', SCALES.ratio],
  ['closing', 'connections_closing', SCALES.open],
  ['graceful_ratio', 'slots_graceful_ratio', SCALES.ratio],
  ['stopping', 'processes_stopping', SCALES.open],
  ['oldest_request', 'oldest_busy_request_seconds', SCALES.open, 's'],
  ['top_client', 'top_client_busy_slots', SCALES.slots],
  ['ssl_miss_ratio', 'ssl_cache_miss_ratio', SCALES.ratio],
  // The forecast: U until the --state file holds enough samples of a falling free-slot count.
  ['minutes_to_exhaustion', 'minutes_to_exhaustion', SCALES.open],
  // Rates from the previous counters: U on a first run, so a stateless check graphs the counters
  // `accesses` and `bytes` instead. B is the guidelines' unit for bytes (here bytes per second).
  ['requests_per_second', 'requests_per_second', SCALES.open],
  ['bytes_per_second', 'bytes_per_second', SCALES.open, 'B'],
];

/** The report's since-start counters that go into the perfdata as Nagios counters. */
interface ServerCounters {
  totalAccesses: number | null;
  totalKBytes: number | null;
}

/** A Nagios counter (unit c), `U` when the report has none. */
function counter(label: string, count: number | null): string {
  return `${label}=${count === null ? 'U' : `${count}c`};;;0`;
}

/** Metrics whose values are whole numbers: `>= 20` is then the range `19` (alert above 19). */
const WHOLE = new Set([
  'slots_idle',
  'slots_busy',
  'connections_closing',
  'processes_stopping',
  'top_client_busy_slots',
]);

function number(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(4)));
}

/**
 * The Nagios range (`[@]start:end`, alert when the value is outside it, `@` inside) that alerts
 * where `value op threshold` holds. Ranges include their ends, so `<` and `>` map exactly; for
 * `<=` and `>=` whole-number figures move the end by one, others keep it (equality of two ratios
 * is not worth a missing line on a graph).
 *
 * @example
 * nagiosRange('<', 5, true)   // '5:'   alert below 5
 * nagiosRange('>=', 20, true) // '19'   alert above 19
 * nagiosRange('>', 0.5, false) // '0.5'
 */
function nagiosRange(op: Op, threshold: number, whole: boolean): string {
  const t = number(threshold);
  const step = whole && Number.isInteger(threshold) ? 1 : 0;
  switch (op) {
    case '<':
      return `${t}:`;
    case '<=':
      return `${number(threshold + step)}:`;
    case '>':
      return t;
    case '>=':
      return threshold - step >= 0 ? number(threshold - step) : `~:${number(threshold - step)}`;
    case '==':
      return `@${t}:${t}`;
    case '!=':
      return `${t}:${t}`;
  }
}

/** The warning and critical ranges of a metric: the first rule of each severity on it. */
function thresholds(metric: string, rules: readonly Rule[]): { warn: string; crit: string } {
  const range = (severity: Rule['severity']) => {
    const rule = rules.find((r) => r.metric === metric && r.severity === severity);
    if (rule === undefined) return '';
    return rule.range === undefined ? nagiosRange(rule.op, rule.threshold, WHOLE.has(metric)) : formatRange(rule.range);
  };
  return { warn: range('warning'), crit: range('critical') };
}

/** A metric given a command-line threshold but no row of its own gets one, labelled with its name. */
function thresholdRows(rules: readonly Rule[]): Array<readonly [string, string, Scale]> {
  const shown = new Set(PERFDATA.map(([, metric]) => metric));
  const extra = [...new Set(rules.filter((r) => r.range !== undefined && !shown.has(r.metric)).map((r) => r.metric))];
  return extra.map((metric) => {
    const scale = metric.endsWith('_ratio') ? SCALES.ratio : metric.startsWith('slots_') ? SCALES.slots : SCALES.open;
    return [metric, metric, scale] as const;
  });
}

/**
 * The performance data of one evaluation; `U` (the plugin guidelines' "undetermined") where the
 * report cannot give a metric or the target is down.
 *
 * @example
 * perfdata(metrics, DEFAULT_RULES) // 'idle=5;;;0;256 busy=28;;;0;256 free_ratio=0.8906;;0.05:;0;1 closing=3;19;;0 ...'
 */
function perfdata(
  metrics: ReadonlyMap<string, MetricResult>,
  rules: readonly Rule[],
  counters: ServerCounters | null = null,
): string {
  const total = metrics.get('slots_total');
  const slots = total?.ok === true ? number(total.value) : '';
  const rows = [...PERFDATA, ...thresholdRows(rules)].map(([label, metric, scale, unit = '']) => {
    const result = metrics.get(metric);
    const value = result?.ok === true ? `${number(result.value)}${unit}` : 'U';
    const { warn, crit } = thresholds(metric, rules);
    const max = scale === SCALES.ratio ? ';1' : scale === SCALES.slots && slots !== '' ? `;${slots}` : '';
    return `${label}=${value};${warn};${crit};0${max}`;
  });
  // Nagios counters (unit c): the grapher takes the rate itself, with or without --state. Bytes,
  // the unit a counter's label names, from kB (from an HTML page: as precise as Total Traffic).
  const kBytes = counters?.totalKBytes ?? null;
  rows.push(
    counter('accesses', counters?.totalAccesses ?? null),
    counter('bytes', kBytes === null ? null : kBytes * 1024),
  );
  return rows.join(' ');
}

export type { ServerCounters };
export { nagiosRange, perfdata };
