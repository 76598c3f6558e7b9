/**
 * What the discovery adapters share: a listing's time budget, its SDK errors sorted into the
 * reasons of `LISTING_FAILURES`, and full-jitter backoff on throttling once the SDK's own retries
 * (standard mode: 3 attempts, its retry token bucket) are spent. A paginated listing that is
 * throttled mid-way resumes from the last page it got, never from the start.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ListingBudget } from '../app/discovery/ports.ts';
import type { DiscoverySourceName } from '../core/discovery/document.ts';
import { DiscoveryListingError, LISTING_FAILURES, type ListingFailure } from '../core/discovery/listing.ts';

/** Error codes of the three services' throttling (EC2: RequestLimitExceeded; Auto Scaling, ELBv2: Throttling). */
const THROTTLING_CODES = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'EC2ThrottledException',
]);

/** Error codes that mean the role may not list (or its credentials are not valid). */
const DENIED_CODES = new Set([
  'UnauthorizedOperation',
  'AccessDenied',
  'AccessDeniedException',
  'AuthFailure',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'ExpiredToken',
  'ExpiredTokenException',
  'SignatureDoesNotMatch',
  'OptInRequired',
]);

const NOT_FOUND_CODES = new Set(['TargetGroupNotFound', 'TargetGroupNotFoundException']);

/** Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): wait random(0, min(cap, base * 2^n)). */
interface Backoff {
  baseMs: number;
  capMs: number;
  /** In [0, 1); Math.random unless a test pins it. */
  random: () => number;
}

const DEFAULT_BACKOFF: Backoff = { baseMs: 500, capMs: 10_000, random: Math.random };

/** One listing's running account: its deadline, the calls it made, its waits after throttling. */
interface CallBudget {
  source: DiscoverySourceName;
  budgetMs: number;
  deadline: number;
  signal: AbortSignal;
  backoff: Backoff;
  /** HTTP attempts, the SDK's retries among them. */
  calls: number;
  throttledRetries: number;
  /** The last throttling error seen: a budget that runs out while throttled is a throttled listing. */
  lastThrottle: string | null;
}

function startBudget(source: DiscoverySourceName, budget: ListingBudget, backoff: Backoff): CallBudget {
  const timeout = AbortSignal.timeout(budget.budgetMs);
  return {
    source,
    budgetMs: budget.budgetMs,
    deadline: Date.now() + budget.budgetMs,
    signal: budget.signal === undefined ? timeout : AbortSignal.any([timeout, budget.signal]),
    backoff,
    calls: 0,
    throttledRetries: 0,
    lastThrottle: null,
  };
}

interface SdkError {
  name?: string;
  message?: string;
  $metadata?: { attempts?: number; httpStatusCode?: number };
}

function failureOf(error: unknown, budget: CallBudget): ListingFailure {
  const e = error as SdkError;
  const name = e?.name ?? '';
  if (budget.signal.aborted || name === 'AbortError' || name === 'TimeoutError') return LISTING_FAILURES.timeout;
  if (THROTTLING_CODES.has(name) || e?.$metadata?.httpStatusCode === 429) return LISTING_FAILURES.throttled;
  if (DENIED_CODES.has(name)) return LISTING_FAILURES.accessDenied;
  if (NOT_FOUND_CODES.has(name)) return LISTING_FAILURES.notFound;
  return LISTING_FAILURES.other;
}

function detailOf(error: unknown): string {
  const e = error as SdkError;
  const text = `${e?.name ?? 'Error'}: ${e?.message ?? String(error)}`;
  return text.length > 400 ? `${text.slice(0, 397)}...` : text;
}

/** Counts the attempts an SDK answer or error took (`$metadata.attempts`, 1 when absent). */
function countCalls(budget: CallBudget, metadata: { attempts?: number } | undefined): void {
  budget.calls += metadata?.attempts ?? 1;
}

/** A listing still throttled when its budget ran out, throttled waits and all. */
function throttledPastBudget(budget: CallBudget, what: string, cause: unknown): DiscoveryListingError {
  return new DiscoveryListingError(
    budget.source,
    LISTING_FAILURES.throttled,
    `${what}: ${budget.lastThrottle}; still throttled when the ${budget.budgetMs} ms budget ran out (${budget.calls} calls, ${budget.throttledRetries} waits after the SDK's retries)`,
    { cause },
  );
}

/**
 * Run `attempt` until it succeeds, waiting with full jitter after each throttling (the SDK's own
 * retries came first) while the budget lasts. `attempt` may keep its progress between tries.
 *
 * @throws DiscoveryListingError with the source and why: throttled past the budget, access
 * denied, not found, timed out, other
 */
async function retrying<T>(budget: CallBudget, what: string, attempt: () => Promise<T>): Promise<T> {
  for (let waits = 0; ; waits++) {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof DiscoveryListingError) throw error;
      countCalls(budget, (error as SdkError)?.$metadata);
      const why = failureOf(error, budget);
      const left = budget.deadline - Date.now();
      if (why === LISTING_FAILURES.timeout && budget.lastThrottle !== null)
        throw throttledPastBudget(budget, what, error);
      if (why === LISTING_FAILURES.timeout)
        throw new DiscoveryListingError(
          budget.source,
          why,
          `${what} did not complete within the ${budget.budgetMs} ms budget (${budget.calls} calls, ${budget.throttledRetries} waits after throttling)`,
          { cause: error },
        );
      if (why !== LISTING_FAILURES.throttled)
        throw new DiscoveryListingError(budget.source, why, `${what}: ${detailOf(error)}`, { cause: error });
      budget.lastThrottle = detailOf(error);
      const { baseMs, capMs, random } = budget.backoff;
      const wait = Math.floor(random() * Math.min(capMs, baseMs * 2 ** waits));
      if (wait >= left) throw throttledPastBudget(budget, what, error);
      budget.throttledRetries++;
      try {
        await sleep(wait, undefined, { signal: budget.signal });
      } catch (aborted) {
        throw throttledPastBudget(budget, what, aborted);
      }
    }
  }
}

/**
 * Every page of a paginated call, through the SDK paginator that `open` starts at a token. A
 * throttling mid-way waits and resumes from the next page's token; the pages are returned only
 * when the last one came, so a listing is whole or it is an error.
 */
async function allPages<Page extends { $metadata: { attempts?: number } }>(
  budget: CallBudget,
  what: string,
  open: (startingToken: string | undefined) => AsyncIterable<Page>,
  nextToken: (page: Page) => string | undefined,
): Promise<Page[]> {
  const pages: Page[] = [];
  let token: string | undefined;
  await retrying(budget, what, async () => {
    for await (const page of open(token)) {
      countCalls(budget, page.$metadata);
      budget.lastThrottle = null;
      pages.push(page);
      token = nextToken(page);
    }
  });
  return pages;
}

/** One call (not paginated) with the same retries. */
async function oneCall<T extends { $metadata: { attempts?: number } }>(
  budget: CallBudget,
  what: string,
  call: () => Promise<T>,
): Promise<T> {
  return retrying(budget, what, async () => {
    const answer = await call();
    countCalls(budget, answer.$metadata);
    budget.lastThrottle = null;
    return answer;
  });
}

/** `items` in slices of at most `size`. */
function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export type { Backoff, CallBudget };
export { allPages, chunks, DEFAULT_BACKOFF, oneCall, retrying, startBudget };
