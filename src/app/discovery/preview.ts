/**
 * What each discovery document lists now, without a run: listed through the same sources,
 * rendered and joined with the configured targets exactly as the run's discovery step does, and
 * nothing kept. What `targets discover` prints, so an operator sees the fleet before deploying.
 */
import type { DiscoveryDocument } from '../../core/discovery/document.ts';
import { joinTargets } from '../../core/discovery/join.ts';
import { type DiscoveryListingError, renderListing, type Skip } from '../../core/discovery/listing.ts';
import type { ConfigProblem, TargetConfig } from '../../core/monitorConfig.ts';
import { listThrough } from './discover.ts';
import type { DiscoveryDeps } from './ports.ts';

/** One document's listing: the targets it would add, or why its source failed. */
type DocumentPreview =
  | {
      document: DiscoveryDocument;
      ok: true;
      /** The targets the run would check, names already taken left out. */
      targets: TargetConfig[];
      /** Instances listed that are not targets, and why. */
      skipped: Skip[];
      /** Targets left out because their name is taken (a configured target, an earlier document). */
      collisions: ConfigProblem[];
      calls: number;
    }
  | { document: DiscoveryDocument; ok: false; error: DiscoveryListingError };

/**
 * Each document listed once, concurrently, within `deps.listingBudgetMs()`, then joined with
 * `configured` as the run joins them (a configured target keeps its name, then the documents by
 * parameter).
 *
 * @example
 * const previews = await previewDiscovery({ sources, warm: new Map(), listingBudgetMs: () => 30_000 }, documents, []);
 */
async function previewDiscovery(
  deps: DiscoveryDeps,
  documents: readonly DiscoveryDocument[],
  configured: readonly TargetConfig[],
): Promise<DocumentPreview[]> {
  const listings = await Promise.all(
    documents.map(async (document) => {
      const answer = await listThrough(deps, document);
      if (!answer.ok) return { document, ok: false as const, error: answer.error };
      const { targets, skipped } = renderListing(document, answer.listing.instances);
      const all = [...answer.listing.skipped, ...skipped];
      return { document, ok: true as const, listed: targets, skipped: all, calls: answer.listing.calls };
    }),
  );
  const joined = joinTargets(
    configured,
    listings.flatMap((l) => (l.ok ? l.listed : [])),
  );
  return listings.map((l): DocumentPreview => {
    if (!l.ok) return l;
    const { document, skipped, calls } = l;
    return {
      document,
      ok: true,
      targets: l.listed.filter((d) => joined.origins.get(d.target.name) === d).map((d) => d.target),
      skipped,
      collisions: joined.problems.filter((p) => p.parameter === document.parameter),
      calls,
    };
  });
}

export type { DocumentPreview };
export { previewDiscovery };
