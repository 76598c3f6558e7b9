/**
 * Why a target is down, written once: the reasons a fetch fails (src/adapters/httpStatusSource.ts
 * returns them) and `not-a-report`, when what was fetched is not a status page. Each has its own
 * words in a page's subject (src/core/notify/build.ts) and its row in docs/fetching.md.
 */

/** Why a fetch failed; each maps to a different hint in the page sent to on-call. */
const FETCH_FAILURE_REASONS = [
  'timeout',
  'refused',
  'dns',
  'tls',
  'http-status',
  'too-large',
  'redirect',
  'network',
  // The address policy (src/core/addressPolicy.ts) refused the address: no connection was made.
  'refused-address',
] as const;
type FetchFailureReason = (typeof FETCH_FAILURE_REASONS)[number];

/** Every reason an observation can be `down` for in the Lambda (the CLI adds `read`, a file it could not read). */
const DOWN_REASONS = [...FETCH_FAILURE_REASONS, 'not-a-report'] as const;
type DownReason = (typeof DOWN_REASONS)[number];

export type { DownReason, FetchFailureReason };
export { DOWN_REASONS, FETCH_FAILURE_REASONS };
