/**
 * The one claim machine of the state table's items (a target's, the configuration alert's, a
 * group's): before publishing, a run writes a claim (its token and a lease) on the item; after,
 * it clears it. Another run reads the claim as one of four named states and acts on the item
 * only when the claim is not `held`. A claim whose replayed pages were refused is released
 * (kept, with its pages still in doubt, and free for the next run at once).
 */

/** The part of a claim every kind of item shares. */
interface Lease {
  token: string;
  /** Epoch milliseconds after which another run may take the claim over. */
  expiresAtMs: number;
}

const CLAIM_STATES = {
  /** No claim: the item is free. */
  none: 'none',
  /** This run's own claim. */
  ours: 'ours',
  /** Another run's claim in force: the item is left to it. */
  held: 'held',
  /** Another run's claim past its lease (that run died, overran, or released it): taken over and replayed. */
  expired: 'expired',
} as const;
type ClaimState = (typeof CLAIM_STATES)[keyof typeof CLAIM_STATES];

/** Whether the pages about to go out were decided now, or are a replay of a claim that may have gone out. */
type Attempt = 'first' | 'replay';

/** The expiry of a released claim: in the past for every run. */
const RELEASED_AT_MS = 0;

function claimState(claim: Lease | null | undefined, now: Date, token: string): ClaimState {
  if (claim == null) return CLAIM_STATES.none;
  if (claim.token === token) return CLAIM_STATES.ours;
  return claim.expiresAtMs > now.getTime() ? CLAIM_STATES.held : CLAIM_STATES.expired;
}

/** A fresh lease for `token` from `now`. */
function leaseFor(token: string, now: Date, leaseMs: number): Lease {
  return { token, expiresAtMs: now.getTime() + leaseMs };
}

/** `claim` taken over by `token`: same pages, a new lease. */
function takenOver<C extends Lease>(claim: C, token: string, now: Date, leaseMs: number): C {
  return { ...claim, ...leaseFor(token, now, leaseMs) };
}

/**
 * The claim an item keeps once its pages were published: none, except for a replay some of whose
 * pages were refused (they may have gone out before): then `unsent` stays claimed, released.
 */
function claimAfterPublish<C extends Lease>(claim: C, attempt: Attempt, unsent: Partial<C> | null): C | null {
  return attempt === 'replay' && unsent !== null ? { ...claim, ...unsent, expiresAtMs: RELEASED_AT_MS } : null;
}

/**
 * The order of a page claimed now after one claimed at `lastOrder` (a hybrid logical clock, epoch
 * ms): the clock, or one past the last when a clock lags; strictly increasing per alert or group.
 */
function nextOrder(lastOrder: number | undefined, now: Date): number {
  return Math.max(now.getTime(), (lastOrder ?? 0) + 1);
}

export type { Attempt, ClaimState, Lease };
export { CLAIM_STATES, claimAfterPublish, claimState, leaseFor, nextOrder, RELEASED_AT_MS, takenOver };
