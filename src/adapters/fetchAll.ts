/**
 * Bounded concurrency for fetching many targets: a slow target holds one slot for at most its own
 * timeout and never delays the others beyond that. Which targets start first matters as much as
 * the bound: a slow target started last makes the run last the whole fleet's CPU time plus its
 * own wait, so `createLatencyMemory` lets a warm container start last run's slowest targets first.
 */
import pLimit from 'p-limit';

/** Some calls of `fetchAll`'s `fn` rejected; `errors` holds every rejection, in item order. */
class FetchAllError extends AggregateError {
  constructor(errors: unknown[], total: number) {
    super(errors, `expected every call to settle with a value, found ${errors.length} of ${total} rejected`, {
      cause: errors[0],
    });
    this.name = 'FetchAllError';
  }
}

interface FetchAllOptions<T> {
  /** Items with a higher priority start first; equal priorities keep item order. Default: item order. */
  priority?: (item: T) => number;
}

/**
 * Run `fn` over `items` with at most `concurrency` calls in flight; results keep the order of
 * `items` whatever order they started in. `fn` should turn failures into values (as
 * `fetchStatusPage` does); if some calls reject anyway, every other call still finishes, then
 * `FetchAllError` is thrown.
 *
 * @example
 * const results = await fetchAll(targets, 16, (t) => fetchStatusPage(t), { priority: (t) => memory.priority(t.name) });
 */
async function fetchAll<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<R>,
  options: FetchAllOptions<T> = {},
): Promise<R[]> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`expected concurrency to be a positive integer, found ${concurrency}`);
  }
  const { priority } = options;
  const indices = items.map((_, i) => i);
  if (priority !== undefined) {
    const scores = items.map((item) => priority(item));
    // Compared, not subtracted: Infinity - Infinity is NaN. Array#sort is stable: ties keep item order.
    indices.sort((a, b) => {
      const [first, second] = [scores[a] as number, scores[b] as number];
      return first > second ? -1 : first < second ? 1 : 0;
    });
  }
  const limit = pLimit(concurrency);
  const started = indices.map((i) => limit(() => fn(items[i] as T)));
  const settledInStartOrder = await Promise.allSettled(started);
  const settled: PromiseSettledResult<R>[] = new Array(items.length);
  indices.forEach((itemIndex, startIndex) => {
    settled[itemIndex] = settledInStartOrder[startIndex] as PromiseSettledResult<R>;
  });
  const errors = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  if (errors.length > 0) throw new FetchAllError(errors, items.length);
  return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
}

/** Each target's recent fetch latency, kept in the warm container, as a start priority. */
interface LatencyMemory {
  /** Remember this run's latency of `target`. */
  record(target: string, latencyMs: number): void;
  /** Higher starts first: a target never seen starts before every known one (it may be slow). */
  priority(target: string): number;
}

/**
 * A memory of latencies that forgets slowly: the remembered figure is the larger of the latest
 * latency and half the one before, so a target that is slow every other run still starts early.
 *
 * @example
 * const memory = createLatencyMemory();
 * memory.record('web-1', 1200);
 * memory.priority('web-1'); // 1200
 * memory.priority('web-9'); // Infinity: never fetched
 */
function createLatencyMemory(): LatencyMemory {
  const remembered = new Map<string, number>();
  return {
    record(target, latencyMs) {
      remembered.set(target, Math.max(latencyMs, (remembered.get(target) ?? 0) / 2));
    },
    priority(target) {
      return remembered.get(target) ?? Number.POSITIVE_INFINITY;
    },
  };
}

export type { FetchAllOptions, LatencyMemory };
export { createLatencyMemory, FetchAllError, fetchAll };
