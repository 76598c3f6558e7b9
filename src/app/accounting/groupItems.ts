/**
 * Group pages (Alertmanager's grouping) with the same accounting as single pages. Each group is
 * one state item, `meta#group#<id>`, holding its members and any claim; `meta#groups` lists the
 * open groups so a run finds a group that is due although no target of it changed.
 *
 * 1. Hand-over: a target's claimed page whose alert is grouped is "published" by adding it to its
 *    group (read, add, write conditional on the version read; retried on conflict). The target's
 *    commit marks the page sent only once the group holds it, and records which item holds it; a
 *    replay adds the same page again and changes nothing. Hand-overs to one group within a run are
 *    written together. A group item holds MAX_GROUP_MEMBERS alerts: a firing alert a full item
 *    refuses goes on to the group's continuation (`group#<id>-1`, -2, ..., MAX_GROUP_ITEMS in all),
 *    an item like the first in every way below, paged as its own group page.
 * 2. Flush: claim -> publish -> commit on the group item. The claim (token, lease, reason, time and
 *    which alerts the page names with which status) is written before publishing; the commit
 *    re-reads the item and marks what each ACCEPTED part said, keeping alerts handed over
 *    meanwhile. A run that finds an expired claim rebuilds its page from the group and publishes
 *    it again before deciding anything (at most one duplicate of the page in flight); parts of a
 *    replay SNS refuses stay claimed, in doubt, until a run gets them accepted, so a resolve owed
 *    to a page that may have gone out is never dropped.
 */

import {
  addToGroup,
  decideGroup,
  GROUP_REASONS,
  type GroupReason,
  type GroupState,
  type LatestPage,
  markPaged,
  pagedOf,
  type StatusByAlert,
  settle,
  withContinuation,
  withoutSilenced,
} from '../../core/alerts/group.ts';
import type { Silence } from '../../core/alerts/silences.ts';
import type { GroupRef, Notification } from '../../core/alerts/types.ts';
import { MAX_GROUP_ITEMS, MAX_GROUP_MEMBERS } from '../../core/constants.ts';
import { buildGroupPages } from '../../core/notify/groupPage.ts';
import { fetchAll } from '../concurrency.ts';
import type { DeliverOptions, Delivery, Logger, Notifier, StateTable } from '../ports.ts';
import { type Attempt, CLAIM_STATES, claimAfterPublish, claimState, leaseFor, nextOrder, takenOver } from './claim.ts';
import { STATE_KEYS } from './stateKeys.ts';
import { ContentionError, storedPage } from './targetItems.ts';

/** The item listing open groups: group item key -> group key. */
const REGISTRY_KEY = STATE_KEYS.openGroups;
/** Groups flushed at once. */
const FLUSH_CONCURRENCY = 16;
/** Conditional writes tried before a hand-over or commit gives up (another run keeps winning). */
const MAX_ATTEMPTS = 8;

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

type Registry = { open: Record<string, string> };

function register(table: StateTable, itemKey: string, key: string): Promise<number> {
  return updateMeta<Registry>(table, REGISTRY_KEY, (r) =>
    r?.open[itemKey] === undefined ? { open: { ...r?.open, [itemKey]: key } } : undefined,
  );
}

function unregister(table: StateTable, itemKey: string): Promise<number> {
  return updateMeta<Registry>(table, REGISTRY_KEY, (r) => {
    if (r?.open[itemKey] === undefined) return undefined;
    const open = { ...r.open };
    delete open[itemKey];
    return { open };
  });
}

/** The item keys of every open group. */
async function openGroups(table: StateTable): Promise<string[]> {
  const item = await table.getMeta(REGISTRY_KEY);
  return Object.keys((item?.value as Registry | undefined)?.open ?? {});
}

function latestOf(page: Notification): LatestPage {
  const kept = storedPage(page);
  return {
    fingerprint: page.fingerprint,
    status: page.status,
    subject: kept.subject,
    message: kept.message,
    payload: kept.payload,
  };
}

/** A page waiting to be written to one item of its group (`continuation` 0: the first). */
type Waiter = {
  page: Notification & { group: GroupRef };
  continuation: number;
  resolve(joined: number | null): void;
  reject(e: unknown): void;
};
type Queue = { itemKey: string; waiting: Waiter[]; busy: boolean };

/**
 * Hands pages over to their groups. Pages for one group item arriving while its write is in flight
 * are written together by the next one, so a fleet-wide incident costs a few writes, not one per
 * target. A firing page a full item refuses goes on to the group's next item (its continuation,
 * with the others refused in the same write), up to `maxItems`.
 */
class GroupInbox {
  /** Group item keys this run handed pages to: flushed at the end of the run. */
  readonly touched = new Set<string>();
  writes = 0;
  readonly #queues = new Map<string, Queue>();
  #registered: Promise<Set<string>> | null = null;
  /** Continuations read to find which holds a replayed alert: item key -> its alerts' fingerprints. */
  readonly #membersRead = new Map<string, Promise<Set<string>>>();

  readonly #table: StateTable;
  readonly #now: Date;
  readonly #maxMembers: number;
  readonly #maxItems: number;

  constructor(table: StateTable, now: Date, limits: { maxMembers?: number; maxItems?: number } = {}) {
    this.#table = table;
    this.#now = now;
    this.#maxMembers = limits.maxMembers ?? MAX_GROUP_MEMBERS;
    this.#maxItems = limits.maxItems ?? MAX_GROUP_ITEMS;
  }

  /**
   * Adds the page to its group: to the item its ref names (`continuation`, else the first), or,
   * for a firing page that item refuses because it is full, to the next one that holds it or has
   * room. Answers the continuation that holds it (0: the first item), or null when none does (the
   * caller pages it alone): every item is full, or it is a resolve the item does not hold.
   */
  add(page: Notification & { group: GroupRef }, options: DeliverOptions = {}): Promise<number | null> {
    const named = page.group.continuation ?? 0;
    // A replayed firing page may be held by a continuation already (its run died before its commit
    // recorded which): it goes back there, not to an item before it that has had room since.
    if (options.replay === true && page.status === 'firing' && named === 0)
      return this.#holderOf(page).then((continuation) => this.#addAt(page, continuation));
    return this.#addAt(page, named);
  }

  #addAt(page: Notification & { group: GroupRef }, continuation: number): Promise<number | null> {
    return new Promise<number | null>((resolve, reject) => {
      const queue = this.#enqueue({ page, continuation, resolve, reject });
      if (!queue.busy) void this.#drain(queue);
    });
  }

  /** The continuation holding the page's alert, else 0; reads only continuations listed open, each once a run. */
  async #holderOf(page: Notification & { group: GroupRef }): Promise<number> {
    const registered = await this.#registeredKeys();
    for (let n = 1; n < this.#maxItems; n++) {
      const itemKey = groupItemKey(page.group.key, n);
      if (!registered.has(itemKey)) continue;
      let members = this.#membersRead.get(itemKey);
      if (members === undefined) {
        members = this.#table
          .getMeta(itemKey)
          .then((item) => new Set(Object.keys((item?.value as StoredGroup | undefined)?.group.members ?? {})));
        this.#membersRead.set(itemKey, members);
      }
      if ((await members).has(page.fingerprint)) return n;
    }
    return 0;
  }

  /** The open groups' item keys as this run read them, with the items it listed since. */
  #registeredKeys(): Promise<Set<string>> {
    this.#registered ??= openGroups(this.#table).then((keys) => new Set(keys));
    return this.#registered;
  }

  #enqueue(waiter: Waiter): Queue {
    const itemKey = groupItemKey(waiter.page.group.key, waiter.continuation);
    let queue = this.#queues.get(itemKey);
    if (queue === undefined) {
      queue = { itemKey, waiting: [], busy: false };
      this.#queues.set(itemKey, queue);
    }
    queue.waiting.push(waiter);
    return queue;
  }

  async #drain(queue: Queue): Promise<void> {
    queue.busy = true;
    while (queue.waiting.length > 0) {
      const batch = queue.waiting.splice(0);
      let added: boolean[];
      try {
        added = await this.#write(queue.itemKey, batch);
      } catch (error) {
        for (const w of batch) w.reject(error);
        continue;
      }
      // Every page refused here is queued before any next write starts: they go on together.
      const onward = new Set<Queue>();
      for (const [i, w] of batch.entries()) {
        if (added[i] === true) w.resolve(w.continuation);
        else if (w.page.status === 'firing' && w.continuation + 1 < this.#maxItems)
          onward.add(this.#enqueue({ ...w, continuation: w.continuation + 1 }));
        else w.resolve(null);
      }
      for (const next of onward) if (!next.busy) void this.#drain(next);
    }
    queue.busy = false;
  }

  async #write(itemKey: string, batch: readonly Waiter[]): Promise<boolean[]> {
    let added: boolean[] = [];
    let created = false;
    const latest = batch.map(({ page }) => latestOf(page)); // once, not on every retry of the write
    const writes = await updateMeta<StoredGroup>(this.#table, itemKey, (current) => {
      added = [];
      created = current === null;
      let group = current?.group ?? null;
      for (const [i, { page, continuation }] of batch.entries()) {
        const ref = withContinuation(page.group, continuation);
        const next = addToGroup(group, ref, page, latest[i] as LatestPage, this.#now, this.#maxMembers);
        added.push(next !== null);
        if (next !== null) group = next;
      }
      return group === null ? undefined : { ...current, group, claim: current?.claim ?? null };
    });
    this.writes += writes;
    this.touched.add(itemKey);
    // Listed after it holds the page: a group nobody lists would only be flushed when touched again.
    const registered = await this.#registeredKeys();
    // A group this write created may have been closed (and unlisted) since the list was read.
    if ((created || !registered.has(itemKey)) && batch[0] !== undefined) {
      this.writes += await register(this.#table, itemKey, batch[0].page.group.key);
      registered.add(itemKey);
    }
    return added;
  }
}

/**
 * The notifier a run's targets and configuration step publish through: a grouped page goes to its
 * group (answering which item holds it), any other (and one no item of its group can hold)
 * straight to `notifier`. `published` counts what `notifier` accepted: pages handed to a group
 * count when their group pages.
 */
function groupingNotifier(
  notifier: Notifier,
  inbox: GroupInbox,
  logger: Logger,
): Notifier & { published: number; deliver(page: Notification, options?: DeliverOptions): Promise<Delivery | null> } {
  const routed = {
    published: 0,
    async publish(page: Notification): Promise<void> {
      await routed.deliver(page);
    },
    async deliver(page: Notification, options: DeliverOptions = {}): Promise<Delivery | null> {
      const group = page.group ?? null;
      if (group === null) {
        await notifier.publish(page);
        routed.published++;
        return null;
      }
      const joined = await inbox.add({ ...page, group }, options);
      if (joined !== null) return { group: withContinuation(group, joined) };
      // Visible: past the bound a fleet incident is no longer one page per group item.
      logger.warn('group full: paged alone', { group: group.key, target: page.target, rule: page.rule });
      await notifier.publish({ ...page, group: null });
      routed.published++;
      return { group: null };
    },
  };
  return routed;
}

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

export { flushGroups, GroupInbox, groupItemKey, groupingNotifier, openGroups };
