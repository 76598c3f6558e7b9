/**
 * The one claim machine of the state table's items (a target's, the configuration alert's, a
 * group's), driven here once, as Powertools' idempotency handler drives its records: what differs
 * between the kinds of item (where the claim is written, how a page goes out, what its acceptance
 * records, what a commit writes) is a `ClaimKind`; the steps are `claimPublishCommit` and `settle`.
 *
 * Before publishing, a run writes a claim (its token and a lease) on the item; after, it clears
 * it. Another run reads the claim as one of four named states and acts on the item only when the
 * claim is not `held`. A claim whose replayed pages were refused is released (kept, with its
 * pages still in doubt, and free for the next run at once). Every step ends in one of the named
 * `CLAIM_OUTCOMES`.
 */
import type { Claimed, Lease } from '../ports.ts';

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

/** What one step of the machine came to for an item. */
const CLAIM_OUTCOMES = {
  /**
   * The item is as this run left it: its claim cleared, every page accepted or left unsent for
   * the next evaluation to decide again (or there was nothing to claim or to write).
   */
  committed: 'committed',
  /** Another run's claim in force: the item is left to it. */
  held: 'held',
  /** Another run wrote the item since this run read it: this run's conditional write was refused. */
  raced: 'raced',
  /** Replayed pages were refused: they stay claimed, released, and the next run tries them first. */
  inDoubt: 'inDoubt',
  /** This run chose to leave the item alone (it holds an evaluation later than this run's). */
  skipped: 'skipped',
} as const;
type ClaimOutcome = (typeof CLAIM_OUTCOMES)[keyof typeof CLAIM_OUTCOMES];

/** A page SNS (or a group) refused, and where it stands in the claim's pages. */
interface Refused<Page> {
  page: Page;
  index: number;
  error: unknown;
}

/**
 * What differs between kinds of claimed item. The driver calls, in this order: `writeClaim`, then
 * for each page `publish` and, once accepted, `accepted`; `release` when some were refused; then
 * `write`. An instance serves one attempt on one item, as read at one version.
 */
interface ClaimKind<C extends Lease, Page, Receipt> {
  /** The pages a claim stands for, as a replay publishes them again. */
  pagesOf(claim: C): readonly Page[];
  /** Write `claim` (about `pages`), conditional on the version read: false when another run wrote first. */
  writeClaim(claim: C, pages: readonly Page[]): Promise<boolean>;
  /** Publish one page; throws when it was not accepted. */
  publish(page: Page, attempt: Attempt): Promise<Receipt>;
  /** Record in the item to commit what the accepted `page` said. */
  accepted(page: Page, receipt: Receipt): void;
  /** What the claim keeps of the pages refused on a replay (they may have gone out: in doubt). */
  release(claim: C, refused: readonly Refused<Page>[]): Partial<C>;
  /**
   * Commit, conditional on the claimed version: the accepted pages recorded, `kept` as the item's
   * claim (null: cleared). False when another run wrote the item meanwhile.
   */
  write(commit: { claim: C; kept: C | null; refused: readonly Refused<Page>[] }): Promise<boolean>;
}

/** What a claim's pages came to, and the step's outcome. */
interface ClaimRun<Page> {
  outcome: ClaimOutcome;
  sent: Page[];
  failed: Refused<Page>[];
}

const ran = <Page>(outcome: ClaimOutcome): ClaimRun<Page> => ({ outcome, sent: [], failed: [] });

/**
 * Claim, publish, commit: write `claim`, publish each page, commit what was accepted. Never
 * throws for a refused page (it is returned). A page refused on a first attempt is not marked
 * sent: the next evaluation decides again. One refused on a replay stays in the claim, released,
 * so a resolve it may owe is never forgotten (`inDoubt`).
 */
async function claimPublishCommit<C extends Lease, Page, Receipt>(
  kind: ClaimKind<C, Page, Receipt>,
  send: { claim: C; attempt: Attempt; pages: readonly Page[] },
): Promise<ClaimRun<Page>> {
  const { claim, attempt, pages } = send;
  if (!(await kind.writeClaim(claim, pages))) return ran(CLAIM_OUTCOMES.raced);
  const run = ran<Page>(CLAIM_OUTCOMES.committed);
  for (const [index, page] of pages.entries()) {
    try {
      const receipt = await kind.publish(page, attempt);
      run.sent.push(page);
      kind.accepted(page, receipt);
    } catch (error) {
      run.failed.push({ page, index, error });
    }
  }
  const unsent = run.failed.length > 0 ? kind.release(claim, run.failed) : null;
  const kept = claimAfterPublish(claim, attempt, unsent);
  if (!(await kind.write({ claim, kept, refused: run.failed }))) run.outcome = CLAIM_OUTCOMES.raced;
  else if (kept !== null) run.outcome = CLAIM_OUTCOMES.inDoubt;
  return run;
}

/**
 * Settle what a run left on an item before this run acts on it: no claim (`committed`, nothing
 * done), another run's claim in force (`held`), or a claim past its lease (its run died, overran,
 * or released it): taken over, its pages published again, committed. Only after `committed` may
 * the item be evaluated: anything else leaves it to another run, or to the next.
 */
async function settle<C extends Lease, Page, Receipt>(
  kind: ClaimKind<C, Page, Receipt>,
  claim: C | null | undefined,
  now: Date,
  lease: { token: string; leaseMs: number },
): Promise<ClaimRun<Page>> {
  if (claim == null) return ran(CLAIM_OUTCOMES.committed);
  if (claimState(claim, now, lease.token) === CLAIM_STATES.held) return ran(CLAIM_OUTCOMES.held);
  const takeover = takenOver(claim, lease.token, now, lease.leaseMs);
  return claimPublishCommit(kind, { claim: takeover, attempt: 'replay', pages: kind.pagesOf(takeover) });
}

export type { Attempt, Claimed, ClaimKind, ClaimOutcome, ClaimRun, ClaimState, Lease, Refused };
export {
  CLAIM_OUTCOMES,
  CLAIM_STATES,
  claimAfterPublish,
  claimPublishCommit,
  claimState,
  leaseFor,
  nextOrder,
  RELEASED_AT_MS,
  settle,
  takenOver,
};
