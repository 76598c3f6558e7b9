import { describe, expect, it } from 'vitest';
import { forwardDecision, resolvedSince } from '../../../src/core/pagerduty/forwardDecision.ts';

describe('forwardDecision', () => {
  const trigger = (order: number | null, part = 1) => ({ order, part, action: 'trigger' as const });
  const resolve = (order: number | null, part = 1) => ({ order, part, action: 'resolve' as const });
  /** What the ledger knows: `parts` accepted at `order` ([] when only attempted); open unless a resolve was accepted. */
  const known = (
    order: number,
    parts: number[],
    action: 'trigger' | 'resolve' | null = 'trigger',
    open = action !== 'resolve' || parts.length === 0,
  ) => ({ order, parts, action, open });
  it.each([
    { event: trigger(null), known: known(9, [1]), expected: [true, 'unordered'] },
    { event: resolve(null), known: null, expected: [true, 'unordered'] },
    { event: trigger(5), known: null, expected: [true, 'first'] },
    { event: trigger(6), known: known(5, [1]), expected: [true, 'newer'] },
    { event: trigger(5, 2), known: known(5, [1]), expected: [true, 'other-part'] },
    { event: trigger(5), known: known(5, [1, 2]), expected: [false, 'duplicate'] },
    { event: trigger(4, 3), known: known(5, [1]), expected: [false, 'stale'] },
    { event: resolve(6), known: known(5, [1]), expected: [true, 'newer'] },
    { event: resolve(6), known: known(5, [1], null), expected: [true, 'newer'] },
    { event: resolve(5), known: null, expected: [false, 'never-triggered'] },
    { event: resolve(7), known: known(6, [1], 'resolve'), expected: [false, 'already-resolved'] },
    { event: resolve(6, 2), known: known(6, [1], 'resolve'), expected: [false, 'already-resolved'] },
    { event: resolve(4), known: known(6, [1], 'resolve'), expected: [false, 'stale'] },
    { event: trigger(7), known: known(6, [1], 'resolve'), expected: [true, 'newer'] },
    // A trigger attempted, its answer lost: its retry is sent again; the next resolve closes it.
    { event: trigger(5), known: known(5, []), expected: [true, 'other-part'] },
    { event: resolve(6), known: known(5, []), expected: [true, 'newer'] },
    // A resolve attempted, its answer lost (the incident may still be open): older triggers stay out, its retry goes.
    { event: trigger(5), known: known(6, [], 'resolve'), expected: [false, 'stale'] },
    { event: resolve(6), known: known(6, [], 'resolve'), expected: [true, 'other-part'] },
    // A resolve attempted while nothing was open (a race): a later resolve needs no sending.
    { event: resolve(7), known: known(6, [], 'resolve', false), expected: [false, 'already-resolved'] },
  ])('$event.action order $event.order part $event.part against $known: $expected', ({ event, known, expected }) => {
    // Act
    const decision = forwardDecision(event, known);

    // Assess
    expect([decision.send, decision.reason]).toEqual(expected);
  });
});

describe('resolvedSince', () => {
  const known = (order: number, action: 'trigger' | 'resolve' | null, parts: number[] = []) => ({
    order,
    parts,
    action,
    open: action !== 'resolve' || parts.length === 0,
  });
  it.each([
    { accepted: { order: 5, action: 'trigger' as const }, known: known(7, 'resolve'), expected: true },
    { accepted: { order: 5, action: 'trigger' as const }, known: known(7, 'resolve', [1]), expected: true },
    { accepted: { order: 5, action: 'trigger' as const }, known: known(7, 'trigger'), expected: false },
    { accepted: { order: 5, action: 'trigger' as const }, known: known(7, null), expected: false },
    { accepted: { order: 5, action: 'trigger' as const }, known: known(5, 'resolve'), expected: false },
    { accepted: { order: 5, action: 'trigger' as const }, known: null, expected: false },
    { accepted: { order: 5, action: 'resolve' as const }, known: known(7, 'resolve'), expected: false },
  ])('$accepted.action $accepted.order against $known: $expected', ({ accepted, known, expected }) => {
    expect(resolvedSince(accepted, known)).toBe(expected);
  });
});
