/** The decisions of one target's check: what to evaluate from, what to write, what to remember warm. */
import { describe, expect, it } from 'vitest';
import type { CommitOutcome } from '../../src/app/accounting/targetItems.ts';
import {
  changed,
  evaluateFrom,
  firstSeenOf,
  shouldWrite,
  spreadOffsetMs,
  warmAfter,
} from '../../src/app/checkTarget.ts';
import type { StoredState, WarmEntry } from '../../src/app/ports.ts';
import type { AlertRecord, TargetState } from '../../src/core/alerts/types.ts';

const NOW = new Date('2026-11-22T12:00:00Z');
const MIN = 60_000;

const state = (over: Partial<TargetState> = {}): TargetState => ({
  target: 'web-1',
  evaluatedAt: '2026-11-22T11:59:00.000Z',
  consecutiveFailures: 0,
  counters: null,
  alerts: {},
  ...over,
});
const record = (over: Partial<AlertRecord> = {}): AlertRecord => ({
  fingerprint: 'fp',
  target: 'web-1',
  rule: 'r',
  severity: 'warning',
  state: 'firing',
  activeAt: '2026-11-22T11:50:00.000Z',
  firedAt: '2026-11-22T11:50:00.000Z',
  resolvedAt: null,
  lastSentAt: '2026-11-22T11:50:00.000Z',
  lastSentStatus: 'firing',
  value: 3,
  threshold: 1,
  ...over,
});
const item = (version: number, s: TargetState = state(), generation = 'g1'): StoredState => ({
  version,
  state: s,
  claim: null,
  generation,
});
const outcome = (over: Partial<CommitOutcome>): CommitOutcome => ({
  sent: [],
  failed: [],
  status: 'committed',
  stored: null,
  writes: 0,
  ...over,
});

describe('evaluateFrom', () => {
  const warmState = state({ consecutiveFailures: 1 });
  const tableState = state({ consecutiveFailures: 2 });
  it.each<[string, StoredState | null, WarmEntry | undefined, TargetState | null]>([
    ['nothing anywhere', null, undefined, null],
    ['only the table', item(3, tableState), undefined, tableState],
    [
      'warm memory of the item the table holds',
      item(3, tableState),
      { version: 3, generation: 'g1', state: warmState },
      warmState,
    ],
    [
      'warm memory of an older version',
      item(4, tableState),
      { version: 3, generation: 'g1', state: warmState },
      tableState,
    ],
    [
      'warm memory of an item deleted and created again up to the same version',
      item(3, tableState, 'g2'),
      { version: 3, generation: 'g1', state: warmState },
      tableState,
    ],
    [
      'warm memory without a generation of an item that has one',
      item(3, tableState),
      { version: 3, state: warmState },
      tableState,
    ],
    ['warm memory of a target nobody stored', null, { version: 0, state: warmState }, warmState],
    ['warm memory of an item since deleted', null, { version: 2, state: warmState }, null],
  ])('%s', (_, stored, warm, expected) => {
    expect(evaluateFrom(stored, warm)).toBe(expected);
  });
});

describe('firstSeenOf', () => {
  it.each<[string, WarmEntry | undefined, number]>([
    ['first time', undefined, NOW.getTime()],
    ['remembered unstored', { version: 0, state: state(), firstSeenMs: 5 }, 5],
    ['remembered stored', { version: 2, state: state(), firstSeenMs: 5 }, NOW.getTime()],
  ])('%s', (_, warm, expected) => {
    expect(firstSeenOf(warm, NOW)).toBe(expected);
  });
});

describe('changed', () => {
  it.each<[string, TargetState, TargetState, boolean]>([
    ['same', state(), state({ evaluatedAt: NOW.toISOString() }), false],
    [
      'only the value moved',
      state({ alerts: { fp: record() } }),
      state({ alerts: { fp: record({ value: 9 }) } }),
      false,
    ],
    ['an alert fired', state(), state({ alerts: { fp: record() } }), true],
    [
      'an alert resolved',
      state({ alerts: { fp: record() } }),
      state({ alerts: { fp: record({ state: 'inactive' }) } }),
      true,
    ],
    ['a failure counted', state(), state({ consecutiveFailures: 1 }), true],
    ['failures past downAfter', state({ consecutiveFailures: 2 }), state({ consecutiveFailures: 5 }), false],
  ])('%s: %s', (_, stored, next, expected) => {
    expect(changed(stored, next, 2)).toBe(expected);
  });
});

describe('shouldWrite', () => {
  const base = { name: 'web-1', now: NOW, firstSeenMs: NOW.getTime(), checkpointMs: 15 * MIN, downAfter: 2 };
  const spread = spreadOffsetMs('web-1', 15 * MIN);
  it.each<[string, Parameters<typeof shouldWrite>[0], boolean]>([
    ['a new quiet target before its spread turn', { ...base, item: null, next: state() }, spread === 0],
    [
      'a new quiet target at its spread turn',
      { ...base, item: null, next: state(), firstSeenMs: NOW.getTime() - spread },
      true,
    ],
    ['a new target with an alert', { ...base, item: null, next: state({ alerts: { fp: record() } }) }, true],
    ['a new target failing', { ...base, item: null, next: state({ consecutiveFailures: 1 }) }, true],
    ['a stored target, unchanged, checkpoint not due', { ...base, item: item(1), next: state() }, false],
    [
      'a stored target, unchanged, checkpoint due',
      { ...base, item: item(1, state({ evaluatedAt: '2026-11-22T11:45:00.000Z' })), next: state() },
      true,
    ],
    ['a stored target that changed', { ...base, item: item(1), next: state({ consecutiveFailures: 1 }) }, true],
  ])('%s', (_, input, expected) => {
    expect(shouldWrite(input)).toBe(expected);
  });
});

describe('warmAfter', () => {
  const evaluated = state({ consecutiveFailures: 1 });
  const written = state({ consecutiveFailures: 9 });
  it.each<[string, StoredState | null, CommitOutcome, WarmEntry | null]>([
    ['a new target not written', null, outcome({}), { version: 0, state: evaluated, firstSeenMs: 7 }],
    ['another run moved the item on', item(1), outcome({ status: 'raced' }), null],
    ['the item is gone', item(1), outcome({ stored: null, writes: 1 }), null],
    [
      'written: what the table holds',
      item(1),
      outcome({ stored: item(2, written), writes: 1 }),
      { version: 2, generation: 'g1', state: written },
    ],
    [
      'not written: the evaluation at the same version',
      item(1),
      outcome({ stored: item(1) }),
      { version: 1, generation: 'g1', state: evaluated },
    ],
  ])('%s', (_, stored, result, expected) => {
    expect(warmAfter(stored, result, evaluated, 7)).toEqual(expected);
  });
});
