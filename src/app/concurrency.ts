/**
 * Bounded concurrency for fetching many targets: a slow target holds one slot for at most its own
 * timeout, or with patience until it has waited that long, and never delays the others beyond
 * that. Which targets start first matters as much as the bound: a slow target started last makes
 * the run last the whole fleet's CPU time plus its own wait, so `createLatencyMemory` lets a warm
 * container start last run's slowest targets first; patience keeps slow targets from filling
 * every slot when there are more of them than slots.
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

/** How `fetchAll` may let more calls run than its bound. */
interface FetchAllOptions {
  /**
   * A call still in flight after this long gives its slot to the next item and goes on waiting
   * beside the bound: a target that is slow to answer (or never does, until its timeout) holds
   * the run back by its own wait only, however many such targets there are. Unset: never.
   */
  patienceMs?: number;
  /**
   * Calls that gave their slot back, at most (so at most `concurrency` + this in flight); default
   * `concurrency`. A call past its patience while they are all taken waits for the next free place.
   */
  maxWaiting?: number;
}

/**
 * Run `fn` over `items` with at most `concurrency` calls holding a slot, started in item order
 * (see `inStartOrder`); results keep the order of `items`. With `patienceMs`, a call past it waits
 * without a slot (`FetchAllOptions`). `fn` should turn failures into values (as
 * `fetchStatusPage` does); if some calls reject anyway, every other call still finishes, then
 * `FetchAllError` is thrown.
 *
 * @example
 * const results = await fetchAll(targets, 16, (t) => fetchStatusPage(t), { patienceMs: 250 });
 */
async function fetchAll<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<R>,
  options: FetchAllOptions = {},
): Promise<R[]> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`expected concurrency to be a positive integer, found ${concurrency}`);
  }
  const { patienceMs, maxWaiting = concurrency } = options;
  const limit = pLimit(concurrency);
  let waiting = 0;
  // Calls past their patience that found every waiting place taken, oldest first: each takes the
  // place the next finished waiter leaves.
  const overdue: Array<() => void> = [];
  // The limit holds a slot until `releaseSlot`: when the call ends, or when it has waited past
  // its patience and a waiting place is free. The call itself goes on either way.
  const run = (item: T): Promise<R> =>
    new Promise<R>((settle) => {
      void limit(
        () =>
          new Promise<void>((releaseSlot) => {
            const call = Promise.resolve().then(() => fn(item));
            let waited = false;
            const wait = (): void => {
              waiting++;
              waited = true;
              releaseSlot();
            };
            const timer =
              patienceMs === undefined
                ? undefined
                : setTimeout(() => (waiting < maxWaiting ? wait() : overdue.push(wait)), patienceMs);
            settle(call);
            void call
              .catch(() => undefined)
              .then(() => {
                clearTimeout(timer);
                const queued = overdue.indexOf(wait);
                if (queued >= 0) overdue.splice(queued, 1);
                if (waited) {
                  waiting--;
                  overdue.shift()?.();
                }
                releaseSlot();
              });
          }),
      );
    });
  const settled = await Promise.allSettled(items.map(run));
  const errors = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  if (errors.length > 0) throw new FetchAllError(errors, items.length);
  return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
}

/**
 * `targets` in the order to start them: by `priority` of the name, highest first, ties in list
 * order; unchanged without one.
 *
 * @example
 * inStartOrder(config.targets, (name) => memory.priority(name));
 */
function inStartOrder<T extends { name: string }>(targets: readonly T[], priority?: (name: string) => number): T[] {
  if (priority === undefined) return [...targets];
  const scores = new Map(targets.map((t) => [t, priority(t.name)]));
  // Compared, not subtracted: Infinity - Infinity is NaN. Array#sort is stable: ties keep list order.
  return [...targets].sort((a, b) => {
    const [first, second] = [scores.get(a) as number, scores.get(b) as number];
    return first > second ? -1 : first < second ? 1 : 0;
  });
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
export { createLatencyMemory, FetchAllError, fetchAll, inStartOrder };
