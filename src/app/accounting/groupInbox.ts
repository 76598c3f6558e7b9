/**
 * Hand-overs: a target's claimed page whose alert is grouped is "published" by adding it to its
 * group item (read, add, write conditional on the version read; retried on conflict). The
 * target's commit marks the page sent only once the group holds it, and records which item holds
 * it; a replay adds the same page again and changes nothing. Hand-overs to one group within a run
 * are written together. A group item holds MAX_GROUP_MEMBERS alerts: a firing alert a full item
 * refuses goes on to the group's continuation (`group#<id>-1`, -2, ..., MAX_GROUP_ITEMS in all).
 */
import {
  addToGroup,
  evaluatedAtOf,
  heldOtherwise,
  type LatestPage,
  withContinuation,
} from '../../core/alerts/group.ts';
import type { GroupRef, Notification } from '../../core/alerts/types.ts';
import { MAX_GROUP_ITEMS, MAX_GROUP_MEMBERS } from '../../core/constants.ts';
import type { DeliverOptions, Delivery, Logger, Notifier, PageRouter, StateTable } from '../ports.ts';
import { updateMeta } from './conditionalUpdate.ts';
import { groupItemKey, type StoredGroup } from './groupItems.ts';
import { openGroups, register } from './groupRegistry.ts';
import { storedPage } from './targetItems.ts';

/**
 * A hand-over older than the one its group holds for the alert, saying otherwise (a run on a late
 * tick): the group ignored it, so the page was not accepted and its sender still owes it.
 */
class OlderHandOverError extends Error {
  constructor(page: Notification, heldAt: string, now: Date, options?: ErrorOptions) {
    super(
      `expected a hand-over of ${page.target}/${page.rule} at least as new as the one group holds (${heldAt}), found one evaluated at ${evaluatedAtOf(page, now)}; the next run sends it again`,
      options,
    );
    this.name = 'OlderHandOverError';
  }
}

/** What one item's write came to for a page: held, refused (full, or a resolve it does not hold), or older than held. */
type Added = 'held' | 'refused' | { olderThan: string };

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
      let added: Added[];
      try {
        added = await this.#write(queue.itemKey, batch);
      } catch (error) {
        for (const w of batch) w.reject(error);
        continue;
      }
      // Every page refused here is queued before any next write starts: they go on together.
      const onward = new Set<Queue>();
      for (const [i, w] of batch.entries()) {
        const outcome = added[i] ?? 'refused';
        if (outcome === 'held') w.resolve(w.continuation);
        else if (outcome !== 'refused') w.reject(new OlderHandOverError(w.page, outcome.olderThan, this.#now));
        else if (w.page.status === 'firing' && w.continuation + 1 < this.#maxItems)
          onward.add(this.#enqueue({ ...w, continuation: w.continuation + 1 }));
        else w.resolve(null);
      }
      for (const next of onward) if (!next.busy) void this.#drain(next);
    }
    queue.busy = false;
  }

  async #write(itemKey: string, batch: readonly Waiter[]): Promise<Added[]> {
    let added: Added[] = [];
    let created = false;
    const latest = batch.map(({ page }) => latestOf(page)); // once, not on every retry of the write
    const writes = await updateMeta<StoredGroup>(this.#table, itemKey, (current) => {
      added = [];
      created = current === null;
      let group = current?.group ?? null;
      for (const [i, { page, continuation }] of batch.entries()) {
        const held = group?.members[page.fingerprint];
        if (held !== undefined && heldOtherwise(group, page, this.#now)) {
          added.push({ olderThan: held.at });
          continue;
        }
        const ref = withContinuation(page.group, continuation);
        const next = addToGroup(group, ref, page, latest[i] as LatestPage, this.#now, this.#maxMembers);
        added.push(next === null ? 'refused' : 'held');
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
 * The router a run's targets and configuration step publish their claimed pages through: a
 * grouped page goes to its group (answering which item holds it), any other (and one no item of
 * its group can hold) straight to `notifier`. `published` counts what `notifier` accepted: pages
 * handed to a group count when their group pages.
 */
function groupingRouter(notifier: Notifier, inbox: GroupInbox, logger: Logger): PageRouter & { published: number } {
  const routed = {
    published: 0,
    async publish(page: Notification, options: DeliverOptions = {}): Promise<Delivery | null> {
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

export { GroupInbox, groupingRouter, OlderHandOverError };
