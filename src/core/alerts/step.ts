/**
 * One evaluation step of one alert (Prometheus' model): inactive -> pending -> firing, and back to
 * inactive with `resolvedAt` set. Time is passed in.
 */
import type { RuleOutcome } from '../rules/evaluate.ts';
import type { Rule } from '../rules/types.ts';
import { elapsedMs } from './elapsed.ts';
import { fingerprint } from './fingerprint.ts';
import type { AlertRecord } from './types.ts';

function newRecord(target: string, rule: Rule, id = fingerprint(target, rule.name)): AlertRecord {
  return {
    fingerprint: id,
    target,
    rule: rule.name,
    severity: rule.severity,
    state: 'inactive',
    activeAt: null,
    firedAt: null,
    resolvedAt: null,
    lastSentAt: null,
    lastSentStatus: null,
    value: null,
    threshold: rule.threshold,
    keepFiringSince: null,
  };
}

/**
 * Whether a firing alert's value has passed the rule's `clearThreshold` (hysteresis); without one,
 * any value where the condition does not hold clears it.
 */
function cleared(rule: Rule, value: number): boolean {
  const clear = rule.clearThreshold;
  if (clear === null) return true;
  return rule.op === '<' || rule.op === '<=' ? value >= clear : value <= clear;
}

/**
 * The alert after one evaluation. An unevaluated rule leaves the alert as it was (no spurious
 * resolve). The alert fires once the condition has held for `for` (`now - activeAt >= for`); a
 * firing alert counts as holding until its value passes `clearThreshold` (when the rule has one);
 * once its condition stops holding it stays firing for `keepFiringFor`, then resolves.
 *
 * @param id - the alert's fingerprint when the caller already has it; hashed from target and rule if not
 * @example
 * stepAlert(null, rule, 'web-1', { kind: 'value', value: 2, holds: true }, now).state // 'pending' (or 'firing' when for is 0s)
 */
function stepAlert(
  prev: AlertRecord | null,
  rule: Rule,
  target: string,
  outcome: RuleOutcome,
  now: Date,
  id?: string,
): AlertRecord {
  const next: AlertRecord = {
    ...(prev ?? newRecord(target, rule, id)),
    severity: rule.severity,
    threshold: rule.threshold,
  };
  next.keepFiringSince ??= null;
  if (outcome.kind === 'unevaluated') return next;
  // Written only where the state moves: a steady rule formats no timestamp.
  const at = (): string => now.toISOString();
  // An unbounded metric (no exhaustion in sight) has no value to record; it compares as +infinity.
  const value = outcome.kind === 'value' ? outcome.value : Number.POSITIVE_INFINITY;
  next.value = outcome.kind === 'value' ? outcome.value : null;
  if (outcome.holds || (next.state === 'firing' && !cleared(rule, value))) {
    next.keepFiringSince = null;
    if (next.state === 'inactive') {
      next.state = 'pending';
      next.activeAt = at();
    }
    if (next.state === 'pending' && elapsedMs(now, next.activeAt) >= rule.forMs) {
      next.state = 'firing';
      next.firedAt = at();
      next.resolvedAt = null;
    }
    return next;
  }
  if (next.state === 'pending') {
    next.state = 'inactive';
    next.activeAt = null;
  } else if (next.state === 'firing') {
    const since = next.keepFiringSince ?? at();
    if (elapsedMs(now, since) < rule.keepFiringForMs) {
      next.keepFiringSince = since;
      return next;
    }
    next.state = 'inactive';
    next.activeAt = null;
    next.resolvedAt = at();
    next.keepFiringSince = null;
  }
  return next;
}

export { stepAlert };
