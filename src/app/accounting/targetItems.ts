/**
 * Claim, publish, commit: how one state item (a target, or the configuration alert) moves from
 * one evaluation to the next so that every page is accounted for, with one conditional write per
 * step and no transactions (docs/lambda.md, "Page accounting", states the invariants):
 *
 * 1. Claim: one write, conditional on the version read, storing the new state with the pages NOT
 *    yet marked sent, plus the claim: the pages (whole), a token and an expiry. A run that read an
 *    older version, or finds an unexpired claim of another run, does nothing with the item.
 * 2. Publish each page.
 * 3. Commit: one write, conditional on the claimed version, marking the accepted pages sent and
 *    clearing the claim (or deleting the item when its target left the configuration). A page SNS
 *    refused stays unsent: the next evaluation decides again. Nothing is undone.
 *
 * A run that finds an expired claim (its run died, or overran its lease) takes it over and
 * publishes its pages again before evaluating: a page in flight is sent at least once, at most
 * twice. A replayed page SNS refuses stays claimed (in doubt) and is retried by the next run
 * before the item is evaluated again. Without pages, an item is written only when it changed.
 */
import { randomUUID } from 'node:crypto';
import type { AlertRecord, Notification, TargetState } from '../../core/alerts/types.ts';
import { withOrder } from '../../core/notify/build.ts';
import { fitText, payloadBytes } from '../../core/notify/limits.ts';
import type { Claim, ClaimedPage, Delivery, Notifier, StateTable, StoredState } from '../ports.ts';
import { type Attempt, CLAIM_STATES, claimAfterPublish, claimState, leaseFor, nextOrder, takenOver } from './claim.ts';
import { STATE_KEYS } from './stateKeys.ts';

/**
 * A claimed page's text kept for a replay (and as a group's newest page): enough for a person,
 * bounded in UTF-8 bytes (as JSON escapes them, never less than DynamoDB counts) for a 400 KB item.
 * Characters would not do: 8,000 non-ASCII characters take up to 24,000 bytes.
 */
const MAX_STORED_MESSAGE_BYTES = 8000;
const MAX_STORED_PAYLOAD_BYTES = 16_000;

interface CommitOptions {
  token: string;
  leaseMs: number;
}

interface CommitOutcome {
  sent: Notification[];
  failed: Array<{ notification: Notification; error: unknown }>;
  /** Another run holds the item's claim or wrote it since it was read: this run did nothing more with it. */
  conflict: boolean;
  /** The item after this step (null when absent or deleted); unchanged when nothing was written. */
  stored: StoredState | null;
  writes: number;
}

interface TargetCommit {
  key: string;
  loaded: StoredState | null;
  /** The next state, counting `notifications` as sent; alerts a page drops are absent from it. */
  next: TargetState;
  notifications: Notification[];
  /** Delete the item once every page was accepted (the target left the configuration). */
  deleteAfter: boolean;
  /** Write even without pages: the state changed, or a checkpoint is due. */
  write: boolean;
  /**
   * Called when the claim created the item, before any of its pages goes out; answers its writes.
   * Why: a run on a configuration that may have moved on records the removal owed here
   * (`oweRemovals`), not at its end, so a run that dies after a page never strands it unresolved.
   */
  onCreated?: () => Promise<number>;
}

/** The state item of a target. */
const targetKey = STATE_KEYS.target;

/** The item's generation, kept by every write; a new one when the item is created (or predates generations). */
const generationOf = (loaded: StoredState | null): string => loaded?.generation ?? randomUUID();

const emptyOutcome = (stored: StoredState | null): CommitOutcome => ({
  sent: [],
  failed: [],
  conflict: false,
  stored,
  writes: 0,
});

/** The state as it stands before SNS accepted `pages`: each page's alert as it was before, still owed. */
function withPagesUnsent(next: TargetState, before: TargetState | null, pages: readonly Notification[]): TargetState {
  const out: TargetState = { ...next, alerts: { ...next.alerts } };
  for (const { fingerprint } of pages) {
    const was = before?.alerts[fingerprint];
    const now = next.alerts[fingerprint];
    if (now === undefined) {
      if (was !== undefined) out.alerts[fingerprint] = was; // dropped only once its page went out
      continue;
    }
    out.alerts[fingerprint] = {
      ...now,
      lastSentAt: was?.lastSentAt ?? null,
      lastSentStatus: was?.lastSentStatus ?? null,
    };
  }
  return out;
}

/** Publish through `notifier`; answers where a grouped page went when the notifier tells (`deliver`). */
async function publishPage(notifier: Notifier, page: Notification, attempt: Attempt): Promise<Delivery | null> {
  if (notifier.deliver !== undefined) return notifier.deliver(page, { replay: attempt === 'replay' });
  await notifier.publish(page);
  return null;
}

/**
 * The page's record once accepted. A grouped page's record names where it was accepted (issue 21):
 * the continuation of its group that holds it, or no group when it went out alone (every item was
 * full), so the alert's resolve goes to the page that opened its incident.
 */
function accept(state: TargetState, page: ClaimedPage, delivery: Delivery | null): void {
  const { record } = page;
  if (record === null) {
    delete state.alerts[page.notification.fingerprint];
    return;
  }
  if (delivery === null) {
    state.alerts[page.notification.fingerprint] = record;
    return;
  }
  const { groupContinuation: _, ...rest } = record;
  const continuation = delivery.group?.continuation ?? 0;
  state.alerts[page.notification.fingerprint] = {
    ...rest,
    group: delivery.group?.key ?? null,
    ...(continuation > 0 ? { groupContinuation: continuation } : {}),
  };
}

/** A page as kept in a claim: the text capped, an oversized payload reduced to its facts. */
function storedPage(notification: Notification): Notification {
  const message = fitText(notification.message, MAX_STORED_MESSAGE_BYTES, '\n...');
  const payload =
    payloadBytes(notification.payload) <= MAX_STORED_PAYLOAD_BYTES
      ? notification.payload
      : {
          version: 1,
          status: notification.status,
          reason: notification.reason,
          fingerprint: notification.fingerprint,
          target: notification.target,
          rule: notification.rule,
          severity: notification.severity,
          value: notification.value,
          threshold: notification.threshold,
          ...(notification.payload.order === undefined ? {} : { order: notification.payload.order }),
        };
  return { ...notification, message, payload };
}

/** An item whose claim this run holds at `version`, with the pages the claim is about. */
interface ClaimedItem {
  table: StateTable;
  notifier: Notifier;
  key: string;
  claimed: { state: TargetState; claim: Claim; generation: string };
  pages: readonly ClaimedPage[];
  version: number;
  attempt: Attempt;
}

/**
 * Steps 2 and 3 for an item whose claim this run holds: publish every page, then commit what was
 * accepted. Never throws for SNS failures (they are returned). A replayed page that fails stays in
 * doubt (the dead run may have sent it): it stays in the claim, released for the next run to try
 * again, so a resolve it may owe is never forgotten.
 */
async function publishClaimed(item: ClaimedItem, now: Date): Promise<CommitOutcome> {
  const { table, key, claimed, version } = item;
  const outcome = emptyOutcome(null);
  const final: TargetState = { ...claimed.state, alerts: { ...claimed.state.alerts } };
  const leftover: ClaimedPage[] = [];
  for (const [index, page] of item.pages.entries()) {
    try {
      const delivery = await publishPage(item.notifier, page.notification, item.attempt);
      outcome.sent.push(page.notification);
      accept(final, page, delivery);
    } catch (error) {
      outcome.failed.push({ notification: page.notification, error });
      leftover.push(claimed.claim.pages[index] as ClaimedPage);
    }
  }
  outcome.writes++;
  if (claimed.claim.deleteAfter && outcome.failed.length === 0) {
    outcome.conflict = !(await table.remove(key, version));
    return outcome;
  }
  const claim = claimAfterPublish(claimed.claim, item.attempt, leftover.length > 0 ? { pages: leftover } : null);
  const { generation } = claimed;
  const ok = await table.put(key, { state: final, claim, generation }, version, now);
  // Pages still in doubt: the item is not evaluated this run (the claim comes first).
  outcome.conflict = !ok || claim !== null;
  outcome.stored = ok ? { version: version + 1, state: final, claim, generation } : null;
  return outcome;
}

/** Whether a run left a claim on the item (its pages may have gone out): `recoverClaim` settles it first. */
function isClaimed(item: StoredState | null): item is StoredState & { claim: Claim } {
  return item?.claim != null;
}

/**
 * Finish what a run left in `loaded.claim` (expired: that run died or overran its lease): take
 * the claim over, publish its pages again, commit. A claim of another run still in force is left
 * alone (`conflict`), as is an item whose replayed pages SNS refused (they are retried first).
 */
async function recoverClaim(
  table: StateTable,
  notifier: Notifier,
  key: string,
  loaded: StoredState & { claim: Claim },
  now: Date,
  options: CommitOptions,
): Promise<CommitOutcome> {
  if (claimState(loaded.claim, now, options.token) === CLAIM_STATES.held)
    return { ...emptyOutcome(null), conflict: true };
  const claim = takenOver(loaded.claim, options.token, now, options.leaseMs);
  const takeover = { state: loaded.state, claim, generation: generationOf(loaded) };
  if (!(await table.put(key, takeover, loaded.version, now)))
    return { ...emptyOutcome(null), conflict: true, writes: 1 };
  const outcome = await publishClaimed(
    { table, notifier, key, claimed: takeover, pages: claim.pages, version: loaded.version + 1, attempt: 'replay' },
    now,
  );
  return { ...outcome, writes: outcome.writes + 1 };
}

/** `state` keeping the item's `lastOrder` (the evaluation does not carry it). */
function withLastOrder(state: TargetState, lastOrder: number | undefined): TargetState {
  const newest = Math.max(state.lastOrder ?? 0, lastOrder ?? 0);
  return newest === 0 ? state : { ...state, lastOrder: newest };
}

/**
 * Claim, publish and commit one item's evaluation (or write it plainly when there is nothing to
 * publish and `write` says so).
 *
 * @example
 * await commitTarget(table, notifier, { key: 'target#web-1', loaded, next: result.state,
 *   notifications: result.notifications, deleteAfter: false, write: true }, now, { token, leaseMs: 300_000 });
 */
async function commitTarget(
  table: StateTable,
  notifier: Notifier,
  commit: TargetCommit,
  now: Date,
  options: CommitOptions,
): Promise<CommitOutcome> {
  const { key, loaded, next, notifications } = commit;
  const expected = loaded?.version ?? null;
  if (notifications.length === 0) {
    if (commit.deleteAfter) {
      if (loaded === null) return emptyOutcome(null);
      const ok = await table.remove(key, loaded.version);
      return { ...emptyOutcome(null), conflict: !ok, writes: 1 };
    }
    if (!commit.write) return emptyOutcome(loaded);
    const written = {
      state: withLastOrder(next, loaded?.state.lastOrder),
      claim: null,
      generation: generationOf(loaded),
    };
    const ok = await table.put(key, written, expected, now);
    return {
      ...emptyOutcome(ok ? { version: (expected ?? 0) + 1, ...written } : null),
      conflict: !ok,
      writes: 1,
    };
  }
  // Each page's order, from its alert's record as the table holds it (issue 21's page order).
  const ordered = notifications.map((notification) => {
    const record = loaded?.state.alerts[notification.fingerprint];
    const order = nextOrder(Math.max(record?.order ?? 0, loaded?.state.lastOrder ?? 0), now);
    return withOrder(notification, order);
  });
  const orderOf = (page: Notification) => page.payload.order as number;
  const pages: ClaimedPage[] = ordered.map((notification) => {
    const record = (next.alerts[notification.fingerprint] as AlertRecord | undefined) ?? null;
    return { notification, record: record && { ...record, order: orderOf(notification) } };
  });
  const claim: Claim = {
    ...leaseFor(options.token, now, options.leaseMs),
    pages: pages.map((p) => ({ ...p, notification: storedPage(p.notification) })),
    deleteAfter: commit.deleteAfter,
  };
  const unsent = withPagesUnsent(next, loaded?.state ?? null, notifications);
  // The claim stores each alert's new order with it, so a later claim orders after this one.
  for (const page of ordered) {
    const record = unsent.alerts[page.fingerprint];
    if (record !== undefined) unsent.alerts[page.fingerprint] = { ...record, order: orderOf(page) };
  }
  const claimed = {
    state: withLastOrder(unsent, Math.max(loaded?.state.lastOrder ?? 0, ...ordered.map(orderOf))),
    claim,
    generation: generationOf(loaded),
  };
  if (!(await table.put(key, claimed, expected, now))) return { ...emptyOutcome(null), conflict: true, writes: 1 };
  // If it throws, no page went out: the claim stays for a run to replay once its lease ends.
  const created = expected === null && commit.onCreated !== undefined ? await commit.onCreated() : 0;
  const outcome = await publishClaimed(
    { table, notifier, key, claimed, pages, version: (expected ?? 0) + 1, attempt: 'first' },
    now,
  );
  return { ...outcome, writes: outcome.writes + 1 + created };
}

export type { CommitOptions, CommitOutcome, TargetCommit };
export {
  commitTarget,
  isClaimed,
  MAX_STORED_MESSAGE_BYTES,
  MAX_STORED_PAYLOAD_BYTES,
  recoverClaim,
  storedPage,
  targetKey,
  withPagesUnsent,
};
