/**
 * What a discovery source answers, and the instances of an answer as targets: each instance
 * rendered through its document's templates and validated as a target parameter is, or skipped
 * with the reason (a field it lacks, a URL the target validation refuses).
 */
import type { TargetConfig } from '../monitorConfig.ts';
import { type DiscoveryDocument, type DiscoverySourceName, renderDiscovered } from './document.ts';
import type { DiscoveredInstance } from './template.ts';

/** Why a listing failed: the SDK's error sorted for the alarm, the page and the metric dimension. */
const LISTING_FAILURES = {
  throttled: 'throttled',
  accessDenied: 'access-denied',
  timeout: 'timeout',
  notFound: 'not-found',
  /** The deployment did not enable the document's source (no client, no IAM grant). */
  notEnabled: 'not-enabled',
  other: 'other',
} as const;

type ListingFailure = (typeof LISTING_FAILURES)[keyof typeof LISTING_FAILURES];

/** A listing that did not complete: nothing of it is used (a partial list would remove the rest). */
class DiscoveryListingError extends Error {
  readonly source: DiscoverySourceName;
  readonly why: ListingFailure;
  readonly detail: string;

  constructor(source: DiscoverySourceName, why: ListingFailure, detail: string, options?: ErrorOptions) {
    super(`expected the ${source} source to list its instances, found ${why}: ${detail}`, options);
    this.name = 'DiscoveryListingError';
    this.source = source;
    this.why = why;
    this.detail = detail;
  }
}

/** An instance (by id, or address for an IP target) that is not a target, and why. */
interface Skip {
  instance: string;
  reason: string;
}

/** A complete answer of a source. `calls` counts HTTP attempts, the SDK's retries among them. */
interface Listing {
  instances: DiscoveredInstance[];
  /** Instances the source named but could not describe (an Auto Scaling instance EC2 does not show yet). */
  skipped: Skip[];
  calls: number;
  /** Waits after throttling beyond the SDK's own retries. */
  throttledRetries: number;
}

type ListingOutcome = { ok: true; listing: Listing } | { ok: false; error: DiscoveryListingError };

/** A target a discovery document lists: the target, the document it came from, the instance. */
interface DiscoveredTarget {
  parameter: string;
  instance: string;
  target: TargetConfig;
}

/** How an instance is named in a skip: its id, else its address. */
function instanceKey(instance: DiscoveredInstance): string {
  return instance.instanceId ?? instance.privateIp ?? 'an instance without id or address';
}

/**
 * The instances of a listing as targets of `document`, in the order listed; an instance listed
 * twice (in two target groups) with the same rendering is one target. Names that collide with
 * another rendering are left to `joinTargets`, which names them.
 *
 * @example
 * renderListing(document, [{ instanceId: 'i-1', privateIp: '10.0.0.1', tags: {} }])
 * // { targets: [{ parameter, instance: 'i-1', target: { name: 'i-1', url: 'http://10.0.0.1/...', labels: {} } }], skipped: [] }
 */
function renderListing(
  document: DiscoveryDocument,
  instances: readonly DiscoveredInstance[],
): { targets: DiscoveredTarget[]; skipped: Skip[] } {
  const targets: DiscoveredTarget[] = [];
  const skipped: Skip[] = [];
  const seen = new Map<string, string>();
  for (const instance of instances) {
    const key = instanceKey(instance);
    const rendered = renderDiscovered(document, instance);
    if ('missing' in rendered) {
      const hint =
        rendered.missing === '{{instanceId}}' && instance.instanceId === undefined
          ? ' (an IP target: name it after {{privateIp}})'
          : '';
      skipped.push({ instance: key, reason: `has no ${rendered.missing} (${rendered.field})${hint}` });
      continue;
    }
    if ('problems' in rendered) {
      const reason = rendered.problems.map((p) => `${p.field === null ? '' : `${p.field}: `}${p.message}`).join('; ');
      skipped.push({ instance: key, reason });
      continue;
    }
    const text = JSON.stringify(rendered.target);
    if (seen.get(rendered.target.name) === text) continue;
    seen.set(rendered.target.name, text);
    targets.push({ parameter: document.parameter, instance: key, target: rendered.target });
  }
  return { targets, skipped };
}

export type { DiscoveredTarget, Listing, ListingFailure, ListingOutcome, Skip };
export { DiscoveryListingError, instanceKey, LISTING_FAILURES, renderListing };
