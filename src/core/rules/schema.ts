/**
 * The rules document's schema (zod). Messages say what is expected; the caller adds what was found.
 */

import type { output } from 'zod/mini';
import { SEVERITIES } from '../alerts/types.ts';
import { z } from '../zod.ts';
import { parseDuration } from './duration.ts';
import { metricSpec } from './metrics.ts';
import { OPS } from './types.ts';

const NAME = /^[a-z0-9-]{1,64}$/;
const DURATION_HINT = 'expected a duration such as 30s, 5m, 1h or 1h30m';
const MAX_TEXT = 500;

const duration = z
  .string({ error: DURATION_HINT })
  .check(z.refine((s) => parseDuration(s) !== null, { error: DURATION_HINT }));
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
    for: z.optional(duration),
    keepFiringFor: z.optional(duration),
    severity: z.optional(
      z.enum(Object.values(SEVERITIES) as [string, ...string[]], { error: 'expected critical, warning or info' }),
    ),
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
  },
  { error: 'expected a rule object' },
);

type RuleInput = output<typeof ruleSchema>;

const RULE_FIELDS = Object.keys(ruleSchema.shape);

export type { RuleInput };
export { glob as globSchema, NAME as RULE_NAME, RULE_FIELDS, ruleSchema };
