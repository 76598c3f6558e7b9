/**
 * Silences: time-bounded matchers (target, rule) that suppress notifications. The alert's state
 * still advances, so what a silence held back is sent when it ends.
 */

import { globMatch } from '../rules/glob.ts';
import { DocumentsValidationError, issuesToProblems, readItems } from '../rules/problems.ts';
import { globSchema } from '../rules/schema.ts';
import type { ValidationProblem } from '../rules/types.ts';
import { z } from '../zod.ts';

interface Silence {
  /** Where it came from (SSM parameter name or file), for people. */
  source: string;
  /** Target name or `*` glob. */
  target: string;
  /** Rule name or `*` glob. */
  rule: string;
  /** Start of a scheduled silence (maintenance window), ISO-8601 (UTC); null: in force at once. */
  startsAt: string | null;
  /** End of the silence, ISO-8601 (UTC). */
  until: string;
  comment: string | null;
}

const isoTime = z.iso.datetime({
  offset: true,
  error: 'expected an ISO-8601 time with a zone, e.g. 2026-11-22T14:00:00Z',
});

const silenceSchema = z.strictObject(
  {
    target: z.optional(globSchema),
    rule: z.optional(globSchema),
    startsAt: z.optional(isoTime),
    until: isoTime,
    comment: z.optional(
      z.string({ error: 'expected a string' }).check(z.maxLength(500, { error: 'expected at most 500 characters' })),
    ),
  },
  { error: 'expected a silence object' },
);

const SILENCE_FIELDS = Object.keys(silenceSchema.shape);

/** The silences documents are invalid; `problems` lists every problem (rule = `#n`, the silence's position). */
class SilencesValidationError extends DocumentsValidationError {
  constructor(problems: ValidationProblem[], options?: ErrorOptions) {
    super('silences', problems, options);
    this.name = 'SilencesValidationError';
  }
}

/**
 * Validates and merges silences documents (`{ "silences": [...] }` each).
 *
 * @throws SilencesValidationError listing every problem of every document
 * @example
 * parseSilencesDocuments([{ source: 'maint.json', text: '{"silences":[{"target":"web-*","until":"2026-11-22T14:00:00Z"}]}' }])
 */
function parseSilencesDocuments(docs: ReadonlyArray<{ source: string; text: string }>): Silence[] {
  const problems: ValidationProblem[] = [];
  const silences: Silence[] = [];
  for (const { source, text } of docs) {
    const items = readItems(source, text, 'silences', problems);
    if (items === null) continue;
    items.forEach((raw, index) => {
      const parsed = silenceSchema.safeParse(raw);
      if (!parsed.success) {
        problems.push(...issuesToProblems(source, `#${index + 1}`, raw, parsed.error.issues, SILENCE_FIELDS));
        return;
      }
      const { target = '*', rule = '*', startsAt, until, comment = null } = parsed.data;
      const start = startsAt === undefined ? null : new Date(startsAt).toISOString();
      const end = new Date(until).toISOString();
      if (start !== null && start >= end) {
        const message = `expected startsAt before until (${end}), found ${start}`;
        problems.push({ source, rule: `#${index + 1}`, field: 'startsAt', message });
        return;
      }
      silences.push({ source, target, rule, startsAt: start, until: end, comment });
    });
  }
  if (problems.length > 0) throw new SilencesValidationError(problems);
  return silences;
}

/** Whether the silence is in force at `now`: from `startsAt` (inclusive) until `until` (exclusive). */
function silenceActive(silence: Silence, now: Date): boolean {
  const at = now.getTime();
  return (silence.startsAt === null || at >= Date.parse(silence.startsAt)) && at < Date.parse(silence.until);
}

/** The first silence in force at `now` for this target and rule, if any. */
function findSilence(silences: readonly Silence[], target: string, rule: string, now: Date): Silence | undefined {
  return silences.find((s) => silenceActive(s, now) && globMatch(s.target, target) && globMatch(s.rule, rule));
}

export type { Silence };
export { findSilence, parseSilencesDocuments, SilencesValidationError, silenceActive, silenceSchema };
