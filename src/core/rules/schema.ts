/**
 * The rules document's schema (zod). Messages say what is expected; the caller adds what was found.
 */
import { z } from 'zod';
import { SEVERITIES } from '../alerts/types.ts';
import { parseDuration } from './duration.ts';
import { metricSpec } from './metrics.ts';
import { OPS } from './types.ts';

const NAME = /^[a-z0-9-]{1,64}$/;
const DURATION_HINT = 'expected a duration such as 30s, 5m, 1h or 1h30m';
const MAX_TEXT = 500;

const duration = z.string({ error: DURATION_HINT }).refine((s) => parseDuration(s) !== null, { error: DURATION_HINT });
const glob = z
  .string({ error: 'expected a name or * glob' })
  .regex(/^[A-Za-z0-9._:*-]{1,128}$/, { error: 'expected a name or * glob of letters, digits, . _ : - and *' });

const ruleSchema = z.strictObject(
  {
    name: z.string({ error: 'expected a string' }).regex(NAME, { error: 'expected lower-case letters, digits and -' }),
    metric: z
      .string({ error: 'expected a metric name' })
      .refine((m) => metricSpec(m) !== undefined, { error: 'expected a metric of the catalogue' }),
    op: z.enum(OPS, { error: `expected one of ${OPS.join(' ')}` }),
    threshold: z.number({ error: 'expected a number' }).finite({ error: 'expected a finite number' }),
    for: duration.optional(),
    keepFiringFor: duration.optional(),
    severity: z
      .enum(Object.values(SEVERITIES) as [string, ...string[]], { error: 'expected critical, warning or info' })
      .optional(),
    summary: z
      .string({ error: 'expected a string' })
      .max(MAX_TEXT, { error: `expected at most ${MAX_TEXT} characters` })
      .optional(),
    runbook: z
      .string({ error: 'expected a string' })
      .regex(/^https?:\/\/[^\s<>"`]{1,490}$/, { error: 'expected an http(s) URL without spaces' })
      .optional(),
    minSamples: z
      .number({ error: 'expected a number' })
      .int({ error: 'expected a whole number' })
      .min(1, { error: 'expected at least 1' })
      .optional(),
    targets: z
      .array(glob, { error: 'expected an array of names or * globs' })
      .min(1, { error: 'expected at least one target' })
      .optional(),
  },
  { error: 'expected a rule object' },
);

type RuleInput = z.infer<typeof ruleSchema>;

const RULE_FIELDS = Object.keys(ruleSchema.shape);

export type { RuleInput };
export { glob as globSchema, NAME as RULE_NAME, RULE_FIELDS, ruleSchema };
