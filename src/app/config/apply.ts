/**
 * Applying a valid configuration: it is stored as the last valid one (`stored.ts`: chunked,
 * credentials redacted) with every removal and deleted discovery parameter it owes, the removals
 * are done (`removals.ts`), and what is still owed is stored. This container remembers what it
 * applied (`CycleDeps.warmConfig`).
 */
import { type MonitorConfig, type RawConfig, targetNames } from '../../core/monitorConfig.ts';
import { ContentionError } from '../accounting/conditionalUpdate.ts';
import type { AppliedConfig, PageRouter } from '../ports.ts';
import type { RunContext } from '../runContext.ts';
import { hashOf } from './read.ts';
import { MAX_APPLY_ATTEMPTS, removeTargets } from './removals.ts';
import {
  LAST_VALID_KEY,
  readStoredConfig,
  type StoredConfig,
  saveRemoving,
  saveRetiringDiscovery,
  saveStoredConfig,
} from './stored.ts';

/** A configuration applied, and the deleted discovery parameters whose alerts it owes. */
interface Applied {
  applied: AppliedConfig;
  /**
   * Deleted discovery parameters whose alert is still owed (resolved by the caller, then cleared
   * with `discoveryRetired`): those the stored configuration this run replaced had and the new
   * one has not, and those the stored pointer still owed (`retiringDiscovery`), so a run that
   * dies before resolving leaves them to the next.
   */
  retiredDiscovery: string[];
  /** The pointer as this run stored or read it last, with its version; null when nothing was read (warm). */
  stored: StoredConfig | null;
}

/** The discovery parameters `stored` had or still owed that `raw` has not, sorted. */
function retiringOf(stored: StoredConfig | null, raw: RawConfig): string[] {
  const before = [...Object.keys(stored?.raw?.discovery ?? {}), ...(stored?.pointer.retiringDiscovery ?? [])];
  // A parameter that came back is no longer owed: its alert is evaluated again as it stands.
  return [...new Set(before)].filter((parameter) => raw.discovery?.[parameter] === undefined).sort();
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
 * they are made. Deleted discovery parameters are stored owed with the configuration too
 * (`retiringDiscovery`); their alerts are resolved after it (`commitDiscoveryAlerts`).
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
  if (
    warm?.hash === hash &&
    warm.removing.length === 0 &&
    warm.retiringDiscovery.length === 0 &&
    warm.generation === tableGeneration
  )
    return { applied: warm, retiredDiscovery: [], stored: null };
  const apply = (stored: StoredConfig): Applied => {
    const { removing, retiringDiscovery, generation } = stored.pointer;
    const applied = { hash, config, raw, removing, retiringDiscovery, generation };
    deps.warmConfig.applied = applied;
    return { applied, retiredDiscovery: retiringDiscovery, stored };
  };
  for (let attempt = 1; attempt <= MAX_APPLY_ATTEMPTS; attempt++) {
    const stored = await readStoredConfig(deps.table);
    // Read here, where the configuration replaced is read anyway: no read more for discovery.
    const retiring = retiringOf(stored, raw);
    const configured = new Set(config.targets.map((t) => t.name));
    const before = stored?.raw == null ? [] : targetNames(stored.raw);
    const gone = [...new Set([...before, ...(stored?.pointer.removing ?? [])])].filter((n) => !configured.has(n));
    let announced: StoredConfig | null = stored;
    if (stored?.pointer.hash !== hash) {
      const outcome = await saveStoredConfig(deps.table, raw, hash, gone, now, stored, retiring);
      ledger.writes += outcome.writes;
      announced = outcome.saved && { pointer: outcome.saved, raw, version: (stored?.version ?? 0) + 1 };
    } else if (
      stored.pointer.removing.join() !== gone.join() ||
      stored.pointer.retiringDiscovery.join() !== retiring.join()
    ) {
      ledger.writes++;
      const pointer = await saveRemoving(deps.table, stored, gone, retiring);
      announced = pointer && { pointer, raw, version: stored.version + 1 };
    }
    if (announced === null) continue;
    if (gone.length === 0) return apply(announced);
    const owed = await removeTargets(ctx, router, gone, config.rules);
    if (owed.join() === gone.join()) return apply(announced);
    ledger.writes++;
    const pointer = await saveRemoving(deps.table, announced, owed);
    if (pointer !== null) return apply({ pointer, raw, version: announced.version + 1 });
  }
  // Other runs kept storing the configuration while this one tried: it is not applied this run.
  throw new ContentionError(`meta#${LAST_VALID_KEY}`, MAX_APPLY_ATTEMPTS);
}

/**
 * After the alerts of `applied.retiredDiscovery` were committed: the parameters in `done` (alert
 * resolved, or none fired, and the item deleted) are no longer owed. One conditional write of the
 * pointer, none when nothing is done; when another run moved the pointer on, they stay owed and
 * the next run finds them done again (no item: nothing to page).
 */
async function discoveryRetired(ctx: RunContext, applied: Applied, done: readonly string[]): Promise<void> {
  const { stored } = applied;
  if (stored === null || done.length === 0) return;
  const left = stored.pointer.retiringDiscovery.filter((parameter) => !done.includes(parameter));
  ctx.ledger.writes++;
  const pointer = await saveRetiringDiscovery(ctx.deps.table, stored, left);
  if (pointer === null) return;
  const warm = ctx.deps.warmConfig.applied;
  if (warm !== null && warm.generation === pointer.generation)
    ctx.deps.warmConfig.applied = { ...warm, retiringDiscovery: left };
}

export type { Applied };
export { applyConfig, discoveryRetired };
