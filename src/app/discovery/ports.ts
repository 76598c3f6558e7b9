/**
 * The port of discovery: where the fleet's instances are listed (EC2, Auto Scaling, ELBv2 in the
 * Lambda). Beside src/app/ports.ts rather than in it until the run lists through it.
 */
import type { DiscoveryQuery, DiscoverySourceName } from '../../core/discovery/document.ts';
import type { ListingOutcome } from '../../core/discovery/listing.ts';

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

export type { DiscoverySource, DiscoverySources, ListingBudget };
