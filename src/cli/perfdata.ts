/**
 * Nagios/Icinga performance data for `check`'s first line (`text | label=value;warn;crit;min;max ...`),
 * from the same metrics the rules see, so graphs come for free.
 */
import type { MetricResult } from '../core/rules/compute.ts';

/** Label, metric and whether it is a ratio (0..1) rather than a count of scoreboard positions. */
const PERFDATA = [
  ['idle', 'slots_idle', false],
  ['busy', 'slots_busy', false],
  ['closing', 'slots_closing', false],
  ['free_ratio', 'slots_free_ratio', true],
  ['ssl_miss_ratio', 'ssl_cache_miss_ratio', true],
] as const;

function number(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(4)));
}

/**
 * The performance data of one evaluation; `U` (the plugin guidelines' "undetermined") where the
 * report cannot give a metric or the target is down.
 *
 * @example
 * perfdata(metrics) // 'idle=5;;;0;256 busy=40;;;0;256 closing=3;;;0;256 free_ratio=0.8242;;;0;1 ssl_miss_ratio=0;;;0;1'
 */
function perfdata(metrics: ReadonlyMap<string, MetricResult>): string {
  const total = metrics.get('slots_total');
  const max = total?.ok === true ? number(total.value) : '';
  return PERFDATA.map(([label, metric, ratio]) => {
    const result = metrics.get(metric);
    const value = result?.ok === true ? number(result.value) : 'U';
    const range = ratio ? ';;;0;1' : max === '' ? ';;;0' : `;;;0;${max}`;
    return `${label}=${value}${range}`;
  }).join(' ');
}

export { perfdata };
