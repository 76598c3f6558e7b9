/**
 * The configuration alert: invalid or unreadable configuration never silences monitoring, it
 * pages, once per distinct set of problems, and resolves once the configuration is valid again.
 * Its item (`config#alert`) is a state item like a target's and goes through the same claim
 * machine (`targetItems.ts`): a dead run's claim settled first, then claim, publish, commit.
 */
import { evaluateConfigAlert } from '../../core/notify/configAlert.ts';
import { STATE_KEYS } from '../../core/stateKeys.ts';
import { CLAIM_OUTCOMES } from '../accounting/claim.ts';
import { commitTarget, settleTarget } from '../accounting/targetItems.ts';
import type { PageRouter } from '../ports.ts';
import { leaseOf, type RunContext } from '../runContext.ts';

const CONFIG_ALERT_KEY = STATE_KEYS.configAlert;

/**
 * The configuration alert's item evaluated and committed like a target's: `problems` (null: the
 * configuration is valid) and how many targets are checked meanwhile (null: none).
 */
async function commitConfigAlert(
  ctx: RunContext,
  router: PageRouter,
  problems: string[] | null,
  targetsInForce: number | null,
): Promise<void> {
  const { deps, now } = ctx;
  const lease = leaseOf(ctx);
  const loaded = (await deps.table.loadMany([CONFIG_ALERT_KEY])).get(CONFIG_ALERT_KEY) ?? null;
  const settled = await settleTarget(deps.table, router, CONFIG_ALERT_KEY, loaded, now, lease);
  ctx.ledger.claimed(settled);
  if (settled.status !== CLAIM_OUTCOMES.committed) return;
  const item = settled.stored;
  const { state, notifications } = evaluateConfigAlert({
    previous: item?.state ?? null,
    problems,
    targetsInForce,
    now,
  });
  const write =
    JSON.stringify(Object.keys(state.alerts).sort()) !== JSON.stringify(Object.keys(item?.state.alerts ?? {}).sort());
  const commit = { key: CONFIG_ALERT_KEY, loaded: item, next: state, notifications, deleteAfter: false, write };
  ctx.ledger.claimed(await commitTarget(deps.table, router, commit, now, lease));
}

export { CONFIG_ALERT_KEY, commitConfigAlert };
