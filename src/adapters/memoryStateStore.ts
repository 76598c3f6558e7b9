/**
 * A StateStore in memory: for tests, and for `check` without `--state` (state lives for one run).
 */
import type { StateStore } from '../core/alerts/store.ts';
import type { TargetState } from '../core/alerts/types.ts';

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

export { createMemoryStateStore };
