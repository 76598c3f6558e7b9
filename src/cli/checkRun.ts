/**
 * What `check` does (its description and options are in check.ts): one evaluation cycle on one
 * report, sending nothing, exit status as a monitoring plugin's.
 */
import { basename } from 'node:path';
import { createMemoryStateStore } from '../adapters/memoryStateStore.ts';
import type { Silence } from '../core/alerts/silences.ts';
import type { AlertView } from '../core/alerts/types.ts';
import { type EvaluateResult, evaluateTarget } from '../core/evaluate.ts';
import { formatValue } from '../core/notify/format.ts';
import { findOffenders, offenderModes } from '../core/notify/offenders.ts';
import type { MetricResult } from '../core/rules/compute.ts';
import { DEFAULT_RULES } from '../core/rules/defaultRules.ts';
import { formatDuration, parseDuration } from '../core/rules/duration.ts';
import { anyGlobMatch } from '../core/rules/glob.ts';
import { metricSpec } from '../core/rules/metrics.ts';
import { applyThresholds, parseThreshold, type Threshold, ThresholdError } from '../core/rules/thresholds.ts';
import type { Observation, Rule } from '../core/rules/types.ts';
import { type CliIo, DOCUMENT_MAX_BYTES, oneLine, parseOptions, UsageError, unknownLine } from './command.ts';
import { consoleText } from './consoleText.ts';
import { perfdata } from './perfdata.ts';
import { isUrl, readReport } from './source.ts';
import { SOURCE_OPTIONS } from './sourceOptions.ts';
import { alertFigures, failureText, statusLine } from './statusLine.ts';

const EXIT = { ok: 0, warning: 1, critical: 2, unknown: 3 } as const;

const OPTIONS = {
  file: { type: 'string' },
  url: { type: 'string' },
  rules: { type: 'string', multiple: true },
  'no-default-rules': { type: 'boolean' },
  warning: { type: 'string', short: 'w', multiple: true },
  critical: { type: 'string', short: 'c', multiple: true },
  silences: { type: 'string', multiple: true },
  state: { type: 'string' },
  now: { type: 'string' },
  target: { type: 'string' },
  json: { type: 'boolean' },
  verbose: { type: 'boolean', short: 'v' },
  'repeat-interval': { type: 'string' },
  'max-request-workers': { type: 'string' },
  ...SOURCE_OPTIONS,
} as const;

/** An unusable rules or silences file: one line, exit 3. */
class CheckConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CheckConfigError';
  }
}

/** ISO-8601 without milliseconds when they are zero, as the contract prints times. */
function isoTime(date: Date | string): string {
  return (typeof date === 'string' ? date : date.toISOString()).replace('.000Z', 'Z');
}

function parseNow(text: string | undefined, io: CliIo): Date {
  if (text === undefined) return io.now();
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms))
    throw new UsageError(`--now expects an ISO-8601 time such as 2026-11-22T12:00:00Z, found "${text}"`);
  return new Date(ms);
}

async function readDocs(paths: string[], io: CliIo): Promise<Array<{ source: string; text: string }>> {
  return Promise.all(
    paths.map(async (source) => {
      try {
        return { source, text: await io.readInput(source, DOCUMENT_MAX_BYTES) };
      } catch (error) {
        throw new CheckConfigError(`cannot read ${source}: ${oneLine(error)}`, { cause: error });
      }
    }),
  );
}

/** The rules documents over the built-in rules (none of them with `--no-default-rules`), and the silences. */
async function loadConfig(values: { rules?: string[]; silences?: string[]; 'no-default-rules'?: boolean }, io: CliIo) {
  const base = values['no-default-rules'] ? [] : DEFAULT_RULES;
  let rules: Rule[] = base;
  let silences: Silence[] = [];
  try {
    // The schemas load only when there is a document to check: a plain check starts without them.
    if (values.rules !== undefined) {
      const { rulesFromDocuments } = await import('../core/rules/document.ts');
      rules = rulesFromDocuments(await readDocs(values.rules, io), base);
    }
    if (values.silences !== undefined) {
      const { parseSilencesDocuments } = await import('../core/alerts/silences.ts');
      silences = parseSilencesDocuments(await readDocs(values.silences, io));
    }
  } catch (error) {
    if (error instanceof CheckConfigError) throw error;
    throw new CheckConfigError(oneLine(error, '; '), { cause: error });
  }
  return { rules, silences };
}

function renderJson(target: string, now: Date, result: EvaluateResult): string {
  const out = {
    target,
    evaluatedAt: isoTime(now),
    alerts: result.alerts.map((a) => ({
      rule: a.rule,
      state: a.state,
      value: a.value,
      threshold: a.threshold,
      severity: a.severity,
      keepFiringSince: a.keepFiringSince === null ? null : isoTime(a.keepFiringSince),
      resolvesAt: a.resolvesAt === null ? null : isoTime(a.resolvesAt),
    })),
    // The page JSON the Lambda publishes (one builder, notify/build.ts), then the fields `check`
    // always printed: each notification carries `failure`, `forecast`, `silence`, `offenders`, ...
    notifications: result.notifications.map((n) => ({
      ...n.payload,
      status: n.status,
      rule: n.rule,
      target: n.target,
      severity: n.severity,
      value: n.value,
      threshold: n.threshold,
      subject: n.subject,
      message: n.message,
    })),
  };
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** Who holds the slots an alert's metric counts: `clients 127.0.0.1 (28); vhosts www (10), api (6)`. */
function heldBy(metric: string, observation: Observation): string {
  const modes = metricSpec(metric)?.modes;
  if (modes == null || observation.kind !== 'report') return '';
  const offenders = findOffenders(observation.report.slots, offenderModes(modes));
  if (offenders === null || offenders.slots === 0) return '';
  const list = (title: string, counts: ReadonlyArray<{ name: string; count: number }>) =>
    counts.length === 0 ? [] : [`${title} ${counts.map((c) => `${c.name} (${c.count})`).join(', ')}`];
  const parts = [
    ...list('clients', offenders.clients),
    ...list('vhosts', offenders.vhosts),
    ...list('requests', offenders.requests),
  ];
  return parts.length === 0 ? '' : `; held by ${parts.join('; ')}`;
}

/**
 * One alert on one line for a console: state, severity, rule, its figures in words and who holds
 * the workers; a kept-firing one says that its condition cleared and when it resolves.
 */
function alertLine(a: AlertView, result: EvaluateResult, observation: Observation, rules: readonly Rule[]): string {
  const head = `${a.state.toUpperCase()} ${a.severity} ${a.rule}`;
  if (a.keepFiringSince !== null && a.resolvesAt !== null) {
    const keep = formatDuration(Date.parse(a.resolvesAt) - Date.parse(a.keepFiringSince));
    return `${head}: now ${formatValue(a.value)}, condition cleared at ${isoTime(a.keepFiringSince)}; kept firing for ${keep}, resolves at ${isoTime(a.resolvesAt)} unless it returns`;
  }
  if (a.metric === 'target_up' && observation.kind === 'down') return `${head}: ${failureText(observation)}`;
  return `${head}: ${a.metric} ${alertFigures(a, result.metrics, rules)}${heldBy(a.metric, observation)}`;
}

/** `check` shows the forecast where it has one (the `--state` file carries its samples). */
function forecastLine(now: Date, result: MetricResult | undefined): string | null {
  if (result === undefined || !result.ok) return null;
  if (result.value === 0) return 'Forecast: no worker slot is free now';
  const at = isoTime(new Date(now.getTime() + result.value * 60_000));
  return `Forecast: at the current trend no worker slot is free in ${formatValue(result.value)} minutes (${at}), from ${result.samples} samples`;
}

interface TextOptions {
  verbose: boolean;
  /** With `--state`: a line per notification that would be published (their text: `--json`). */
  stateful: boolean;
}

/**
 * The long output after the status line, as a console shows it: one line per alert, the forecast,
 * with `--verbose` the rules not evaluated, with `--state` the pages that would go out. Every
 * line without Nagios's illegal macro characters.
 */
function renderText(firstLine: string, now: Date, run: RunView, options: TextOptions): string {
  const { result, observation, rules } = run;
  const lines: string[] = [];
  for (const a of result.alerts) lines.push(alertLine(a, result, observation, rules));
  const forecast = forecastLine(now, result.metrics.get('minutes_to_exhaustion'));
  if (forecast !== null) lines.push(forecast);
  if (options.verbose) for (const u of result.unevaluated) lines.push(`not evaluated: ${u.rule}, ${u.reason}`);
  if (options.stateful)
    for (const n of result.notifications) lines.push(`would publish: ${n.status} ${n.severity} ${n.rule}`);
  return `${[firstLine, ...lines.map(consoleText)].join('\n')}\n`;
}

interface RunView {
  result: EvaluateResult;
  observation: Observation;
  rules: readonly Rule[];
}

/**
 * Without `--state`, a stateless plugin (Nagios and Icinga do the waiting, with
 * `max_check_attempts`): a condition that holds fires now at its severity (`for` and
 * `keepFiringFor` not waited for), and one failed fetch is `target-down`.
 */
function statelessRules(rules: readonly Rule[]): Rule[] {
  return rules.map((r) => ({ ...r, forMs: 0, keepFiringForMs: 0 }));
}

/** Worst firing severity; while the report is missing, 3 unless a critical alert (target-down) fires. */
function exitCode(observation: Observation, result: EvaluateResult): number {
  const firing = result.alerts.filter((a) => a.state === 'firing');
  if (firing.some((a) => a.severity === 'critical')) return EXIT.critical;
  if (observation.kind === 'down') return EXIT.unknown;
  return firing.some((a) => a.severity === 'warning') ? EXIT.warning : EXIT.ok;
}

/** `-w`/`-c` as thresholds; a bad one is a usage error (exit 3, UNKNOWN). */
function readThresholds(values: { warning?: string[]; critical?: string[] }): Threshold[] {
  const read = (texts: string[] | undefined, severity: 'warning' | 'critical', option: string) =>
    (texts ?? []).map((text) => {
      try {
        return parseThreshold(text, severity);
      } catch (error) {
        if (error instanceof ThresholdError) throw new UsageError(`${option}: ${error.message}`, { cause: error });
        throw error;
      }
    });
  return [...read(values.warning, 'warning', '-w'), ...read(values.critical, 'critical', '-c')];
}

function defaultTarget(source: string): string {
  if (source === '-') return 'stdin';
  if (!isUrl(source)) return basename(source);
  try {
    return new URL(source).host;
  } catch (error) {
    throw new UsageError(`--url expects a URL such as https://web-1/server-status, found "${source}"`, {
      cause: error,
    });
  }
}

async function check(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions(argv, OPTIONS, true);
  if (positionals.length > 0) throw new UsageError(`expected no positional arguments, found "${positionals[0]}"`);
  if ((values.file === undefined) === (values.url === undefined))
    throw new UsageError('expected exactly one of --file <path|-> or --url <url>');
  if (values.url !== undefined && !isUrl(values.url))
    throw new UsageError(`--url expects an http:// or https:// URL, found "${values.url}"`);
  const source = (values.url ?? values.file) as string;
  const now = parseNow(values.now, io);
  const repeat = values['repeat-interval'];
  const repeatIntervalMs = repeat === undefined ? undefined : parseDuration(repeat);
  if (repeatIntervalMs === null)
    throw new UsageError(`--repeat-interval expects a duration such as 4h, found "${repeat}"`);
  const capacity = values['max-request-workers'];
  const maxRequestWorkers = capacity === undefined ? null : Number(capacity);
  if (maxRequestWorkers !== null && !(Number.isInteger(maxRequestWorkers) && maxRequestWorkers >= 1))
    throw new UsageError(`--max-request-workers expects a whole number of 1 or more, found "${capacity}"`);
  const target = values.target ?? defaultTarget(source);
  const thresholds = readThresholds(values);
  const config = await loadConfig(values, io);
  let configured: Rule[];
  try {
    configured = applyThresholds(config.rules, thresholds);
  } catch (error) {
    if (error instanceof ThresholdError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  const stateless = values.state === undefined;
  const rules = stateless ? statelessRules(configured) : configured;
  const store = stateless
    ? createMemoryStateStore()
    : (await import('../adapters/fileStateStore.ts')).createFileStateStore(values.state as string);
  const previous = await store.load(target);
  const observation: Observation = await readReport(source, values, io);
  const options = {
    ...(repeatIntervalMs === undefined ? {} : { repeatIntervalMs }),
    ...(stateless ? { downAfterFailures: 1 } : {}),
  };
  const result = evaluateTarget({
    target,
    observation,
    rules,
    silences: config.silences,
    previous,
    now,
    options,
    maxRequestWorkers,
  });
  await store.save(result.state);
  const code = exitCode(observation, result);
  if (values.json) io.json(renderJson(target, now, result));
  else {
    // A rule's threshold only where the rule applies to this target (`targets`).
    const own = rules.filter((r) => anyGlobMatch(r.targets, target));
    const perf = perfdata(result.metrics, own, observation.kind === 'report' ? observation.report.server : null);
    const { alerts, metrics } = result;
    const first = statusLine({ target, code, alerts, observation, metrics, rules, perfdata: perf });
    const options = { verbose: values.verbose === true, stateful: !stateless };
    io.stdout(renderText(first, now, { result, observation, rules }, options));
  }
  if (observation.kind === 'down') io.stderr(`check: ${target}: ${observation.reason}: ${observation.detail}\n`);
  return code;
}

/**
 * Runs `check` with the arguments after the command name; resolves to the exit status.
 *
 * @example
 * await runCheck(['--file', 'web-1.html', '--state', 'state.json', '--now', '2026-11-22T12:00:00Z'], io) // 0, 1, 2 or 3
 */
async function runCheck(argv: string[], io: CliIo): Promise<number> {
  try {
    return await check(argv, io);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // Nagios shows standard output: the reason goes on its first line too.
    const reason = `check: ${oneLine(error, '; ')}`;
    io.stdout(`${unknownLine(reason)}\n`);
    io.stderr(`${reason}\n`);
    return EXIT.unknown;
  }
}

export { runCheck };
