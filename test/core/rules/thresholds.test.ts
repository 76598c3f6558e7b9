import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES } from '../../../src/core/rules/defaultRules.ts';
import { evaluateRule } from '../../../src/core/rules/evaluate.ts';
import { applyThresholds, parseThreshold } from '../../../src/core/rules/thresholds.ts';

const value = (v: number) => new Map([['slots_idle', { ok: true as const, value: v, samples: null }]]);

describe('parseThreshold', () => {
  it.each([
    // text, op and threshold its messages show, values where it holds, values where it does not
    ['slots_idle=5:', '<', 5, [0, 4], [5, 100]],
    ['slots_idle=10', '>', 10, [11], [0, 10]],
    ['slots_idle=~:10', '>', 10, [11], [-3, 10]],
    ['slots_idle=10:20', '>', 20, [9, 21], [10, 20]],
    ['slots_idle=@10:20', '>=', 10, [10, 20], [9, 21]],
    ['slots_idle=@~:3', '<=', 3, [3], [4]],
  ])('%s', (text, op, threshold, holding, quiet) => {
    const [rule] = applyThresholds([], [parseThreshold(text, 'critical')]);
    expect([rule?.name, rule?.op, rule?.threshold, rule?.severity, rule?.forMs]).toEqual([
      'slots-idle-critical',
      op,
      threshold,
      'critical',
      0,
    ]);
    const outcome = (v: number) => evaluateRule(rule as NonNullable<typeof rule>, value(v), 'absent');
    expect(holding.map((v) => outcome(v))).toEqual(holding.map((v) => ({ kind: 'value', value: v, holds: true })));
    expect(quiet.map((v) => outcome(v))).toEqual(quiet.map((v) => ({ kind: 'value', value: v, holds: false })));
  });

  it.each([
    ['slots_idle', 'expected <metric>=<range> such as slots_idle=5:, found "slots_idle" without "="'],
    [
      'slot_idle=5',
      'expected a metric name of docs/rules-and-cli.md before "=", found "slot_idle" (did you mean slots_idle?)',
    ],
    ['target_up=1', 'expected a metric name of docs/rules-and-cli.md before "=", found "target_up"'],
    ['slots_idle=', 'slots_idle: expected a range such as 10, 10:, ~:10, 10:20 or @10:20, found nothing'],
    ['slots_idle=five', 'slots_idle: expected a number as the end, found "five" in "five"'],
  ])('refuses %s', (text, message) => {
    expect(() => parseThreshold(text, 'warning')).toThrow(message);
  });
});

describe('applyThresholds', () => {
  it('replaces the rules watching the metric, keeps the others, adds one rule per threshold', () => {
    const rules = applyThresholds(DEFAULT_RULES, [
      parseThreshold('connections_closing=30', 'warning'),
      parseThreshold('connections_closing=60', 'critical'),
      parseThreshold('slots_idle=5:', 'critical'),
    ]);
    expect(rules.map((r) => r.name)).toEqual([
      ...DEFAULT_RULES.map((r) => r.name).filter((n) => n !== 'closing-pileup'),
      'connections-closing-warning',
      'connections-closing-critical',
      'slots-idle-critical',
    ]);
  });

  it('refuses two thresholds of one severity on a metric', () => {
    const twice = [parseThreshold('slots_idle=5:', 'warning'), parseThreshold('slots_idle=9:', 'warning')];
    expect(() => applyThresholds(DEFAULT_RULES, twice)).toThrow('expected one -w per metric, found slots_idle twice');
  });
});
