/**
 * The port of discovery: where the fleet's instances are listed (EC2, Auto Scaling, ELBv2 in the
 * Lambda), and what a run's discovery step needs (`CycleDeps.discovery`).
 */
import type { DiscoveryQuery, DiscoverySourceName } from '../../core/discovery/document.ts';
import type { ListingOutcome } from '../../core/discovery/listing.ts';
import type { DiscoveryState } from '../../core/discovery/refresh.ts';

/** How long a listing may take, retries and waits after throttling included. */
interface ListingBudget {
  budgetMs: number;
  /** Aborts the listing early (the run's own deadline). */
  signal?: AbortSignal;
}

/**
 * Lists the instances a query names. Never throws for the service's errors: a listing that did
 * not complete is `{ ok: false }` with a `DiscoveryListingError` (source and why), never a
 * partial list, so that a failure is never taken for instances that left.
 */
interface DiscoverySource<S extends DiscoverySourceName = DiscoverySourceName> {
  list(query: Extract<DiscoveryQuery, { source: S }>, budget: ListingBudget): Promise<ListingOutcome>;
}

/** One source per kind the deployment enabled; a document naming a missing one fails to list. */
type DiscoverySources = { [S in DiscoverySourceName]?: DiscoverySource<S> };

/** What a warm container remembers of one discovery parameter: its text, and its machine's state. */
interface WarmDiscovery {
  text: string;
  state: DiscoveryState;
}

/** What a run's discovery step needs; composed in the Lambda entry with the enabled sources only. */
interface DiscoveryDeps {
  sources: DiscoverySources;
  /** Per-container memory, by discovery parameter (a new Map is a cold start). */
  warm: Map<string, WarmDiscovery>;
  /** How long a listing may take this run (from the Lambda's remaining time). */
  listingBudgetMs(): number;
}

export type { DiscoveryDeps, DiscoverySource, DiscoverySources, ListingBudget, WarmDiscovery };
