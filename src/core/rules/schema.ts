/**
 * The rules document's schema (zod). Messages say what is expected; the caller adds what was found.
 */

import type { output } from 'zod/mini';
import { SEVERITY_EXPECTED, SEVERITY_NAMES } from '../rules/types.ts';
import { z } from '../zod.ts';
import { parseDuration } from './duration.ts';
import { GROUP_FIELDS, LABEL_PREFIX } from './groupFields.ts';
import { metricSpec } from './metrics.ts';
import { OPS } from './types.ts';

const NAME = /^[a-z0-9-]{1,64}$/;
const DURATION_HINT = 'expected a duration such as 30s, 5m, 1h or 1h30m';
const MAX_TEXT = 500;
/** A group key holds one value per field (a label's up to 256 characters): ten bound it, and no grouping needs more. */
const MAX_GROUP_BY = 10;
const GROUP_FIELD_HINT = `expected ${GROUP_FIELDS.join(', ')} or ${LABEL_PREFIX}<name>`;

const duration = z
  .string({ error: DURATION_HINT })
  .check(z.refine((s) => parseDuration(s) !== null, { error: DURATION_HINT }));
/** A `groupBy` field; a label name is any non-empty key, as target labels accept any key. */
function isGroupField(field: string): boolean {
  return (
    (GROUP_FIELDS as readonly string[]).includes(field) ||
    (field.startsWith(LABEL_PREFIX) && field.length > LABEL_PREFIX.length)
  );
}

const groupBy = z
  .array(z.string({ error: GROUP_FIELD_HINT }).check(z.refine(isGroupField, { error: GROUP_FIELD_HINT })), {
    error: `expected an array of ${GROUP_FIELDS.join(', ')} or ${LABEL_PREFIX}<name> fields`,
  })
  .check(
    z.maxLength(MAX_GROUP_BY, { error: `expected at most ${MAX_GROUP_BY} fields` }),
    z.refine((fields) => new Set(fields).size === fields.length, { error: 'expected each field at most once' }),
  );
// A group interval of 0 would page on every change, which is what `groupBy: []` says plainly.
const groupInterval = duration.check(
  z.refine((s) => parseDuration(s) !== 0, { error: 'expected a duration above 0s such as 30s or 5m' }),
);

const glob = z
  .string({ error: 'expected a name or * glob' })
  .check(
    z.regex(/^[A-Za-z0-9._:*-]{1,128}$/, { error: 'expected a name or * glob of letters, digits, . _ : - and *' }),
  );

const ruleSchema = z.strictObject(
  {
    name: z
      .string({ error: 'expected a string' })
      .check(z.regex(NAME, { error: 'expected lower-case letters, digits and -' })),
    metric: z
      .string({ error: 'expected a metric name' })
      .check(z.refine((m) => metricSpec(m) !== undefined, { error: 'expected a metric of the catalogue' })),
    op: z.enum(OPS, { error: `expected one of ${OPS.join(' ')}` }),
    threshold: z
      .number({ error: 'expected a number' })
      .check(z.refine((n) => Number.isFinite(n), { error: 'expected a finite number' })),
    clearThreshold: z.optional(
      z
        .number({ error: 'expected a number' })
        .check(z.refine((n) => Number.isFinite(n), { error: 'expected a finite number' })),
    ),
    for: z.optional(duration),
    keepFiringFor: z.optional(duration),
    severity: z.optional(z.enum(SEVERITY_NAMES, { error: SEVERITY_EXPECTED })),
    summary: z.optional(
      z
        .string({ error: 'expected a string' })
        .check(z.maxLength(MAX_TEXT, { error: `expected at most ${MAX_TEXT} characters` })),
    ),
    runbook: z.optional(
      z
        .string({ error: 'expected a string' })
        .check(z.regex(/^https?:\/\/[^\s<>"`]{1,490}$/, { error: 'expected an http(s) URL without spaces' })),
    ),
    minSamples: z.optional(
      z.number({ error: 'expected a number' }).check(
        z.refine((n) => Number.isInteger(n), { error: 'expected a whole number' }),
        z.gte(1, { error: 'expected at least 1' }),
      ),
    ),
    targets: z.optional(
      z
        .array(glob, { error: 'expected an array of names or * globs' })
        .check(z.minLength(1, { error: 'expected at least one target' })),
    ),
    groupBy: z.optional(groupBy),
    groupInterval: z.optional(groupInterval),
    enabled: z.optional(z.boolean({ error: 'expected true or false' })),
  },
  { error: 'expected a rule object' },
);

/**
 * A rule switched off (`"enabled": false`): its name is enough, so a built-in rule is switched off
 * without copying it; any other field given is checked as on any rule.
 */
const disabledRuleSchema = z.partial(ruleSchema, {
  metric: true,
  op: true,
  threshold: true,
  clearThreshold: true,
  for: true,
  keepFiringFor: true,
  severity: true,
  summary: true,
  runbook: true,
  minSamples: true,
  targets: true,
  groupBy: true,
  groupInterval: true,
  enabled: true,
});

/**
 * A rules document's fields beside `rules`: the defaults of its rules. Unknown keys are the
 * document reader's to report, so this schema is not strict.
 */
const documentDefaultsSchema = z.object({
  groupBy: z.optional(groupBy),
  groupInterval: z.optional(groupInterval),
});

type RuleInput = output<typeof ruleSchema>;
type DocumentDefaults = output<typeof documentDefaultsSchema>;

const RULE_FIELDS = Object.keys(ruleSchema.shape);
const DOCUMENT_DEFAULT_FIELDS = Object.keys(documentDefaultsSchema.shape);

export type { DocumentDefaults, RuleInput };
export {
  DOCUMENT_DEFAULT_FIELDS,
  disabledRuleSchema,
  documentDefaultsSchema,
  glob as globSchema,
  NAME as RULE_NAME,
  RULE_FIELDS,
  ruleSchema,
};
