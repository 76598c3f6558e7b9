/**
 * `rules validate|test`: rules files checked by the Lambda's own schema, and unit tests of rules
 * in the spirit of `promtool test rules`: a test file names reports at evaluation times and the
 * alerts and notifications expected after each step; what differed is printed.
 */
import { dirname, resolve } from 'node:path';
import { parseSilencesDocuments, type Silence } from '../core/alerts/silences.ts';
import type { TargetState } from '../core/alerts/types.ts';
import { TARGET_DOWN_RULE } from '../core/constants.ts';
import { type EvaluateResult, evaluateTarget } from '../core/evaluate.ts';
import { didYouMean } from '../core/nearest.ts';
import { parseReport } from '../core/report/parse.ts';
import {
  DEFAULT_RULES,
  DEFAULT_RULES_DOCUMENT,
  readRulesDocuments,
  rulesFromDocuments,
} from '../core/rules/document.ts';
import { parseDuration } from '../core/rules/duration.ts';
import { DocumentsValidationError } from '../core/rules/problems.ts';
import type { Observation, Rule } from '../core/rules/types.ts';
import {
  type CliCommand,
  type CommandIo,
  EXIT,
  oneLine,
  parseOptions,
  RefusedError,
  runSubcommand,
  UsageError,
} from './commandSupport.ts';
import { type RulesTest, type RulesTestFile, type TestStep, validateTestFile } from './rulesTestFile.ts';

const usage = `Usage:
  httpd-status-alerts rules validate <rules-file>...
  httpd-status-alerts rules test <test-file>...
  httpd-status-alerts rules defaults
`;

const help = `${usage}
  validate  checks rules documents with the Lambda's own schema (names unique across all the
            files given), listing every problem with its file, rule and field
  test      runs rules unit tests: each test steps one target through reports at given times
            and compares the alerts (pending, firing) and the notifications (firing, resolved)
            after each step with the expected ones. Exit 0 when every test passes, 1 otherwise.
  defaults  prints the built-in rules as a rules document, to copy and edit. A rules document
            adds to the built-in rules: a rule of the same name replaces one, a rule with
            "enabled": false (its name is enough) switches one off, other rules are added.

A test file (JSON; paths are relative to it):
  { "rules": ["my-rules.json"],            (optional; merged over the built-in rules)
    "silences": ["maintenance.json"],       (optional)
    "repeatInterval": "4h",                 (optional)
    "tests": [ { "name": "...", "target": "web-1",
                 "steps": [ { "at": "2026-11-22T12:00:00Z", "report": "busy.html",
                              "alerts": [ { "rule": "client-concentration", "state": "pending" } ],
                              "notifications": [] },
                            { "at": "2026-11-22T12:01:00Z", "down": "timeout",
                              "alerts": [...], "notifications": [ { "status": "firing", "rule": "..." } ] } ] } ] }
An omitted "alerts" or "notifications" expects none. Alerts may also pin "severity" and "value",
notifications "severity" and "subject". rules-tests/ holds the tests of the built-in rules.
`;

/** Reads files as documents; an unreadable one is refused with its path. */
async function readDocs(paths: readonly string[], io: CommandIo) {
  return Promise.all(
    paths.map(async (source) => {
      try {
        return { source, text: await io.readText(source) };
      } catch (error) {
        throw new RefusedError(`cannot read ${source}: ${oneLine(error)}`, { cause: error });
      }
    }),
  );
}

async function validate(argv: string[], io: CommandIo): Promise<number> {
  // No options: refused in the words every other command uses.
  const args = parseOptions(argv, {}, true).positionals;
  if (args.length === 0) throw new UsageError('expected at least one rules file');
  try {
    const { rules, disabled } = readRulesDocuments(await readDocs(args, io));
    const names = rules.length === 0 ? '' : `: ${rules.map((r) => r.name).join(', ')}`;
    const off = disabled.length === 0 ? '' : `; built-in rule(s) switched off: ${disabled.join(', ')}`;
    io.stdout(`${rules.length} rule(s) in ${args.length} file(s) valid${names}${off}\n`);
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof DocumentsValidationError)) throw error;
    // Every problem on its own line: the first says why, the others where.
    io.stderr(`rules validate: ${error.message}\n`);
    return EXIT.failed;
  }
}

function describeStep(index: number, step: TestStep): string {
  return `step ${index + 1} at ${step.at}`;
}

/** What differs between the expected and the actual alerts and notifications of one step. */
function differences(step: TestStep, result: EvaluateResult): string[] {
  const out: string[] = [];
  const alerts = step.alerts ?? [];
  for (const e of alerts) {
    const a = result.alerts.find((x) => x.rule === e.rule);
    if (a === undefined) out.push(`alert ${e.rule}: expected ${e.state}, found none`);
    else {
      if (a.state !== e.state) out.push(`alert ${e.rule}: expected ${e.state}, found ${a.state} (value ${a.value})`);
      if (e.severity !== undefined && a.severity !== e.severity)
        out.push(`alert ${e.rule}: expected severity ${e.severity}, found ${a.severity}`);
      if (e.value !== undefined && a.value !== e.value)
        out.push(`alert ${e.rule}: expected value ${e.value}, found ${a.value}`);
    }
  }
  for (const a of result.alerts)
    if (!alerts.some((e) => e.rule === a.rule))
      out.push(`alert ${a.rule}: expected none, found ${a.state} (value ${a.value})`);
  const notes = step.notifications ?? [];
  for (const e of notes) {
    const n = result.notifications.find((x) => x.rule === e.rule && x.status === e.status);
    if (n === undefined) out.push(`notification ${e.status} ${e.rule}: expected, found none`);
    else {
      if (e.severity !== undefined && n.severity !== e.severity)
        out.push(`notification ${e.status} ${e.rule}: expected severity ${e.severity}, found ${n.severity}`);
      if (e.subject !== undefined && n.subject !== e.subject)
        out.push(`notification ${e.status} ${e.rule}: expected subject "${e.subject}", found "${n.subject}"`);
    }
  }
  for (const n of result.notifications)
    if (!notes.some((e) => e.rule === n.rule && e.status === n.status))
      out.push(`notification ${n.status} ${n.rule}: expected none, found "${n.subject}"`);
  return out;
}

async function observe(step: TestStep, base: string, io: CommandIo): Promise<Observation> {
  if (step.down !== undefined) return { kind: 'down', reason: step.down, detail: `rules test: ${step.down}` };
  const path = resolve(base, step.report as string);
  try {
    return { kind: 'report', report: parseReport(await io.readText(path)) };
  } catch (error) {
    throw new RefusedError(`report ${path}: ${oneLine(error)}`, { cause: error });
  }
}

interface Config {
  rules: Rule[];
  silences: Silence[];
  repeatIntervalMs?: number;
}

/** Expected rules that the configuration does not have: a typo would otherwise read as "found none". */
function unknownRules(test: RulesTest, config: Config): string[] {
  const names = [...new Set([...config.rules.map((r) => r.name), TARGET_DOWN_RULE])];
  const expected = new Set<string>();
  for (const step of test.steps) {
    for (const a of step.alerts ?? []) expected.add(a.rule);
    for (const n of step.notifications ?? []) expected.add(n.rule);
  }
  return [...expected]
    .filter((rule) => !names.includes(rule))
    .map((rule) => `  expected rule ${rule}: no rule of that name in the rules tested${didYouMean(rule, names)}`);
}

/**
 * One test: its steps in order, state carried between them. Returns the failure lines (none:
 * passed); a report that cannot be read fails the test at its step.
 */
async function runTest(test: RulesTest, config: Config, base: string, io: CommandIo): Promise<string[]> {
  let previous: TargetState | null = null;
  const failures = unknownRules(test, config);
  for (const [index, step] of test.steps.entries()) {
    let observation: Observation;
    try {
      observation = await observe(step, base, io);
    } catch (error) {
      failures.push(`  ${describeStep(index, step)}: ${oneLine(error)}`);
      break;
    }
    const result = evaluateTarget({
      target: test.target ?? 'web-1',
      observation,
      rules: config.rules,
      silences: config.silences,
      previous,
      now: new Date(step.at),
      options: config.repeatIntervalMs === undefined ? {} : { repeatIntervalMs: config.repeatIntervalMs },
    });
    previous = result.state;
    for (const d of differences(step, result)) failures.push(`  ${describeStep(index, step)}: ${d}`);
  }
  return failures;
}

async function loadConfig(file: RulesTestFile, base: string, io: CommandIo): Promise<Config> {
  const at = (paths: string[]) => paths.map((p) => resolve(base, p));
  try {
    const rules = file.rules === undefined ? DEFAULT_RULES : rulesFromDocuments(await readDocs(at(file.rules), io));
    const silences = file.silences === undefined ? [] : parseSilencesDocuments(await readDocs(at(file.silences), io));
    const repeat = file.repeatInterval === undefined ? undefined : (parseDuration(file.repeatInterval) as number);
    return { rules, silences, ...(repeat === undefined ? {} : { repeatIntervalMs: repeat }) };
  } catch (error) {
    if (error instanceof DocumentsValidationError) throw new RefusedError(error.message, { cause: error });
    throw error;
  }
}

/** The tests of one file; a file that cannot be read or whose rules are invalid fails as one test. */
async function runFile(path: string, io: CommandIo): Promise<{ passed: number; failed: number }> {
  let file: RulesTestFile;
  let config: Config;
  const base = dirname(path);
  try {
    const [doc] = await readDocs([path], io);
    file = validateTestFile(path, (doc as { text: string }).text);
    config = await loadConfig(file, base, io);
  } catch (error) {
    if (!(error instanceof RefusedError)) throw error;
    io.stdout(`FAIL ${path}\n  ${oneLine(error)}\n`);
    return { passed: 0, failed: 1 };
  }
  let passed = 0;
  let failed = 0;
  for (const t of file.tests) {
    const failures = await runTest(t, config, base, io);
    if (failures.length === 0) passed += 1;
    else failed += 1;
    io.stdout(`${failures.length === 0 ? 'PASS' : 'FAIL'} ${path}: ${t.name}\n`);
    if (failures.length > 0) io.stdout(`${failures.join('\n')}\n`);
  }
  return { passed, failed };
}

async function test(argv: string[], io: CommandIo): Promise<number> {
  const args = parseOptions(argv, {}, true).positionals;
  if (args.length === 0) throw new UsageError('expected at least one test file');
  let passed = 0;
  let failed = 0;
  for (const path of args) {
    const counts = await runFile(path, io);
    passed += counts.passed;
    failed += counts.failed;
  }
  // Always the last line, so a script or a person reading the tail knows how it went.
  io.stdout(`${passed} passed, ${failed} failed\n`);
  return failed === 0 ? EXIT.ok : EXIT.failed;
}

async function defaults(argv: string[], io: CommandIo): Promise<number> {
  const args = parseOptions(argv, {}, true).positionals;
  if (args.length > 0) throw new UsageError(`expected no arguments, found "${args[0]}"`);
  io.stdout(`${JSON.stringify(DEFAULT_RULES_DOCUMENT, null, 2)}\n`);
  return EXIT.ok;
}

const SUBCOMMANDS = { validate, test, defaults } as const;

const rulesCommand: CliCommand<CommandIo> = {
  name: 'rules',
  summary: 'validate rules files, run rules unit tests, print the built-in rules',
  usage,
  help,
  run(argv, io) {
    return runSubcommand(rulesCommand, SUBCOMMANDS, argv, io);
  },
};

export { rulesCommand };
