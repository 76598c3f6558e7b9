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
  settle,
  withoutSilenced,
} from '../../core/alerts/group.ts';
import type { Silence } from '../../core/alerts/silences.ts';
import type { Notification } from '../../core/alerts/types.ts';
import { buildGroupPages } from '../../core/notify/groupPage.ts';
import { fetchAll } from '../concurrency.ts';
import type { Logger, Notifier, StateTable } from '../ports.ts';
import { type Attempt, CLAIM_STATES, claimAfterPublish, claimState, leaseFor, nextOrder, takenOver } from './claim.ts';
import { updateMeta } from './conditionalUpdate.ts';
import { register, unregister } from './groupRegistry.ts';
import { STATE_KEYS } from './stateKeys.ts';

/** Groups flushed at once. */
const FLUSH_CONCURRENCY = 16;

interface GroupClaim {
  token: string;
  expiresAtMs: number;
  reason: Exclude<GroupReason, 'none'>;
  /** When the page was decided (its evaluation time, also in the rebuilt page). */
  at: string;
  /** The page's order (issue 21; its part i carries order + i); absent on claims made before orders. */
  order?: number;
  paged: StatusByAlert;
}

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
  const alerts = page.payload.alerts;
  if (page.payload.kind !== 'group' || !Array.isArray(alerts)) return { [page.fingerprint]: page.status };
  const named: StatusByAlert = {};
  for (const a of alerts as Array<{ fingerprint: string; status: 'firing' | 'resolved' }>)
    named[a.fingerprint] = a.status;
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

/** A group page about to be claimed: the item, as read at `version`, and the claim to write. */
interface GroupSend {
  itemKey: string;
  stored: StoredGroup;
  version: number;
  claim: GroupClaim;
  attempt: Attempt;
}

/**
 * Publish a claimed page's parts, then commit: mark what each accepted part said. Parts that
 * failed stay claimed (released to the next run) when the page is a replay, in doubt; otherwise
 * they are simply not marked and the next decision pages them again.
 */
async function publishAndCommit(
  { table, notifier, outcome }: FlushContext,
  { itemKey, claim, attempt }: GroupSend,
  pages: readonly Notification[],
): Promise<void> {
  const accepted: StatusByAlert = {};
  const unsent: StatusByAlert = {};
  for (const page of pages) {
    try {
      await notifier.publish(page);
      outcome.sent.push(page);
      Object.assign(accepted, namedBy(page));
    } catch (error) {
      outcome.failed.push({ notification: page, error });
      Object.assign(unsent, namedBy(page));
    }
  }
  const next = claimAfterPublish(claim, attempt, Object.keys(unsent).length > 0 ? { paged: unsent } : null);
  outcome.writes += await updateMeta<StoredGroup>(table, itemKey, (current) => {
    if (current === null || current.claim?.token !== claim.token) return undefined; // another run took over
    const group = Object.keys(accepted).length > 0 ? markPaged(current.group, accepted, claim.at) : current.group;
    // Never deleted here: a group that emptied is closed by a later flush (`closeGroup`).
    return { ...current, group, claim: next };
  });
}

/** Claim the item (conditional on the version read), then publish and commit. */
async function claimAndSend(context: FlushContext, send: GroupSend): Promise<boolean> {
  const { table, outcome } = context;
  outcome.writes++;
  const { claim } = send;
  const pages = buildGroupPages({
    group: send.stored.group,
    paged: claim.paged,
    reason: claim.reason,
    now: new Date(claim.at),
    ...(claim.order === undefined ? {} : { order: claim.order }),
  });
  // Built before the claim is written: the item records the order of the page's last part.
  const lastOrder = claim.order === undefined ? send.stored.lastOrder : claim.order + Math.max(pages.length - 1, 0);
  const item: StoredGroup = { group: send.stored.group, claim, ...(lastOrder === undefined ? {} : { lastOrder }) };
  if (!(await table.putMeta(send.itemKey, { ...item }, send.version))) {
    outcome.conflicts++;
    return false;
  }
  await publishAndCommit(context, send, pages);
  return true;
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

/** One group: finish a claim left by a dead run, then page if the decision says so. */
async function flushOne(context: FlushContext, itemKey: string, now: Date, options: FlushOptions): Promise<void> {
  const { table, outcome } = context;
  let item = await table.getMeta(itemKey);
  if (item === null) {
    outcome.writes += await unregister(table, itemKey);
    return;
  }
  let stored = item.value as unknown as StoredGroup;
  const held = claimState(stored.claim, now, options.token);
  if (held === CLAIM_STATES.held) {
    outcome.conflicts++;
    return;
  }
  if (stored.claim !== null) {
    const takeover = takenOver(stored.claim, options.token, now, options.leaseMs);
    const failedBefore = outcome.failed.length;
    const replay: GroupSend = { itemKey, stored, version: item.version, claim: takeover, attempt: 'replay' };
    if (!(await claimAndSend(context, replay))) return;
    if (outcome.failed.length > failedBefore) return; // still in doubt: nothing new before it is settled
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
  const group = settle(stored.group, now);
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
  await claimAndSend(context, {
    itemKey,
    stored: { ...stored, group, claim: null },
    version: item.version,
    claim,
    attempt: 'first',
  });
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
