/**
 * The built-in rules as `Rule`s, and how a validated rule input becomes one. Kept apart from the
 * schemas (document.ts) so that what only evaluates, `check --file` without `--rules` first,
 * loads no validation library: the built-in document is checked by the schemas in a test
 * (test/core/rules/document.test.ts) instead of at every start.
 */
import { DEFAULT_GROUP_BY, DEFAULT_GROUP_INTERVAL_MS } from '../constants.ts';
import { SEVERITIES, type Severity } from '../rules/types.ts';
import { DEFAULT_RULES_DOCUMENT } from './defaults.ts';
import { parseDuration } from './duration.ts';
import type { DocumentDefaults, RuleInput } from './schema.ts';
import type { Rule } from './types.ts';

/** A rule's field wins over its document's default, which wins over the built-in default. */
function toRule(input: RuleInput, defaults: DocumentDefaults): Rule {
  const groupInterval = input.groupInterval ?? defaults.groupInterval;
  return {
    name: input.name,
    metric: input.metric,
    op: input.op,
    threshold: input.threshold,
    clearThreshold: input.clearThreshold ?? null,
    forMs: parseDuration(input.for ?? '0s') as number,
    keepFiringForMs: parseDuration(input.keepFiringFor ?? '0s') as number,
    severity: (input.severity ?? SEVERITIES.warning) as Severity,
    summary: input.summary ?? null,
    runbook: input.runbook ?? null,
    minSamples: input.minSamples ?? null,
    targets: input.targets ?? null,
    groupBy: [...(input.groupBy ?? defaults.groupBy ?? DEFAULT_GROUP_BY)],
    groupIntervalMs: groupInterval === undefined ? DEFAULT_GROUP_INTERVAL_MS : (parseDuration(groupInterval) as number),
  };
}

/** The built-in rules (see `defaults.ts`); the schemas accept them unchanged (a test says so). */
const DEFAULT_RULES: Rule[] = DEFAULT_RULES_DOCUMENT.rules.map((rule) => toRule(rule as RuleInput, {}));

export { DEFAULT_RULES, toRule };
