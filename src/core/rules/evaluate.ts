/**
 * A rule against the computed metrics: the condition holds, does not hold, or cannot be evaluated.
 */
import type { MetricResult } from './compute.ts';
import { rangeAlerts } from './range.ts';
import type { Op, Rule } from './types.ts';

/**
 * `unbounded`: the metric has no finite value (see `MetricResult`); `holds` is the condition for
 * +infinity, so a firing forecast alert resolves when no exhaustion is in sight any more.
 */
type RuleOutcome =
  | { kind: 'value'; value: number; holds: boolean }
  | { kind: 'unbounded'; reason: string; holds: boolean }
  | { kind: 'unevaluated'; reason: string };

/** `value op threshold`. */
function compare(op: Op, value: number, threshold: number): boolean {
  switch (op) {
    case '<':
      return value < threshold;
    case '<=':
      return value <= threshold;
    case '>':
      return value > threshold;
    case '>=':
      return value >= threshold;
    case '==':
      return value === threshold;
    case '!=':
      return value !== threshold;
  }
}

/** Whether the rule's condition holds for `value`: its range when it has one, else `value op threshold`. */
function holds(rule: Rule, value: number): boolean {
  return rule.range === undefined ? compare(rule.op, value, rule.threshold) : rangeAlerts(rule.range, value);
}

/**
 * Evaluates one rule. A metric the observation cannot give leaves the rule unevaluated with the
 * reason (never a made-up 0); so does a sample count below the rule's `minSamples`.
 *
 * @param absentReason - why a metric missing from `metrics` is missing (e.g. the target is down)
 */
function evaluateRule(rule: Rule, metrics: ReadonlyMap<string, MetricResult>, absentReason: string): RuleOutcome {
  const result = metrics.get(rule.metric);
  if (result === undefined) return { kind: 'unevaluated', reason: absentReason };
  if (!result.ok && result.unbounded === true) {
    return {
      kind: 'unbounded',
      reason: result.reason,
      holds: holds(rule, Number.POSITIVE_INFINITY),
    };
  }
  if (!result.ok) return { kind: 'unevaluated', reason: result.reason };
  if (rule.minSamples !== null && result.samples !== null && result.samples < rule.minSamples) {
    return {
      kind: 'unevaluated',
      reason: `${result.samples} samples in the window, fewer than minSamples ${rule.minSamples}`,
    };
  }
  return { kind: 'value', value: result.value, holds: holds(rule, result.value) };
}

export type { RuleOutcome };
export { compare, evaluateRule };
