/**
 * `check`'s first line, the one a Nagios or Icinga notification carries: the status word, the
 * target and the worst alerts by name with their figures, or why the report could not be read;
 * then the performance data. `CRITICAL - web-1: idle-slots-low (free 2/256 slots) | idle=2;...`
 * Before the `|` it holds none of Nagios's illegal macro characters (consoleText.ts).
 */
import type { AlertView } from '../core/alerts/types.ts';
import { MAX_FAILURE_DETAIL_CHARS } from '../core/constants.ts';
import { failureLabel } from '../core/notify/build.ts';
import { formatValue } from '../core/notify/format.ts';
import type { MetricResult } from '../core/rules/compute.ts';
import type { Observation, Rule } from '../core/rules/types.ts';
import { cleanReportText, TEXT_USES } from '../core/text/sanitize.ts';
import { conditionWords, consoleText } from './consoleText.ts';

const STATUS_WORDS = ['OK', 'WARNING', 'CRITICAL', 'UNKNOWN'] as const;
const SEVERITY_RANK: Readonly<Record<string, number>> = { critical: 0, warning: 1, info: 2 };
/** Alerts named on the line; the rest are counted (`+2 more`), the line stays readable in an SMS. */
const MAX_NAMED = 3;
const TARGET_DOWN_METRIC = 'target_up';

interface StatusLineInput {
  target: string;
  code: number;
  alerts: readonly AlertView[];
  observation: Observation;
  metrics: ReadonlyMap<string, MetricResult>;
  /** The rules evaluated: a command-line threshold's range words its condition. */
  rules: readonly Rule[];
  perfdata: string;
}

/**
 * A slot ratio as the counts behind it (`free 2/256 slots`), else the condition in words
 * (`28 at or above 20`); a kept-firing alert says its condition cleared.
 */
function alertFigures(
  alert: AlertView,
  metrics: ReadonlyMap<string, MetricResult>,
  rules: readonly Rule[] = [],
): string {
  if (alert.keepFiringSince !== null) return `cleared, now ${formatValue(alert.value)}`;
  const count = alert.metric.startsWith('slots_') && alert.metric.endsWith('_ratio') ? alert.metric.slice(0, -6) : '';
  const n = metrics.get(count);
  const ratio = metrics.get(alert.metric);
  if (n?.ok === true && ratio?.ok === true && ratio.samples !== null)
    return `${count.slice(6)} ${formatValue(n.value)}/${ratio.samples} slots`;
  const range = rules.find((r) => r.name === alert.rule)?.range;
  return conditionWords(alert.value, alert.op, alert.threshold, range);
}

/** The load in figures, for every line (OK too): `28/256 slots busy, 5 idle, 3 closing`; '' without a report. */
function loadFigures(metrics: ReadonlyMap<string, MetricResult>): string {
  const at = (metric: string) => {
    const result = metrics.get(metric);
    return result?.ok === true ? formatValue(result.value) : null;
  };
  const [busy, total, idle, closing] = ['slots_busy', 'slots_total', 'slots_idle', 'connections_closing'].map(at);
  if (busy === null || total === null) return '';
  const parts = [`${busy}/${total} slots busy`];
  if (idle != null) parts.push(`${idle} idle`);
  if (closing != null) parts.push(`${closing} closing`);
  return parts.join(', ');
}

/**
 * `timeout: <detail>`, the detail cleaned for a page: the line is read in Nagios' and Icinga's web
 * views and whatever their notifications reach, and a `|` in it would start the performance data.
 */
function failure(observation: Observation & { kind: 'down' }): string {
  const detail = cleanReportText(observation.detail, { use: TEXT_USES.page, max: MAX_FAILURE_DETAIL_CHARS });
  return `${failureLabel(observation.reason, observation.detail)}: ${detail}`;
}

/** What the line says after the target. */
function headline(input: StatusLineInput): string {
  const { alerts, observation, metrics, rules } = input;
  const firing = alerts
    .filter((a) => a.state === 'firing' && a.severity !== 'info')
    .sort((a, b) => (SEVERITY_RANK[a.severity] ?? 3) - (SEVERITY_RANK[b.severity] ?? 3));
  const named = firing.slice(0, MAX_NAMED).map((a) => {
    const figures =
      a.metric === TARGET_DOWN_METRIC && observation.kind === 'down'
        ? failure(observation)
        : alertFigures(a, metrics, rules);
    return `${a.rule} (${figures})`;
  });
  if (firing.length > MAX_NAMED) named.push(`+${firing.length - MAX_NAMED} more`);
  if (named.length > 0) return named.join(', ');
  const figures = loadFigures(metrics);
  const load = figures === '' ? '' : `; ${figures}`;
  if (observation.kind === 'down') return `report not read (${failure(observation)})`;
  const pending = alerts.filter((a) => a.state === 'pending').map((a) => a.rule);
  return `${pending.length === 0 ? 'no alert firing' : `no alert firing (pending: ${pending.join(', ')})`}${load}`;
}

/**
 * The status line with its performance data.
 *
 * @example
 * statusLine({ target: 'web-1', code: 2, alerts, observation, metrics, perfdata })
 * // 'CRITICAL - web-1: idle-slots-low (free 2/256 slots) | idle=2;;;0;256 ...'
 */
function statusLine(input: StatusLineInput): string {
  const text = consoleText(`${input.target}: ${headline(input)}`);
  return `${STATUS_WORDS[input.code] ?? 'UNKNOWN'} - ${text} | ${input.perfdata}`;
}

export { alertFigures, failure as failureText, statusLine };
