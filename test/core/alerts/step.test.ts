import { describe, expect, it } from 'vitest';
import { stepAlert } from '../../../src/core/alerts/step.ts';
import type { AlertRecord } from '../../../src/core/alerts/types.ts';
import { compare } from '../../../src/core/rules/evaluate.ts';
import type { Rule } from '../../../src/core/rules/types.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

const rule = (over: Partial<Rule>): Rule => ({
  name: 'idle-slots-low',
  metric: 'slots_free_ratio',
  op: '<',
  threshold: 0.05,
  clearThreshold: 0.1,
  forMs: 0,
  keepFiringForMs: 0,
  severity: 'critical',
  summary: null,
  runbook: null,
  minSamples: null,
  targets: null,
  groupBy: [],
  groupIntervalMs: 300_000,
  ...over,
});

/** Steps the alert once a minute through `values`; the state after each step. */
function walk(r: Rule, values: number[]): Array<Pick<AlertRecord, 'state' | 'firedAt' | 'resolvedAt'>> {
  let prev: AlertRecord | null = null;
  return values.map((value, minute) => {
    const outcome = { kind: 'value' as const, value, holds: compare(r.op, value, r.threshold) };
    const next = stepAlert(prev, r, 'web-1', outcome, at(minute));
    prev = next;
    return { state: next.state, firedAt: next.firedAt, resolvedAt: next.resolvedAt };
  });
}

describe('stepAlert (clearThreshold)', () => {
  it('fires once and resolves once for a value oscillating around the threshold', () => {
    // Act: below 0.05, then between 0.05 and 0.1 (the condition does not hold, not cleared), then past 0.1
    const steps = walk(rule({}), [0.04, 0.06, 0.04, 0.07, 0.049, 0.09, 0.1]);

    // Assess
    const fired = at(0).toISOString();
    expect(steps).toEqual([
      { state: 'firing', firedAt: fired, resolvedAt: null },
      { state: 'firing', firedAt: fired, resolvedAt: null },
      { state: 'firing', firedAt: fired, resolvedAt: null },
      { state: 'firing', firedAt: fired, resolvedAt: null },
      { state: 'firing', firedAt: fired, resolvedAt: null },
      { state: 'firing', firedAt: fired, resolvedAt: null },
      { state: 'inactive', firedAt: fired, resolvedAt: at(6).toISOString() },
    ]);
  });

  it('without clearThreshold the same values fire and resolve three times', () => {
    // Act
    const steps = walk(rule({ clearThreshold: null }), [0.04, 0.06, 0.04, 0.07, 0.049, 0.09, 0.1]);

    // Assess
    expect(steps.map((s) => s.state)).toEqual([
      'firing',
      'inactive',
      'firing',
      'inactive',
      'firing',
      'inactive',
      'inactive',
    ]);
  });

  it('keeps a quiet alert quiet between the two numbers', () => {
    // Act
    const steps = walk(rule({}), [0.2, 0.07, 0.06]);

    // Assess
    expect(steps.map((s) => s.state)).toEqual(['inactive', 'inactive', 'inactive']);
  });

  it('for op >, resolves only at or below the clear number', () => {
    // Act
    const steps = walk(rule({ op: '>', threshold: 20, clearThreshold: 10 }), [25, 15, 21, 11, 10]);

    // Assess
    expect(steps.map((s) => s.state)).toEqual(['firing', 'firing', 'firing', 'firing', 'inactive']);
  });

  it('lets a pending alert drop back between the two numbers (hysteresis holds firing alerts only)', () => {
    // Act
    const steps = walk(rule({ forMs: 120_000 }), [0.04, 0.07, 0.04, 0.04, 0.04, 0.07]);

    // Assess
    expect(steps.map((s) => s.state)).toEqual(['pending', 'inactive', 'pending', 'pending', 'firing', 'firing']);
  });

  it('starts keepFiringFor once the value passes the clear number, not before', () => {
    // Act
    const steps = walk(rule({ keepFiringForMs: 120_000 }), [0.04, 0.07, 0.2, 0.2, 0.2]);

    // Assess
    expect(steps.map((s) => s.state)).toEqual(['firing', 'firing', 'firing', 'firing', 'inactive']);
  });
});
