/**
 * The discovery machine of one discovery parameter: when to list again, and what a listing's
 * outcome does to the list in force. One driver (`stepDiscovery`), named outcomes, timestamps
 * rather than flags (`listedAt`, `attemptedAt`, `failing.since`).
 *
 * The list in force changes only on a successful listing: a failure (throttled, access denied,
 * timed out) keeps the last good list, so scale-in is never inferred from an error, and an empty
 * answer after a non-empty one is trusted only because it came from a call that succeeded.
 */
import type { TargetConfig } from '../monitorConfig.ts';
import { diffTargets, type TargetDiff } from './join.ts';
import type { DiscoveredTarget, DiscoveryListingError, ListingFailure } from './listing.ts';

/**
 * `listed`: a successful listing is now in force; `emptied`: a successful listing found nothing
 * where the last one found targets (every instance left, trusted since the call succeeded);
 * `recovered`: a success after failures (the failing alarm resolves); `kept-last-good`: the
 * listing failed and the last good list stays; `no-list-yet`: it failed and there is none.
 */
const DISCOVERY_OUTCOMES = {
  listed: 'listed',
  emptied: 'emptied',
  recovered: 'recovered',
  keptLastGood: 'kept-last-good',
  noListYet: 'no-list-yet',
} as const;

type DiscoveryOutcome = (typeof DISCOVERY_OUTCOMES)[keyof typeof DISCOVERY_OUTCOMES];

interface DiscoveryState {
  /** The last good list (null: never listed). */
  targets: readonly DiscoveredTarget[] | null;
  /** When the last good list was listed (epoch ms). */
  listedAt: number | null;
  /** When a listing was last tried, whatever its outcome (epoch ms). */
  attemptedAt: number | null;
  /** Since when listing fails, and the latest reason; null while it works. */
  failing: { since: number; why: ListingFailure; detail: string } | null;
}

const NEVER_LISTED: DiscoveryState = { targets: null, listedAt: null, attemptedAt: null, failing: null };

type StepInput = { ok: true; targets: readonly DiscoveredTarget[] } | { ok: false; error: DiscoveryListingError };

const NO_CHANGE: TargetDiff = { appeared: [], left: [], changed: [] };

const targetsOf = (list: readonly DiscoveredTarget[] | null): TargetConfig[] => (list ?? []).map((d) => d.target);

/**
 * Whether a listing is due: never tried, or tried `refreshSeconds` ago or more, whatever its
 * outcome (a failing source is not asked more often than a working one: throttling would last).
 */
function discoveryDue(state: DiscoveryState, now: number, refreshSeconds: number): boolean {
  return state.attemptedAt === null || now - state.attemptedAt >= refreshSeconds * 1000;
}

/**
 * The state after a listing's outcome at `now`, the outcome's name, and the targets that
 * appeared, left or changed (none on a failure).
 *
 * @example
 * stepDiscovery(listedWeb1, { ok: false, error: throttled }, at(120)).outcome // 'kept-last-good'
 */
function stepDiscovery(
  state: DiscoveryState,
  input: StepInput,
  now: number,
): { state: DiscoveryState; outcome: DiscoveryOutcome; diff: TargetDiff } {
  if (!input.ok) {
    const failing = {
      since: state.failing?.since ?? now,
      why: input.error.why,
      detail: input.error.detail,
    };
    return {
      state: { ...state, attemptedAt: now, failing },
      outcome: state.targets === null ? DISCOVERY_OUTCOMES.noListYet : DISCOVERY_OUTCOMES.keptLastGood,
      diff: NO_CHANGE,
    };
  }
  const diff = diffTargets(targetsOf(state.targets), targetsOf(input.targets));
  const outcome =
    state.failing !== null
      ? DISCOVERY_OUTCOMES.recovered
      : input.targets.length === 0 && (state.targets?.length ?? 0) > 0
        ? DISCOVERY_OUTCOMES.emptied
        : DISCOVERY_OUTCOMES.listed;
  return {
    state: { targets: [...input.targets], listedAt: now, attemptedAt: now, failing: null },
    outcome,
    diff,
  };
}

export type { DiscoveryOutcome, DiscoveryState, StepInput };
export { DISCOVERY_OUTCOMES, discoveryDue, NEVER_LISTED, stepDiscovery };
