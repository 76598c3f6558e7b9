/**
 * The `check` command: one evaluation cycle on one report, sending nothing. Prints the alerts and
 * the notifications that would be published; exits as a monitoring plugin (0 ok, 1 warning,
 * 2 critical, 3 unknown: the report could not be fetched or parsed, or an argument is bad).
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { createFileStateStore } from '../adapters/fileStateStore.ts';
import { createMemoryStateStore } from '../adapters/memoryStateStore.ts';
import { type EvaluateResult, evaluateTarget } from '../core/alerts/evaluateTarget.ts';
import { parseSilencesDocuments, type Silence } from '../core/alerts/silences.ts';
import type { Observation } from '../core/alerts/types.ts';
import { NotAStatusReportError } from '../core/errors.ts';
import { formatValue } from '../core/notify/format.ts';
import type { StatusReport } from '../core/report/types.ts';
import { DEFAULT_RULES, parseRulesDocuments } from '../core/rules/document.ts';
import { parseDuration } from '../core/rules/duration.ts';
import type { Rule } from '../core/rules/types.ts';

interface CheckIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readText(path: string): Promise<string>;
  fetchText(url: string): Promise<string>;
  parse(text: string): StatusReport;
  /** The clock, read once when `--now` is not given. */
  now(): Date;
}

const EXIT = { ok: 0, warning: 1, critical: 2, unknown: 3 } as const;

const OPTIONS = {
  file: { type: 'string' },
  url: { type: 'string' },
  rules: { type: 'string', multiple: true },
  silences: { type: 'string', multiple: true },
  state: { type: 'string' },
  now: { type: 'string' },
  target: { type: 'string' },
  json: { type: 'boolean' },
  'repeat-interval': { type: 'string' },
  'max-request-workers': { type: 'string' },
} as const;

/** A bad argument or configuration: reported as one line, exit 3. */
class CheckUsageError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CheckUsageError';
  }
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s*\n\s*/g, '; ');
}

/** ISO-8601 without milliseconds when they are zero, as the contract prints times. */
function isoTime(date: Date): string {
  return date.toISOString().replace('.000Z', 'Z');
}

function parseNow(text: string | undefined, io: CheckIo): Date {
  if (text === undefined) return io.now();
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms))
    throw new CheckUsageError(`--now expects an ISO-8601 time such as 2026-11-22T12:00:00Z, found "${text}"`);
  return new Date(ms);
}

async function readDocs(paths: string[], io: CheckIo): Promise<Array<{ source: string; text: string }>> {
  return Promise.all(
    paths.map(async (source) => {
      try {
        return { source, text: await io.readText(source) };
      } catch (error) {
        throw new CheckUsageError(`cannot read ${source}: ${oneLine(error)}`, { cause: error });
      }
    }),
  );
}

async function loadConfig(values: { rules?: string[]; silences?: string[] }, io: CheckIo) {
  let rules: Rule[] = DEFAULT_RULES;
  let silences: Silence[] = [];
  try {
    if (values.rules !== undefined) rules = parseRulesDocuments(await readDocs(values.rules, io));
    if (values.silences !== undefined) silences = parseSilencesDocuments(await readDocs(values.silences, io));
  } catch (error) {
    if (error instanceof CheckUsageError) throw error;
    throw new CheckUsageError(oneLine(error), { cause: error });
  }
  return { rules, silences };
}

async function observe(source: { file?: string; url?: string }, io: CheckIo): Promise<Observation> {
  try {
    const text = source.url !== undefined ? await io.fetchText(source.url) : await io.readText(source.file as string);
    return { kind: 'report', report: io.parse(text) };
  } catch (error) {
    const reason =
      error instanceof NotAStatusReportError ? 'not-a-report' : source.url !== undefined ? 'fetch' : 'read';
    return { kind: 'down', reason, detail: oneLine(error) };
  }
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
    })),
    notifications: result.notifications.map((n) => ({
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

function renderText(target: string, now: Date, result: EvaluateResult): string {
  const lines = [`${target} at ${isoTime(now)}: ${result.alerts.length} alert(s) pending or firing`];
  for (const a of result.alerts) {
    const value = `${formatValue(a.value)} ${a.op} ${formatValue(a.threshold)}`;
    lines.push(`  ${a.state.toUpperCase().padEnd(8)} ${a.severity.padEnd(8)} ${a.rule}: ${a.metric} ${value}`);
  }
  if (result.unevaluated.length > 0) {
    lines.push('Not evaluated:');
    for (const u of result.unevaluated) lines.push(`  ${u.rule}: ${u.reason}`);
  }
  lines.push(`Notifications that would be published: ${result.notifications.length}`);
  for (const n of result.notifications) lines.push('', `Subject: ${n.subject}`, n.message);
  return `${lines.join('\n')}\n`;
}

function exitCode(observation: Observation, result: EvaluateResult): number {
  if (observation.kind === 'down') return EXIT.unknown;
  const firing = result.alerts.filter((a) => a.state === 'firing');
  if (firing.some((a) => a.severity === 'critical')) return EXIT.critical;
  return firing.some((a) => a.severity === 'warning') ? EXIT.warning : EXIT.ok;
}

/**
 * Runs `check` with `args` (after the command name); returns the exit code.
 *
 * @example
 * await runCheck(['--file', 'web-1.html', '--state', 'state.json', '--now', '2026-11-22T12:00:00Z'], io) // 0, 1, 2 or 3
 */
async function runCheck(args: string[], io: CheckIo): Promise<number> {
  try {
    const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
    if (positionals.length > 0)
      throw new CheckUsageError(`expected no positional arguments, found "${positionals[0]}"`);
    if ((values.file === undefined) === (values.url === undefined)) {
      throw new CheckUsageError('expected exactly one of --file <path> or --url <url>');
    }
    const now = parseNow(values.now, io);
    const repeat = values['repeat-interval'];
    const repeatIntervalMs = repeat === undefined ? undefined : parseDuration(repeat);
    if (repeatIntervalMs === null)
      throw new CheckUsageError(`--repeat-interval expects a duration such as 4h, found "${repeat}"`);
    const capacity = values['max-request-workers'];
    const maxRequestWorkers = capacity === undefined ? null : Number(capacity);
    if (maxRequestWorkers !== null && !(Number.isInteger(maxRequestWorkers) && maxRequestWorkers >= 1)) {
      throw new CheckUsageError(`--max-request-workers expects a whole number of 1 or more, found "${capacity}"`);
    }
    let target = values.target;
    if (target === undefined) {
      try {
        target = values.url !== undefined ? new URL(values.url).host : basename(values.file as string);
      } catch (error) {
        throw new CheckUsageError(`--url expects a URL, found "${values.url}"`, { cause: error });
      }
    }
    const { rules, silences } = await loadConfig(values, io);
    const store = values.state !== undefined ? createFileStateStore(values.state) : createMemoryStateStore();
    const previous = await store.load(target);
    const observation = await observe(values, io);
    const result = evaluateTarget({
      target,
      observation,
      rules,
      silences,
      previous,
      now,
      options: repeatIntervalMs === undefined ? {} : { repeatIntervalMs },
      maxRequestWorkers,
    });
    await store.save(result.state);
    io.stdout(values.json ? renderJson(target, now, result) : renderText(target, now, result));
    if (observation.kind === 'down') io.stderr(`check: ${target}: ${observation.reason}: ${observation.detail}\n`);
    return exitCode(observation, result);
  } catch (error) {
    io.stderr(`check: ${oneLine(error)}\n`);
    return EXIT.unknown;
  }
}

export type { CheckIo };
export { runCheck };
