/**
 * Group pages (Alertmanager's grouping) with the same accounting as single pages. Each group is
 * one state item, `meta#group#<id>`, holding its members and any claim; pages reach it by
 * hand-over (`groupInbox.ts`), and `groupRegistry.ts` lists the open groups so a run finds a
 * group that is due although no target of it changed. A continuation (`group#<id>-1`, ...) is an
 * item like the first in every way below, paged as its own group page.
 *
 * The flush: claim -> publish -> commit on the group item. The claim (token, lease, reason, time
 * and which alerts the page names with which status) is written before publishing; the commit
 * re-reads the item and marks what each ACCEPTED part said, keeping alerts handed over meanwhile.
 * A run that finds an expired claim rebuilds its page from the group and publishes it again
 * before deciding anything (at most one duplicate of the page in flight); parts of a replay SNS
 * refuses stay claimed, in doubt, until a run gets them accepted, so a resolve owed to a page
 * that may have gone out is never dropped.
 */

import {
  decideGroup,
  GROUP_REASONS,
  type GroupReason,
  type GroupState,
  markPaged,
  pagedOf,
  type StatusByAlert,
  settle as settleGroup,
  withoutSilenced,
} from '../../core/alerts/group.ts';
import type { Silence } from '../../core/alerts/silences.ts';
import type { Notification } from '../../core/alerts/types.ts';
import { isGroupMessage } from '../../core/message/alertMessage.ts';
import { buildGroupPages } from '../../core/notify/groupPage.ts';
import { STATE_KEYS } from '../../core/stateKeys.ts';
import { fetchAll } from '../concurrency.ts';
import type { Claimed, Logger, Notifier, StateTable } from '../ports.ts';
import {
  CLAIM_OUTCOMES,
  type ClaimKind,
  type ClaimRun,
  claimPublishCommit,
  leaseFor,
  nextOrder,
  settle,
} from './claim.ts';
import { updateMeta } from './conditionalUpdate.ts';
import { register, unregister } from './groupRegistry.ts';

/** Groups flushed at once. */
const FLUSH_CONCURRENCY = 16;

/** A group item's claim: the page's reason, time, order and what it names; the page is rebuilt from them. */
type GroupClaim = Claimed<{
  reason: Exclude<GroupReason, 'none'>;
  /** When the page was decided (its evaluation time, also in the rebuilt page). */
  at: string;
  /** The page's order (its part i carries order + i); absent on claims made before orders. */
  order?: number;
  paged: StatusByAlert;
}>;

interface StoredGroup {
  group: GroupState;
  claim: GroupClaim | null;
  /** The order of the last part of the last page claimed: the next page's parts order after it. */
  lastOrder?: number;
}

/** The `meta#` key of a group's item. */
const groupItemKey = STATE_KEYS.group;

/** Which alerts a page (one part) names: a grouped part lists them; a single alert's page names itself. */
function namedBy(page: Notification): StatusByAlert {
  if (!isGroupMessage(page.payload)) return { [page.fingerprint]: page.status };
  const named: StatusByAlert = {};
  for (const a of page.payload.alerts) named[a.fingerprint] = a.status;
  return named;
}

interface FlushOutcome {
  sent: Notification[];
  failed: Array<{ notification: Notification; error: unknown }>;
  writes: number;
  /** Groups another run held: left to it. */
  conflicts: number;
}

interface FlushOptions {
  token: string;
  leaseMs: number;
  repeatIntervalMs: number;
  /** Silences in force: firing alerts they cover are left out of pages until they end. */
  silences: readonly Silence[];
}

/** Where a flush works: the table, the notifier, and the outcome it adds to. */
interface FlushContext {
  table: StateTable;
  notifier: Notifier;
  outcome: FlushOutcome;
}

/** The page a group claim stands for, rebuilt from the group and what the claim says. */
function pagesOf(group: GroupState, claim: GroupClaim): Notification[] {
  return buildGroupPages({
    group,
    paged: claim.paged,
    reason: claim.reason,
    now: new Date(claim.at),
    ...(claim.order === undefined ? {} : { order: claim.order }),
  });
}

/**
 * The group items' `ClaimKind`: the claim names which alerts the page names with which status
 * (the page is rebuilt from the group); an accepted part marks what it said; the commit re-reads
 * the item and marks it there, keeping alerts handed over meanwhile. `stored` is the item as read
 * at `version`.
 */
function groupKind(
  { table, notifier, outcome }: FlushContext,
  itemKey: string,
  stored: StoredGroup,
  version: number,
): ClaimKind<GroupClaim, Notification, void> {
  const accepted: StatusByAlert = {};
  return {
    pagesOf: (claim) => pagesOf(stored.group, claim),
    async writeClaim(claim, pages) {
      outcome.writes++;
      // The item records the order of the page's last part: the next page orders after it.
      const lastOrder = claim.order === undefined ? stored.lastOrder : claim.order + Math.max(pages.length - 1, 0);
      const item: StoredGroup = { group: stored.group, claim, ...(lastOrder === undefined ? {} : { lastOrder }) };
      return table.putMeta(itemKey, { ...item }, version);
    },
    publish: (page) => notifier.publish(page),
    accepted: (page) => void Object.assign(accepted, namedBy(page)),
    release: (_, refused) => ({ paged: Object.assign({}, ...refused.map(({ page }) => namedBy(page))) }),
    async write({ claim, kept }) {
      let ours = false;
      outcome.writes += await updateMeta<StoredGroup>(table, itemKey, (current) => {
        ours = current !== null && current.claim?.token === claim.token;
        if (!ours || current === null) return undefined; // another run took over
        const group = Object.keys(accepted).length > 0 ? markPaged(current.group, accepted, claim.at) : current.group;
        // Never deleted here: a group that emptied is closed by a later flush (`closeGroup`).
        return { ...current, group, claim: kept };
      });
      return ours;
    },
  };
}

/** A claim's pages into the flush's outcome; whether the item is left to another run (a conflict). */
function tally(outcome: FlushOutcome, run: ClaimRun<Notification>): void {
  outcome.sent.push(...run.sent);
  outcome.failed.push(...run.failed.map(({ page, error }) => ({ notification: page, error })));
  if (run.outcome === CLAIM_OUTCOMES.held || run.outcome === CLAIM_OUTCOMES.raced) outcome.conflicts++;
}

/**
 * Delete a group nothing is left in. It leaves the list first, then goes if still unchanged; if a
 * page was handed to it meanwhile, it is listed again. (The other order could unlist a group that
 * a hand-over had just re-created and listed: its later pages would wait for a run to touch it.)
 */
async function closeGroup(table: StateTable, itemKey: string, version: number): Promise<number> {
  let writes = await unregister(table, itemKey);
  writes++;
  if (await table.deleteMeta(itemKey, version)) return writes;
  const item = await table.getMeta(itemKey);
  if (item !== null) writes += await register(table, itemKey, (item.value as unknown as StoredGroup).group.key);
  return writes;
}

/** One group: finish a claim left by a dead run (`settle`), then page if the decision says so. */
async function flushOne(context: FlushContext, itemKey: string, now: Date, options: FlushOptions): Promise<void> {
  const { table, outcome } = context;
  let item = await table.getMeta(itemKey);
  if (item === null) {
    outcome.writes += await unregister(table, itemKey);
    return;
  }
  let stored = item.value as unknown as StoredGroup;
  if (stored.claim != null) {
    const settled = await settle(groupKind(context, itemKey, stored, item.version), stored.claim, now, options);
    tally(outcome, settled);
    if (settled.outcome !== CLAIM_OUTCOMES.committed) return;
    item = await table.getMeta(itemKey);
    if (item === null) return;
    stored = item.value as unknown as StoredGroup;
    // Why: between our commit and this read another run may have claimed the group; deciding on
    // the item it claimed would page its page a second time (the model test found it).
    if (stored.claim !== null) {
      outcome.conflicts++;
      return;
    }
  }
  const group = settleGroup(stored.group, now);
  const visible = withoutSilenced(group, now, options.silences);
  const reason = decideGroup(visible, now, options.repeatIntervalMs);
  if (reason === GROUP_REASONS.none) {
    if (Object.keys(group.members).length === 0) outcome.writes += await closeGroup(table, itemKey, item.version);
    return;
  }
  const claim: GroupClaim = {
    ...leaseFor(options.token, now, options.leaseMs),
    reason,
    at: now.toISOString(),
    order: nextOrder(stored.lastOrder, now),
    paged: pagedOf(visible),
  };
  const kind = groupKind(context, itemKey, { ...stored, group, claim: null }, item.version);
  tally(outcome, await claimPublishCommit(kind, { claim, attempt: 'first', pages: pagesOf(group, claim) }));
}

/**
 * Page every group of `itemKeys` that is due (decideGroup), each through claim -> publish ->
 * commit. One group's failure never stops the others (returned in `failed`, or thrown as
 * ContentionError only when the table kept refusing).
 */
async function flushGroups(
  table: StateTable,
  notifier: Notifier,
  itemKeys: Iterable<string>,
  now: Date,
  options: FlushOptions,
  logger: Logger,
): Promise<FlushOutcome & { errors: unknown[] }> {
  const outcome: FlushOutcome = { sent: [], failed: [], writes: 0, conflicts: 0 };
  const errors: unknown[] = [];
  // Groups are independent items: several at once (grouped by target, a fleet has one per target).
  await fetchAll([...new Set(itemKeys)], FLUSH_CONCURRENCY, async (itemKey) => {
    try {
      await flushOne({ table, notifier, outcome }, itemKey, now, options);
    } catch (error) {
      errors.push(error);
      logger.error('group state failed', { group: itemKey, error: (error as Error).message });
    }
  });
  return { ...outcome, errors };
}

export type { GroupClaim, StoredGroup };
export { flushGroups, groupItemKey };
