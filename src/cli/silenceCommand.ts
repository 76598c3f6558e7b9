/**
 * `silence add|list|expire`: maintenance silences in SSM, one silences document per parameter
 * under `<prefix>/silences/`, validated by the same schema as the Lambda's before anything is written.
 */
import { createHash } from 'node:crypto';
import { parseSilencesDocuments, type Silence, silenceActive } from '../core/alerts/silences.ts';
import { TARGET_DOWN_RULE } from '../core/constants.ts';
import { targetEntries } from '../core/monitorConfig.ts';
import { didYouMean } from '../core/nearest.ts';
import { DEFAULT_RULES, rulesFromDocuments } from '../core/rules/document.ts';
import { parseDuration } from '../core/rules/duration.ts';
import { globMatch } from '../core/rules/glob.ts';
import { DocumentsValidationError } from '../core/rules/problems.ts';
import { cleanConfigText } from '../core/text/sanitize.ts';
import {
  type AdminIo,
  type CliCommand,
  type CommandIo,
  EXIT,
  leaf,
  oneLine,
  parseOptions,
  RefusedError,
  removeNamed,
  resolvePrefix,
  runSubcommand,
  UsageError,
} from './commandSupport.ts';

type SilenceIo = CommandIo & AdminIo;

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** Which option set each field of the silence, for problems found by the document's schema. */
const OPTION_OF_FIELD: Record<string, string> = {
  target: '--target',
  rule: '--rule',
  startsAt: '--starts-at',
  until: '--until/--for',
  comment: '--comment',
};

const usage = `Usage:
  httpd-status-alerts silence add --target <glob> --rule <glob> (--for <duration> | --until <ISO-8601>)
                                  [--starts-at <ISO-8601>] --comment <text> [--name <name>] [--force] [--prefix <path>]
  httpd-status-alerts silence list [--all] [--prefix <path>]
  httpd-status-alerts silence expire <name> [--prefix <path>]
`;

const help = `${usage}
Silences stop pages for the alerts they match (target and rule names or * globs) while the alert
state still advances: an alert still firing when the silence ends is sent then. Each silence is
one parameter <prefix>/silences/<name> holding { "silences": [ ... ] }.

  add      writes one silence; --for counts from --starts-at (default now). A generated name is
           the start time and a short hash of the silence. Prints the name. A silence whose
           target or rule matches nothing configured is refused, naming the nearest names
           (--force adds it anyway, e.g. for a target about to be added).
  list     active and scheduled silences, with the configured targets they match (--all: also
           the ones that ended)
  expire   deletes the silence's parameter: its alerts page again from the next run

--prefix defaults to $SSM_PREFIX, else /httpd-status-alerts. AWS credentials and region are the
SDK's usual ones (AWS_PROFILE, AWS_REGION, ...).
`;

/** ISO-8601 without milliseconds when they are zero. */
function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

function parseTime(option: string, text: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms))
    throw new UsageError(`${option} expects an ISO-8601 time such as 2026-11-22T14:00:00Z, found "${text}"`);
  return ms;
}

/** The silence, validated by the Lambda's schema; problems name the option that set the field. */
function validated(source: string, silence: Record<string, string>): Silence {
  try {
    return parseSilencesDocuments([{ source, text: JSON.stringify({ silences: [silence] }) }])[0] as Silence;
  } catch (error) {
    if (!(error instanceof DocumentsValidationError)) throw error;
    const why = error.problems.map((p) => `${OPTION_OF_FIELD[p.field ?? ''] ?? p.field}: ${p.message}`);
    throw new UsageError(why.join('; '), { cause: error });
  }
}

/** Matchers, window and comment; a silence without startsAt has been in force since it was written. */
function describeSilence(s: Silence): string {
  const from = s.startsAt === null ? '' : `from ${isoTime(Date.parse(s.startsAt))} `;
  const comment = cleanConfigText(s.comment ?? '', 120);
  return `target "${s.target}", rule "${s.rule}", ${from}until ${isoTime(Date.parse(s.until))}: ${comment}`;
}

/** The configured targets a silence's target glob matches, for people. */
function matchesOf(s: Silence, targets: readonly string[]): string {
  const matched = targets.filter((t) => globMatch(s.target, t));
  return `[matches ${matched.length === 0 ? 'no configured target' : matched.join(', ')}]`;
}

/** What a silences parameter holds, for people: its silences, or that it is invalid. */
function describeDocument(parameter: string, text: string): string {
  try {
    return parseSilencesDocuments([{ source: parameter, text }])
      .map(describeSilence)
      .join('; ');
  } catch {
    return 'an invalid silences document';
  }
}

/**
 * The rule names the monitor evaluates: the rules documents under the prefix merged over the
 * built-in rules (the built-in rules alone when there are none, or when they are invalid: the
 * Lambda then keeps its last valid rules, which a silence cannot see), and the built-in target-down.
 */
function configuredRuleNames(parameters: Record<string, string>): string[] {
  let rules = DEFAULT_RULES;
  const docs = Object.entries(parameters).map(([source, text]) => ({ source, text }));
  if (docs.length > 0) {
    try {
      rules = rulesFromDocuments(docs);
    } catch {
      rules = DEFAULT_RULES;
    }
  }
  return [...new Set([...rules.map((r) => r.name), TARGET_DOWN_RULE])];
}

/** Refused: a silence whose target or rule glob matches nothing configured. */
function refuseMatchingNothing(silence: Silence, targets: readonly string[], rules: readonly string[]): void {
  const problems: string[] = [];
  const check = (option: string, glob: string, names: readonly string[], what: string) => {
    if (names.some((n) => globMatch(glob, n))) return;
    const none = names.length === 0 ? `there are no ${what}` : `it matches none of the ${names.length} ${what}`;
    problems.push(`${option} "${glob}": ${none}${didYouMean(glob, names)}`);
  };
  check('--target', silence.target, targets, 'configured targets');
  check('--rule', silence.rule, rules, 'rules');
  if (problems.length > 0)
    throw new RefusedError(
      `expected a silence that matches a configured target and rule, found ${problems.join('; ')} (--force adds it anyway)`,
    );
}

async function add(args: string[], io: SilenceIo): Promise<number> {
  const { values, positionals } = parseOptions(
    args,
    {
      target: { type: 'string' },
      rule: { type: 'string' },
      for: { type: 'string' },
      until: { type: 'string' },
      'starts-at': { type: 'string' },
      comment: { type: 'string' },
      name: { type: 'string' },
      prefix: { type: 'string' },
      force: { type: 'boolean' },
    },
    true,
  );
  if (positionals.length > 0) throw new UsageError(`expected no positional arguments, found "${positionals[0]}"`);
  const prefix = resolvePrefix(values.prefix, io.env);
  for (const required of ['target', 'rule', 'comment'] as const)
    if (values[required] === undefined) throw new UsageError(`--${required} is required`);
  if ((values.for === undefined) === (values.until === undefined))
    throw new UsageError('expected exactly one of --for <duration> or --until <ISO-8601>');
  if (values.name !== undefined && !NAME.test(values.name))
    throw new UsageError(`--name expects letters, digits, _ . - (at most 128), found "${values.name}"`);
  const nowMs = io.now().getTime();
  const startMs = values['starts-at'] === undefined ? null : parseTime('--starts-at', values['starts-at']);
  let untilMs: number;
  if (values.for !== undefined) {
    const forMs = parseDuration(values.for);
    if (forMs === null || forMs <= 0)
      throw new UsageError(`--for expects a duration such as 30m, 2h or 1h30m, found "${values.for}"`);
    untilMs = (startMs ?? nowMs) + forMs;
  } else untilMs = parseTime('--until', values.until as string);
  if (untilMs <= nowMs)
    throw new UsageError(`expected the silence to end after now (${isoTime(nowMs)}), found ${isoTime(untilMs)}`);

  const document: Record<string, string> = {
    target: values.target as string,
    rule: values.rule as string,
    ...(startMs === null ? {} : { startsAt: isoTime(startMs) }),
    until: isoTime(untilMs),
    comment: values.comment as string,
  };
  const name =
    values.name ??
    `${isoTime(startMs ?? nowMs).replace(/[-:]/g, '')}-${createHash('sha256').update(JSON.stringify(document)).digest('hex').slice(0, 6)}`;
  const parameter = `${prefix}/silences/${name}`;
  const silence = validated(parameter, document);
  // Why: a mistyped target or rule silences nothing while on-call believes it does; refuse it
  // (naming the nearest names) unless --force. Read before writing: a refusal writes nothing.
  const [targetParameters, ruleParameters] = await Promise.all([
    io.ssm().list(`${prefix}/targets`),
    io.ssm().list(`${prefix}/rules`),
  ]);
  // By target, a list document's entries each (a parameter may hold several).
  const targets = targetEntries(targetParameters).map((e) => e.name);
  if (values.force !== true) refuseMatchingNothing(silence, targets, configuredRuleNames(ruleParameters));
  await io.ssm().put(parameter, JSON.stringify({ silences: [document] }), { replace: false });
  io.stdout(`silence ${name} added (${parameter}): ${describeSilence(silence)}  ${matchesOf(silence, targets)}\n`);
  return EXIT.ok;
}

async function list(args: string[], io: SilenceIo): Promise<number> {
  const { values, positionals } = parseOptions(args, { all: { type: 'boolean' }, prefix: { type: 'string' } }, true);
  if (positionals.length > 0) throw new UsageError(`expected no positional arguments, found "${positionals[0]}"`);
  const prefix = resolvePrefix(values.prefix, io.env);
  const now = io.now();
  const [documents, targets] = await Promise.all([
    io.ssm().list(`${prefix}/silences`),
    io.ssm().list(`${prefix}/targets`),
  ]);
  const targetNames = targetEntries(targets).map((e) => e.name);
  const lines: string[] = [];
  let invalid = 0;
  for (const [parameter, text] of Object.entries(documents)) {
    let silences: Silence[];
    try {
      silences = parseSilencesDocuments([{ source: parameter, text }]);
    } catch (error) {
      invalid += 1;
      io.stderr(`silence list: ${leaf(parameter)}: invalid, the Lambda rejects it: ${oneLine(error)}\n`);
      continue;
    }
    for (const s of silences) {
      const ended = now.getTime() >= Date.parse(s.until);
      if (ended && values.all !== true) continue;
      const state = ended ? 'ended' : silenceActive(s, now) ? 'active' : 'scheduled';
      lines.push(`${leaf(parameter)}  ${state}  ${describeSilence(s)}  ${matchesOf(s, targetNames)}`);
    }
  }
  const what = values.all === true ? 'silences' : 'active or scheduled silences';
  io.stdout(lines.length === 0 ? `no ${what} under ${prefix}/silences\n` : `${lines.join('\n')}\n`);
  return invalid > 0 ? EXIT.failed : EXIT.ok;
}

async function expire(args: string[], io: SilenceIo): Promise<number> {
  const { values, positionals } = parseOptions(args, { prefix: { type: 'string' } }, true);
  if (positionals.length !== 1) throw new UsageError(`expected one silence name, found ${positionals.length}`);
  const name = positionals[0] as string;
  if (!NAME.test(name)) throw new UsageError(`expected a silence name of letters, digits, _ . -, found "${name}"`);
  const prefix = resolvePrefix(values.prefix, io.env);
  const { parameter, value } = await removeNamed(io, prefix, 'silences', name, 'a silence', 'silence list');
  io.stdout(`silence ${name} expired: deleted ${parameter} (${describeDocument(parameter, value)})\n`);
  return EXIT.ok;
}

const SUBCOMMANDS = { add, list, expire } as const;

const silenceCommand: CliCommand<SilenceIo> = {
  name: 'silence',
  summary: 'add, list and expire maintenance silences in SSM',
  usage,
  help,
  run(argv, io) {
    return runSubcommand(silenceCommand, SUBCOMMANDS, argv, io);
  },
};

export { silenceCommand };
