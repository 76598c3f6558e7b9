import { describe, expect, it } from 'vitest';
import { type DiscoveredTarget, DiscoveryListingError } from '../../../src/core/discovery/listing.ts';
import {
  type DiscoveryState,
  discoveryDue,
  NEVER_LISTED,
  type StepInput,
  stepDiscovery,
} from '../../../src/core/discovery/refresh.ts';

const S = 1000;
const t = (n: number): DiscoveredTarget => ({
  parameter: '/p/discovery/web',
  instance: `i-${n}`,
  target: { name: `i-${n}`, url: `http://10.0.0.${n}/server-status`, labels: {} },
});
const listed = (...n: number[]): StepInput => ({ ok: true, targets: n.map(t) });
const failed = (why: 'throttled' | 'access-denied' | 'timeout', detail = `${why} detail`): StepInput => ({
  ok: false,
  error: new DiscoveryListingError('ec2', why, detail),
});

describe('stepDiscovery', () => {
  it('walks a fleet through launch, scale-in, a failing listing, recovery and an emptied group, time stepped explicitly', () => {
    const steps: Array<
      [number, StepInput, string, { appeared: string[]; left: string[] }, number[] | null, number | null]
    > = [
      // [at, input, outcome, diff, targets in force, failing since]
      [0, failed('timeout'), 'no-list-yet', { appeared: [], left: [] }, null, 0],
      [60, listed(1, 2), 'recovered', { appeared: ['i-1', 'i-2'], left: [] }, [1, 2], null],
      [120, listed(1, 2, 3), 'listed', { appeared: ['i-3'], left: [] }, [1, 2, 3], null],
      [180, listed(2, 3), 'listed', { appeared: [], left: ['i-1'] }, [2, 3], null],
      // A failing listing removes nothing, for as long as it fails; `since` stays at the first failure.
      [240, failed('throttled'), 'kept-last-good', { appeared: [], left: [] }, [2, 3], 240],
      [300, failed('access-denied'), 'kept-last-good', { appeared: [], left: [] }, [2, 3], 240],
      [360, listed(2, 3, 4), 'recovered', { appeared: ['i-4'], left: [] }, [2, 3, 4], null],
      // An empty answer from a successful call is trusted: every instance left.
      [420, listed(), 'emptied', { appeared: [], left: ['i-2', 'i-3', 'i-4'] }, [], null],
      [480, listed(), 'listed', { appeared: [], left: [] }, [], null],
    ];
    let state: DiscoveryState = NEVER_LISTED;
    for (const [at, input, outcome, diff, inForce, since] of steps) {
      const step = stepDiscovery(state, input, at * S);
      state = step.state;
      expect({ at, outcome: step.outcome, appeared: step.diff.appeared, left: step.diff.left }).toEqual({
        at,
        outcome,
        ...diff,
      });
      expect(state.targets?.map((d) => Number(d.instance.slice(2))) ?? null).toEqual(inForce);
      expect(state.failing?.since ?? null).toBe(since === null ? null : since * S);
      expect(state.attemptedAt).toBe(at * S);
    }
  });

  it('keeps the latest reason of a failing listing', () => {
    const first = stepDiscovery(NEVER_LISTED, failed('throttled'), 0).state;
    expect(stepDiscovery(first, failed('access-denied', 'UnauthorizedOperation: no'), 60 * S).state.failing).toEqual({
      since: 0,
      why: 'access-denied',
      detail: 'UnauthorizedOperation: no',
    });
  });
});

describe('discoveryDue', () => {
  it.each([
    ['never tried', NEVER_LISTED, 0, true],
    ['tried 59 s ago', { ...NEVER_LISTED, attemptedAt: 1 * S }, 60 * S, false],
    ['tried 60 s ago', { ...NEVER_LISTED, attemptedAt: 0 }, 60 * S, true],
    [
      'a failing source is not asked sooner',
      { ...NEVER_LISTED, attemptedAt: 30 * S, failing: { since: 0, why: 'throttled' as const, detail: '' } },
      60 * S,
      false,
    ],
  ])('%s', (_, state, now, due) => {
    expect(discoveryDue(state, now, 60)).toBe(due);
  });
});
