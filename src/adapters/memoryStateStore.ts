/**
 * State in memory. `createMemoryStateStore`: a StateStore for tests and for `check` without
 * `--state` (state lives for one run). `createMemoryStateTable`: the Lambda's state table with
 * the same conditional semantics as DynamoDB's, for fast model-based tests and local runs.
 */

import type { StateTable, StoredState } from '../app/ports.ts';
import type { StateStore } from '../core/alerts/store.ts';
import type { TargetState } from '../core/alerts/types.ts';
import { finiteOnly } from './finiteOnly.ts';

/** A store keeping deep copies, so callers cannot change saved state by mutating their objects. */
function createMemoryStateStore(initial: readonly TargetState[] = []): StateStore & { targets(): string[] } {
  const states = new Map<string, TargetState>(initial.map((s) => [s.target, structuredClone(s)]));
  return {
    async load(target) {
      const state = states.get(target);
      return state === undefined ? null : structuredClone(state);
    },
    async save(state) {
      states.set(state.target, structuredClone(state));
    },
    targets: () => [...states.keys()].sort(),
  };
}

/**
 * A StateTable in memory: every write conditional on the version as in DynamoDB, values stored
 * as copies with non-finite numbers made null (as the DynamoDB adapter stores them).
 *
 * @example
 * const table = createMemoryStateTable();
 * await table.put('target#web-1', { state, claim: null }, null, now); // true; again with null: false
 */
function createMemoryStateTable(): StateTable & { keys(): string[] } {
  const items = new Map<string, StoredState>();
  const meta = new Map<string, { value: Record<string, unknown>; version: number }>();
  const matches = (current: number | undefined, expected: number | null) =>
    expected === null ? current === undefined : current === expected;
  return {
    async loadMany(keys) {
      const out = new Map<string, StoredState>();
      for (const key of keys) {
        const item = items.get(key);
        if (item !== undefined) out.set(key, structuredClone(item));
      }
      return out;
    },
    async put(key, { state, claim, generation }, expectedVersion) {
      if (!matches(items.get(key)?.version, expectedVersion)) return false;
      const version = (expectedVersion ?? 0) + 1;
      items.set(
        key,
        finiteOnly({
          version,
          state,
          claim: structuredClone(claim),
          ...(generation === undefined ? {} : { generation }),
        }),
      );
      return true;
    },
    async remove(key, expectedVersion) {
      if (!matches(items.get(key)?.version, expectedVersion)) return false;
      items.delete(key);
      return true;
    },
    async getMeta(key) {
      const item = meta.get(key);
      return item === undefined ? null : structuredClone(item);
    },
    async putMeta(key, value, expectedVersion) {
      if (expectedVersion !== undefined && !matches(meta.get(key)?.version, expectedVersion)) return false;
      meta.set(key, finiteOnly({ value, version: (expectedVersion ?? 0) + 1 }));
      return true;
    },
    async deleteMeta(key, expectedVersion) {
      if (expectedVersion !== undefined && !matches(meta.get(key)?.version, expectedVersion)) return false;
      meta.delete(key);
      return true;
    },
    keys: () => [...items.keys()].sort(),
  };
}

export { createMemoryStateStore, createMemoryStateTable };
