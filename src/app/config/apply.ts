/**
 * Applying a valid configuration: it is stored as the last valid one (`stored.ts`: chunked,
 * credentials redacted) with every removal it owes, the removals are done (`removals.ts`), and
 * what is still owed is stored. This container remembers what it applied (`CycleDeps.warmConfig`).
 */
import { type MonitorConfig, type RawConfig, targetNames } from '../../core/monitorConfig.ts';
import { ContentionError } from '../accounting/conditionalUpdate.ts';
import type { AppliedConfig, PageRouter } from '../ports.ts';
import type { RunContext } from '../runContext.ts';
import { hashOf } from './read.ts';
import { MAX_APPLY_ATTEMPTS, removeTargets } from './removals.ts';
import {
  LAST_VALID_KEY,
  type LastValidPointer,
  readStoredConfig,
  type StoredConfig,
  saveRemoving,
  saveStoredConfig,
} from './stored.ts';

/** A configuration applied, and the discovery parameters the one stored before it had and it has not. */
interface Applied {
  applied: AppliedConfig;
  /**
   * Deleted discovery parameters (their alerts are resolved by the caller). Known only from the
   * stored configuration this run replaced: none when nothing changed, or another run stored it.
   */
  retiredDiscovery: string[];
}

/**
 * Apply a valid configuration: store it with every removal it owes, then do the removals, then
 * store which are still owed. Warm, unchanged and the table still at the generation this
 * container applied (`tableGeneration`, as `readConfig` read it): nothing more to do. Every write
 * of the pointer is conditional on the version read; when another run moved it on meanwhile,
 * this run reads it again and redoes the (idempotent) removals, so neither run can drop a
 * removal the other still owes. Why the pointer first: a run of another container still on the
 * older configuration may create a removed target's item just after this run's removals read it;
 * that run then finds the pointer moved on and records the removal owed (`oweRemovals`, right
 * after its claim creates the item, before any page of it). Writes go to the run's ledger as
 * they are made.
 *
 * @throws ContentionError when other runs kept storing a configuration meanwhile (not applied this run)
 */
async function applyConfig(
  ctx: RunContext,
  router: PageRouter,
  read: { raw: RawConfig; config: MonitorConfig; tableGeneration: string | null },
): Promise<Applied> {
  const { deps, now, ledger } = ctx;
  const { raw, config, tableGeneration } = read;
  const hash = hashOf(raw);
  const warm = deps.warmConfig.applied;
  if (warm?.hash === hash && warm.removing.length === 0 && warm.generation === tableGeneration)
    return { applied: warm, retiredDiscovery: [] };
  let retiredDiscovery: string[] = [];
  const apply = (pointer: LastValidPointer): Applied => {
    const applied = { hash, config, raw, removing: pointer.removing, generation: pointer.generation };
    deps.warmConfig.applied = applied;
    return { applied, retiredDiscovery };
  };
  for (let attempt = 1; attempt <= MAX_APPLY_ATTEMPTS; attempt++) {
    const stored = await readStoredConfig(deps.table);
    // Read here, where the configuration replaced is read anyway: no read more for discovery.
    retiredDiscovery = Object.keys(stored?.raw?.discovery ?? {})
      .filter((parameter) => raw.discovery?.[parameter] === undefined)
      .sort();
    const configured = new Set(config.targets.map((t) => t.name));
    const before = stored?.raw == null ? [] : targetNames(stored.raw);
    const gone = [...new Set([...before, ...(stored?.pointer.removing ?? [])])].filter((n) => !configured.has(n));
    let announced: StoredConfig | null = stored;
    if (stored?.pointer.hash !== hash) {
      const outcome = await saveStoredConfig(deps.table, raw, hash, gone, now, stored);
      ledger.writes += outcome.writes;
      announced = outcome.saved && { pointer: outcome.saved, raw, version: (stored?.version ?? 0) + 1 };
    } else if (stored.pointer.removing.join() !== gone.join()) {
      ledger.writes++;
      const pointer = await saveRemoving(deps.table, stored, gone);
      announced = pointer && { pointer, raw, version: stored.version + 1 };
    }
    if (announced === null) continue;
    if (gone.length === 0) return apply(announced.pointer);
    const owed = await removeTargets(ctx, router, gone, config.rules);
    if (owed.join() === gone.join()) return apply(announced.pointer);
    ledger.writes++;
    const pointer = await saveRemoving(deps.table, announced, owed);
    if (pointer !== null) return apply(pointer);
  }
  // Other runs kept storing the configuration while this one tried: it is not applied this run.
  throw new ContentionError(`meta#${LAST_VALID_KEY}`, MAX_APPLY_ATTEMPTS);
}

export type { Applied };
export { applyConfig };
