/**
 * The rules test file of `rules test`, validated whole: every problem listed with its path in the
 * file, what was expected and what was found.
 */
import type { output } from 'zod/mini';
import { parseDuration } from '../core/rules/duration.ts';
import { SEVERITY_EXPECTED, SEVERITY_NAMES } from '../core/rules/types.ts';
import { z } from '../core/zod.ts';
import { RefusedError } from './commandSupport.ts';

const ALERT_STATES = ['pending', 'firing'] as const;
const NOTIFICATION_STATUSES = ['firing', 'resolved'] as const;

const text = z.string({ error: 'expected a string' });
const files = z.optional(z.array(text, { error: 'expected an array of file paths' }));

const expectedAlert = z.strictObject({
  rule: text,
  state: z.enum(ALERT_STATES, { error: 'expected pending or firing' }),
  severity: z.optional(z.enum(SEVERITY_NAMES, { error: SEVERITY_EXPECTED })),
  value: z.optional(z.number({ error: 'expected a number' })),
});

const expectedNotification = z.strictObject({
  status: z.enum(NOTIFICATION_STATUSES, { error: 'expected firing or resolved' }),
  rule: text,
  severity: z.optional(z.enum(SEVERITY_NAMES, { error: SEVERITY_EXPECTED })),
  subject: z.optional(text),
});

const step = z.strictObject({
  at: z.iso.datetime({ offset: true, error: 'expected an ISO-8601 time with a zone, e.g. 2026-11-22T12:00:00Z' }),
  report: z.optional(text),
  /** The fetch failed this way instead (timeout, refused, http-404, ...). */
  down: z.optional(text),
  alerts: z.optional(z.array(expectedAlert, { error: 'expected an array of alerts' })),
  notifications: z.optional(z.array(expectedNotification, { error: 'expected an array of notifications' })),
});

const rulesTest = z.strictObject({
  name: text,
  target: z.optional(text),
  steps: z.array(step, { error: 'expected an array of steps' }).check(z.minLength(1, { error: 'expected a step' })),
});

const testFile = z.strictObject({
  rules: files,
  silences: files,
  repeatInterval: z.optional(
    text.check(z.refine((d) => parseDuration(d) !== null, { error: 'expected a duration such as 4h' })),
  ),
  tests: z.array(rulesTest, { error: 'expected an array of tests' }),
});

type RulesTestFile = output<typeof testFile>;
type RulesTest = RulesTestFile['tests'][number];
type TestStep = RulesTest['steps'][number];

function found(value: unknown): string {
  const shown = JSON.stringify(value) ?? 'nothing';
  return shown.length > 60 ? `${shown.slice(0, 57)}...` : shown;
}

/**
 * The parsed test file.
 *
 * @throws RefusedError listing every problem (`path: tests.0.steps.1.at: expected ..., found ...`)
 */
function validateTestFile(path: string, source: string): RulesTestFile {
  let json: unknown;
  try {
    json = JSON.parse(source);
  } catch (error) {
    throw new RefusedError(`${path}: expected a JSON rules test file, found invalid JSON: ${(error as Error).message}`);
  }
  const parsed = testFile.safeParse(json);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const where = issue.path.map(String).join('.') || '(file)';
      const value = issue.path.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k], json);
      const message =
        issue.code === 'unrecognized_keys'
          ? `unknown field(s) ${issue.keys.join(', ')}`
          : `${issue.message}, found ${found(value)}`;
      problems.push(`${where}: ${message}`);
    }
  } else {
    parsed.data.tests.forEach((t, i) => {
      t.steps.forEach((s, j) => {
        if ((s.report === undefined) === (s.down === undefined))
          problems.push(`tests.${i}.steps.${j}: expected exactly one of "report" or "down"`);
        if (j > 0 && Date.parse(s.at) <= Date.parse((t.steps[j - 1] as TestStep).at))
          problems.push(`tests.${i}.steps.${j}.at: expected a time after the previous step's, found ${s.at}`);
      });
    });
  }
  if (problems.length > 0 || !parsed.success)
    throw new RefusedError(`${path}: expected a valid rules test file, found: ${problems.join('; ')}`);
  return parsed.data;
}

export type { RulesTest, RulesTestFile, TestStep };
export { validateTestFile };
