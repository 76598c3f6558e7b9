/**
 * Bounded concurrency for fetching many targets: a slow target holds one slot for at most its own
 * timeout and never delays the others beyond that.
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

/**
 * Run `fn` over `items` with at most `concurrency` calls in flight; results keep the order of
 * `items`. `fn` should turn failures into values (as `fetchStatusPage` does); if some calls reject
 * anyway, every other call still finishes, then `FetchAllError` is thrown.
 *
 * @example
 * const results = await fetchAll(targets, 16, (t) => fetchStatusPage(t));
 */
async function fetchAll<T, R>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`expected concurrency to be a positive integer, found ${concurrency}`);
  }
  const limit = pLimit(concurrency);
  const settled = await Promise.allSettled(items.map((item) => limit(() => fn(item))));
  const errors = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  if (errors.length > 0) throw new FetchAllError(errors, items.length);
  return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
}

export { FetchAllError, fetchAll };
