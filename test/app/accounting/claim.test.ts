import { describe, expect, it } from 'vitest';
import {
  type Attempt,
  type ClaimState,
  claimAfterPublish,
  claimState,
  leaseFor,
  RELEASED_AT_MS,
  takenOver,
} from '../../../src/app/accounting/claim.ts';
import { claimLeaseSecondsFor, MAX_FUNCTION_TIMEOUT_SECONDS } from '../../../src/lambda/environmentContract.ts';

const NOW = new Date('2026-11-22T12:00:00Z');
const ms = NOW.getTime();

describe('claimState', () => {
  it.each<[string, { token: string; expiresAtMs: number } | null, ClaimState]>([
    ['no claim', null, 'none'],
    ["this run's claim, in force", { token: 'me', expiresAtMs: ms + 1 }, 'ours'],
    ["this run's claim, past its lease", { token: 'me', expiresAtMs: ms - 1 }, 'ours'],
    ["another run's claim in force", { token: 'other', expiresAtMs: ms + 1 }, 'held'],
    ["another run's claim ending now", { token: 'other', expiresAtMs: ms }, 'expired'],
    ["another run's claim released", { token: 'other', expiresAtMs: RELEASED_AT_MS }, 'expired'],
  ])('%s: %s', (_, claim, expected) => {
    expect(claimState(claim, NOW, 'me')).toBe(expected);
  });
});

describe('the lease the stack derives from the timeout outlives the run that took the claim', () => {
  // A run that claimed at NOW may still be publishing one timeout later: the next run must find the claim held.
  it.each<[number, number, ClaimState]>([
    // [function timeout s, seconds after the claim the next run reads it, what it finds]
    [60, 60, 'held'],
    [60, 299, 'held'],
    [60, 300, 'expired'],
    [MAX_FUNCTION_TIMEOUT_SECONDS, MAX_FUNCTION_TIMEOUT_SECONDS, 'held'],
    [MAX_FUNCTION_TIMEOUT_SECONDS, 2 * MAX_FUNCTION_TIMEOUT_SECONDS - 1, 'held'],
    [MAX_FUNCTION_TIMEOUT_SECONDS, 2 * MAX_FUNCTION_TIMEOUT_SECONDS, 'expired'],
  ])('a %i s timeout, read %i s after the claim: %s', (timeoutSeconds, afterSeconds, expected) => {
    const claim = leaseFor('run-a', NOW, claimLeaseSecondsFor(timeoutSeconds) * 1000);
    expect(claimState(claim, new Date(ms + afterSeconds * 1000), 'run-b')).toBe(expected);
  });
});

describe('takenOver', () => {
  it("keeps what the claim is about and gives it this run's token and a new lease", () => {
    expect(takenOver({ token: 'dead', expiresAtMs: 5, pages: ['p'] }, 'me', NOW, 90_000)).toEqual({
      token: 'me',
      expiresAtMs: ms + 90_000,
      pages: ['p'],
    });
  });
});

describe('claimAfterPublish', () => {
  const claim = { token: 'me', expiresAtMs: ms + 90_000, pages: ['a', 'b'] };
  it.each<[string, Attempt, { pages: string[] } | null, typeof claim | null]>([
    ['a first attempt, everything accepted', 'first', null, null],
    ['a first attempt, a page refused (decided again next run)', 'first', { pages: ['b'] }, null],
    ['a replay, everything accepted', 'replay', null, null],
    [
      'a replay, a page refused (in doubt)',
      'replay',
      { pages: ['b'] },
      { token: 'me', expiresAtMs: RELEASED_AT_MS, pages: ['b'] },
    ],
  ])('%s', (_, attempt, unsent, expected) => {
    expect(claimAfterPublish(claim, attempt, unsent)).toEqual(expected);
  });
});
