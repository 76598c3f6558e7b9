import { describe, expect, it } from 'vitest';
import type { MetricResult } from '../../../src/core/rules/compute.ts';
import { compare, evaluateRule } from '../../../src/core/rules/evaluate.ts';
import type { Op, Rule } from '../../../src/core/rules/types.ts';

const rule = (over: Partial<Rule>): Rule => ({
  name: 'r',
  metric: 'ssl_cache_miss_ratio',
  op: '>',
  threshold: 0.5,
  clearThreshold: null,
  forMs: 0,
  keepFiringForMs: 0,
  severity: 'warning',
  summary: null,
  runbook: null,
  minSamples: null,
  targets: null,
  groupBy: ['rule'],
  groupIntervalMs: 300_000,
  ...over,
});

describe('compare', () => {
  it.each([
    ['<', 4, 5, true],
    ['<', 5, 5, false],
    ['<=', 5, 5, true],
    ['>', 6, 5, true],
    ['>', 5, 5, false],
    ['>=', 5, 5, true],
    ['==', 0, 0, true],
    ['==', 1, 0, false],
    ['!=', 1, 0, true],
    ['!=', 0, 0, false],
  ] as Array<[Op, number, number, boolean]>)('%s: %d vs %d is %s', (op, value, threshold, expected) => {
    expect(compare(op, value, threshold)).toBe(expected);
  });
});

describe('evaluateRule', () => {
  const metrics = new Map<string, MetricResult>([
    ['ssl_cache_miss_ratio', { ok: true, value: 0.7, samples: 99 }],
    ['slots_idle', { ok: true, value: 0, samples: null }],
    ['top_client_busy_slots', { ok: false, reason: 'the report has no per-slot table' }],
  ]);

  it.each([
    ['holds', rule({}), { kind: 'value', value: 0.7, holds: true }],
    [
      'below minSamples',
      rule({ minSamples: 100 }),
      { kind: 'unevaluated', reason: '99 samples in the window, fewer than minSamples 100' },
    ],
    ['at minSamples', rule({ minSamples: 99 }), { kind: 'value', value: 0.7, holds: true }],
    [
      'zero is a value, not missing',
      rule({ metric: 'slots_idle', op: '<', threshold: 5 }),
      { kind: 'value', value: 0, holds: true },
    ],
    [
      'metric the report cannot give',
      rule({ metric: 'top_client_busy_slots' }),
      { kind: 'unevaluated', reason: 'the report has no per-slot table' },
    ],
    ['metric absent (target down)', rule({ metric: 'slots_busy' }), { kind: 'unevaluated', reason: 'target is down' }],
  ])('%s', (_, r, expected) => {
    expect(evaluateRule(r, metrics, 'target is down')).toEqual(expected);
  });
});
