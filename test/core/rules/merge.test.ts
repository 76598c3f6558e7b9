import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES, readRulesDocuments, rulesFromDocuments } from '../../../src/core/rules/document.ts';
import { mergeRules } from '../../../src/core/rules/merge.ts';

const BUILT_IN = DEFAULT_RULES.map((r) => r.name);
const doc = (rules: unknown[]) => [{ source: 'mine.json', text: JSON.stringify({ rules }) }];
const closing30 = { name: 'closing-pileup', metric: 'connections_closing', op: '>=', threshold: 30 };
const busy = { name: 'busy-high', metric: 'slots_busy', op: '>=', threshold: 200, severity: 'critical' };

describe('mergeRules', () => {
  it.each([
    ['no document rules keeps the base', [], [], BUILT_IN],
    ['a new rule is added after the base', [busy], [], [...BUILT_IN, 'busy-high']],
    ['a disabled rule leaves', [], ['ssl-cache-misses'], BUILT_IN.filter((n) => n !== 'ssl-cache-misses')],
    [
      'a replaced rule keeps its place',
      [{ ...closing30 }],
      ['target-down'],
      BUILT_IN.filter((n) => n !== 'target-down'),
    ],
  ])('%s', (_, rules, disabled, names) => {
    const parsed = readRulesDocuments(doc(rules)).rules;
    expect(mergeRules(DEFAULT_RULES, { rules: parsed, disabled }).map((r) => r.name)).toEqual(names);
  });

  it('replaces the built-in rule of the same name with the document one, in its place', () => {
    const merged = rulesFromDocuments(doc([closing30]));
    expect(merged.map((r) => [r.name, r.threshold, r.forMs])).toEqual(
      DEFAULT_RULES.map((r) =>
        r.name === 'closing-pileup' ? ['closing-pileup', 30, 0] : [r.name, r.threshold, r.forMs],
      ),
    );
  });

  it('leaves only the documents rules over an empty base (--no-default-rules)', () => {
    const merged = rulesFromDocuments(doc([busy, { name: 'closing-pileup', enabled: false }]), []);
    expect(merged.map((r) => r.name)).toEqual(['busy-high']);
  });

  it('gives the built-in rules unchanged for an empty document', () => {
    expect(rulesFromDocuments(doc([]))).toEqual(DEFAULT_RULES);
  });
});

describe('readRulesDocuments: enabled', () => {
  it.each([
    ['a name alone switches a built-in off', [{ name: 'ssl-cache-misses', enabled: false }], [], ['ssl-cache-misses']],
    ['a whole rule switched off', [{ ...closing30, enabled: false }], [], ['closing-pileup']],
    ['enabled true is an ordinary rule', [{ ...busy, enabled: true }], ['busy-high'], []],
  ])('%s', (_, rules, names, disabled) => {
    const read = readRulesDocuments(doc(rules));
    expect([read.rules.map((r) => r.name), read.disabled]).toEqual([names, disabled]);
  });

  it.each([
    [
      'a switched-off name that is no built-in rule',
      { name: 'closing-pileups', enabled: false },
      'enabled',
      `expected "enabled": false only on a built-in rule (${BUILT_IN.join(', ')}), found "closing-pileups" (did you mean closing-pileup?)`,
    ],
    ['enabled not a boolean', { ...busy, enabled: 'no' }, 'enabled', 'expected true or false, found "no"'],
    [
      'a bad field beside enabled false',
      { name: 'closing-pileup', enabled: false, threshold: 'x' },
      'threshold',
      'expected a number, found "x"',
    ],
  ])('refuses %s', (_, rule, field, message) => {
    let problems: unknown;
    try {
      readRulesDocuments(doc([rule]));
    } catch (error) {
      problems = (error as { problems: unknown }).problems;
    }
    expect(problems).toEqual([{ source: 'mine.json', rule: (rule as { name: string }).name, field, message }]);
  });
});
