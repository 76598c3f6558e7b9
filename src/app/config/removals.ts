/**
 * Targets removed from the configuration: found by comparing the configuration applied with the
 * last one stored (so this works across cold starts and changes made while no run was going);
 * each alert whose firing page went out is resolved ("target removed from configuration"), then
 * the target's item is deleted once every resolve was accepted, through the one claim machine
 * (`targetItems.ts`). A run older than the target's last evaluation (a late tick) resolves at that
 * evaluation's time. Removals that could not finish stay owed in the stored pointer and are
 * retried by the next run.
 */
import { evaluateRemovedTarget } from '../../core/evaluate.ts';
import { type MonitorConfig, targetNames } from '../../core/monitorConfig.ts';
import { CLAIM_OUTCOMES } from '../accounting/claim.ts';
import { ContentionError } from '../accounting/conditionalUpdate.ts';
import { commitTarget, settleTarget, targetKey } from '../accounting/targetItems.ts';
import type { PageRouter } from '../ports.ts';
import { leaseOf, type RunContext } from '../runContext.ts';
import { LAST_VALID_KEY, readConfigGeneration, readStoredConfig, saveRemoving } from './stored.ts';

/** `now`, or `evaluatedAt` when the item was evaluated later than it. */
function laterOf(now: Date, evaluatedAt: string | null | undefined): Date {
  const ms = evaluatedAt == null ? Number.NaN : Date.parse(evaluatedAt);
  return Number.isFinite(ms) && ms > now.getTime() ? new Date(ms) : now;
}

/** Times a run writes the stored pointer again after another run moved it on. */
const MAX_APPLY_ATTEMPTS = 5;

/**
 * Resolve and delete removed targets; the names whose removal did not finish. A target whose
 * grouped alerts' records must outlive their resolves (`evaluateRemovedTarget`) keeps its item,
 * and its name stays owed, until they expire.
 */
async function removeTargets(
  ctx: RunContext,
  router: PageRouter,
  names: readonly string[],
  rules: MonitorConfig['rules'],
): Promise<string[]> {
  if (names.length === 0) return [];
  const { deps, now } = ctx;
  const lease = leaseOf(ctx);
  const items = await deps.table.loadMany(names.map(targetKey));
  const owed: string[] = [];
  for (const name of names) {
    deps.warm.delete(name);
    const key = targetKey(name);
    const settled = await settleTarget(deps.table, router, key, items.get(key) ?? null, now, lease);
    ctx.ledger.claimed(settled);
    if (settled.status !== CLAIM_OUTCOMES.committed) {
      owed.push(name);
      continue;
    }
    const item = settled.stored;
    if (item === null) continue;
    // A run of a late tick resolves at the target's last evaluation time, not before it: its group
    // ignores a hand-over older than the one it holds, and the alert would stay open there.
    const at = laterOf(now, item.state.evaluatedAt);
    const { notifications, state } = evaluateRemovedTarget(item.state, rules, at, deps.evaluate);
    const next = state ?? { ...item.state, alerts: {} };
    const changed = JSON.stringify(next) !== JSON.stringify(item.state);
    const outcome = await commitTarget(
      deps.table,
      router,
      { key, loaded: item, next, notifications, deleteAfter: state === null, write: state === null || changed },
      now,
      lease,
    );
    ctx.ledger.claimed(outcome);
    if (outcome.status !== CLAIM_OUTCOMES.committed || outcome.failed.length > 0 || state !== null) owed.push(name);
    else deps.logger.info('target removed from configuration', { target: name, resolved: outcome.sent.length });
  }
  return owed;
}

/**
 * After a run evaluated on the configuration of `generation` and created items (each item's
 * claim, before its pages go out; the run's end for items written without pages): when the table
 * moved on to another meanwhile, every target in `created` that the stored configuration does not
 * list is recorded as a removal owed, so the run that applied it cannot have missed it. Answers
 * the writes made (a claim's count them as its own).
 *
 * @throws ContentionError when other runs kept moving the pointer on
 */
async function oweRemovals(ctx: RunContext, created: readonly string[], generation: string): Promise<number> {
  if (created.length === 0) return 0;
  const { table, logger } = ctx.deps;
  // The usual answer, from the pointer alone: the table is still at this run's configuration.
  const at = await readConfigGeneration(table);
  if (at === null || at === generation) return 0;
  let writes = 0;
  for (let attempt = 1; attempt <= MAX_APPLY_ATTEMPTS; attempt++) {
    const stored = await readStoredConfig(table);
    if (stored === null || stored.pointer.generation === generation) return writes;
    const listed = new Set(stored.raw == null ? [] : targetNames(stored.raw));
    const missing = created.filter((n) => !listed.has(n) && !stored.pointer.removing.includes(n));
    if (missing.length === 0) return writes;
    writes++;
    if ((await saveRemoving(table, stored, [...stored.pointer.removing, ...missing])) !== null) {
      logger.warn('targets created under a configuration replaced meanwhile: removal owed', { targets: missing });
      return writes;
    }
  }
  throw new ContentionError(`meta#${LAST_VALID_KEY}`, MAX_APPLY_ATTEMPTS);
}

/**
 * Called when a run's claim created the discovery alert item of `parameter` (before its page goes
 * out), the run having applied the configuration of `generation`: when the table moved on
 * meanwhile to a configuration without the parameter, it is recorded owed (`retiringDiscovery`),
 * so the run that deleted it, which may have found no item, cannot have cleared it unseen. The
 * write is made even when the pointer still owes it: it moves the pointer's version on, so that
 * run's clearing write (conditional on the version it read) fails and the parameter stays owed.
 * Answers the writes made.
 *
 * @throws ContentionError when other runs kept moving the pointer on
 */
async function oweRetiredDiscovery(ctx: RunContext, parameter: string, generation: string): Promise<number> {
  const { table, logger } = ctx.deps;
  // The usual answer, from the pointer alone: the table is still at this run's configuration.
  const at = await readConfigGeneration(table);
  if (at === null || at === generation) return 0;
  for (let attempt = 1, writes = 0; attempt <= MAX_APPLY_ATTEMPTS; attempt++) {
    const stored = await readStoredConfig(table);
    if (stored === null || stored.pointer.generation === generation) return writes;
    if (stored.raw?.discovery?.[parameter] !== undefined) return writes;
    writes++;
    const retiring = [...new Set([...stored.pointer.retiringDiscovery, parameter])].sort();
    if ((await saveRemoving(table, stored, stored.pointer.removing, retiring)) !== null) {
      logger.warn('discovery alert created under a configuration replaced meanwhile: its resolve owed', { parameter });
      return writes;
    }
  }
  throw new ContentionError(`meta#${LAST_VALID_KEY}`, MAX_APPLY_ATTEMPTS);
}

export { MAX_APPLY_ATTEMPTS, oweRemovals, oweRetiredDiscovery, removeTargets };
