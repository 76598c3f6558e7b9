/**
 * Read, change, write conditionally, again on conflict: how the `meta#` items several runs write
 * at once (a group item, the list of open groups) are changed without transactions.
 */
import type { StateTable } from '../ports.ts';

/** Conditional writes tried before a hand-over or commit gives up (another run keeps winning). */
const MAX_ATTEMPTS = 8;

/**
 * A conditional write kept losing: another run changed the item before each of `attempts` tries
 * (a group item, the stored configuration's pointer). The run reports it and does not act on it.
 */
class ContentionError extends Error {
  constructor(item: string, attempts: number) {
    super(`expected to write ${item} within ${attempts} attempts, found it changed by another run each time`);
    this.name = 'ContentionError';
  }
}

/**
 * Read, change, write conditionally; again on conflict. `change` answers the new value, null to
 * delete the item, or undefined to leave it as it is. Returns the writes tried.
 */
async function updateMeta<T extends object>(
  table: StateTable,
  key: string,
  change: (current: T | null) => T | null | undefined,
): Promise<number> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const item = await table.getMeta(key);
    const next = change((item?.value as T | undefined) ?? null);
    if (next === undefined) return attempt - 1;
    const ok =
      next === null
        ? item === null || (await table.deleteMeta(key, item.version))
        : await table.putMeta(key, next as Record<string, unknown>, item?.version ?? null);
    if (ok) return attempt;
  }
  throw new ContentionError(`meta#${key}`, MAX_ATTEMPTS);
}

export { ContentionError, MAX_ATTEMPTS, updateMeta };
