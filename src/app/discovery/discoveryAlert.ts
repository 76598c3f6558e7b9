/**
 * The discovery alerts: one item per discovery parameter, paged once when its listing starts
 * failing and resolved when it lists again, and paged once when instances it lists are left out
 * for a name already taken and resolved when none is, through the claim machine as the
 * configuration alert is (`config/configAlert.ts`). Each item is read every run (one batched read
 * for all), written only when an alert starts or ends. The `DiscoveryFailing` metric (listings
 * only) goes out for each parameter too.
 */

import { leaf } from '../../core/monitorConfig.ts';
import { evaluateDiscoveryAlert, evaluateRemovedDiscoveryAlert } from '../../core/notify/discoveryAlert.ts';
import { STATE_KEYS } from '../../core/stateKeys.ts';
import { CLAIM_OUTCOMES } from '../accounting/claim.ts';
import { commitTarget, settleTarget } from '../accounting/targetItems.ts';
import { oweRetiredDiscovery } from '../config/removals.ts';
import type { PageRouter } from '../ports.ts';
import { leaseOf, type RunContext } from '../runContext.ts';
import type { DiscoveryStatus } from './discover.ts';

/** What the discovery alerts of a run are committed from. */
interface DiscoveryAlerts {
  statuses: readonly DiscoveryStatus[];
  /**
   * The stored configuration's generation the statuses' configuration was applied at; null when
   * it was not applied. Why: an alert may page only for a parameter the stored configuration
   * holds, else its deletion would go unseen and the alert stay open (as for targets).
   */
  generation: string | null;
  /** Deleted parameters whose alert is owed (`applyConfig`'s `retiredDiscovery`). */
  removed: readonly string[];
}

/**
 * Each parameter's metric emitted and, when its configuration was applied, its discovery alert
 * evaluated and committed; the alert of each parameter deleted (`removed`) resolved if it fired,
 * and its item deleted. Answers the deleted parameters done with (resolve accepted and item
 * deleted, or no item): the others stay owed for the next run.
 */
async function commitDiscoveryAlerts(ctx: RunContext, router: PageRouter, alerts: DiscoveryAlerts): Promise<string[]> {
  const { deps, now } = ctx;
  const { removed, generation } = alerts;
  for (const s of alerts.statuses)
    deps.metrics.discovery?.({ parameter: s.document.parameter, failing: s.failing !== null });
  const statuses = generation === null ? [] : alerts.statuses;
  if (statuses.length === 0 && removed.length === 0) return [];
  const lease = leaseOf(ctx);
  const keys = statuses.map((s) => STATE_KEYS.discoveryAlert(s.document.name));
  const gone = removed.map((p) => STATE_KEYS.discoveryAlert(leaf(p)));
  const loaded = await deps.table.loadMany([...keys, ...gone]);
  const done: string[] = [];
  for (const [i, parameter] of removed.entries()) {
    const key = gone[i] as string;
    const settled = await settleTarget(deps.table, router, key, loaded.get(key) ?? null, now, lease);
    ctx.ledger.claimed(settled);
    if (settled.status !== CLAIM_OUTCOMES.committed) continue;
    const item = settled.stored;
    if (item === null) {
      done.push(parameter);
      continue;
    }
    const { notifications } = evaluateRemovedDiscoveryAlert({ previous: item.state, parameter, now });
    const next = { ...item.state, alerts: {} };
    const commit = { key, loaded: item, next, notifications, deleteAfter: true, write: false };
    const outcome = await commitTarget(deps.table, router, commit, now, lease);
    ctx.ledger.claimed(outcome);
    if (outcome.status === CLAIM_OUTCOMES.committed && outcome.failed.length === 0) done.push(parameter);
  }
  for (const [i, status] of statuses.entries()) {
    const key = keys[i] as string;
    const settled = await settleTarget(deps.table, router, key, loaded.get(key) ?? null, now, lease);
    ctx.ledger.claimed(settled);
    if (settled.status !== CLAIM_OUTCOMES.committed) continue;
    const item = settled.stored;
    const { state, notifications } = evaluateDiscoveryAlert({
      previous: item?.state ?? null,
      parameter: status.document.parameter,
      source: status.document.query.source,
      failing: status.failing,
      targetsInForce: status.targets,
      collisions: status.collisions,
      now,
    });
    // Written only when an alert starts or ends (sorted: a table need not keep a map's order).
    const ids = (alerts: object) => Object.keys(alerts).sort().join();
    const write = ids(state.alerts) !== ids(item?.state.alerts ?? {});
    const parameter = status.document.parameter;
    // A claim creating the item records the parameter owed if the table moved on without it.
    const onCreated = () =>
      generation === null ? Promise.resolve(0) : oweRetiredDiscovery(ctx, parameter, generation);
    const commit = { key, loaded: item, next: state, notifications, deleteAfter: false, write, onCreated };
    ctx.ledger.claimed(await commitTarget(deps.table, router, commit, now, lease));
  }
  return done;
}

export { commitDiscoveryAlerts };
