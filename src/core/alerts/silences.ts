/**
 * Silences documents: validated and merged into `Silence`s (silenceMatch.ts: what one is and
 * when it matches, kept apart so that evaluating loads no schema).
 */

import { DocumentsValidationError, issuesToProblems, readItems } from '../rules/problems.ts';
import { globSchema } from '../rules/schema.ts';
import type { ValidationProblem } from '../rules/types.ts';
import { z } from '../zod.ts';
import { findSilence, type Silence, silenceActive } from './silenceMatch.ts';

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

export type { Silence };
export { findSilence, parseSilencesDocuments, SilencesValidationError, silenceActive, silenceSchema };
