/**
 * The target items' kind of claim (also the configuration alert's), driven by `claim.ts`: how one
 * state item moves from one evaluation to the next so that every page is accounted for, with one
 * conditional write per step and no transactions (docs/lambda.md, "Page accounting", states the
 * invariants):
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
import type { AlertRecord, Notification, OrderedNotification, TargetState } from '../../core/alerts/types.ts';
import type { PublishedMessage, ReducedMessage } from '../../core/message/alertMessage.ts';
import { withOrder } from '../../core/notify/build.ts';
import { STATE_KEYS } from '../../core/stateKeys.ts';
import { fitText, payloadBytes } from '../../core/text/limits.ts';
import type { Claim, ClaimedPage, Delivery, PageRouter, StateTable, StoredState } from '../ports.ts';
import {
  CLAIM_OUTCOMES,
  type ClaimKind,
  type ClaimOutcome,
  type ClaimRun,
  claimPublishCommit,
  leaseFor,
  nextOrder,
  settle,
} from './claim.ts';

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
  /** What the step came to: only after `committed` is the item as this run left it (`stored`). */
  status: ClaimOutcome;
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
  status: CLAIM_OUTCOMES.committed,
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
    const { lastSentVariant: _, ...rest } = now;
    out.alerts[fingerprint] = {
      ...rest,
      lastSentAt: was?.lastSentAt ?? null,
      lastSentStatus: was?.lastSentStatus ?? null,
      ...(was?.lastSentVariant === undefined ? {} : { lastSentVariant: was.lastSentVariant }),
    };
  }
  return out;
}

/**
 * The page's record once accepted. A grouped page's record names where it was accepted:
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
  const payload: PublishedMessage =
    payloadBytes(notification.payload) <= MAX_STORED_PAYLOAD_BYTES
      ? notification.payload
      : ({
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
        } satisfies ReducedMessage);
  return { ...notification, message, payload };
}

/** A target item as this run writes its claim: the state to claim, at the version read (null: absent). */
interface ClaimedItem {
  table: StateTable;
  router: PageRouter;
  key: string;
  state: TargetState;
  generation: string;
  expected: number | null;
  /** Called once a claim created the item, before its first page (`TargetCommit.onCreated`). */
  onCreated?: () => Promise<number>;
}

/**
 * The target items' `ClaimKind` (also the configuration alert's): the claim holds the pages
 * themselves (their text bounded: `storedPage`); an accepted page's record enters the state;
 * the commit writes the state at the claimed version, or deletes the item once every page of a
 * `deleteAfter` claim was accepted. Counts its writes and leaves the item it wrote in `outcome`.
 */
function targetKind(
  item: ClaimedItem,
  now: Date,
  outcome: CommitOutcome,
): ClaimKind<Claim, ClaimedPage, Delivery | null> {
  const { table, key, state, generation, expected } = item;
  const version = (expected ?? 0) + 1;
  const final: TargetState = { ...state, alerts: { ...state.alerts } };
  return {
    pagesOf: (claim) => claim.pages,
    async writeClaim(claim) {
      outcome.writes++;
      if (!(await table.put(key, { state, claim, generation }, expected, now))) return false;
      // If it throws, no page went out: the claim stays for a run to replay once its lease ends.
      if (expected === null && item.onCreated !== undefined) outcome.writes += await item.onCreated();
      return true;
    },
    publish: (page, attempt) => item.router.publish(page.notification, { replay: attempt === 'replay' }),
    accepted: (page, delivery) => accept(final, page, delivery),
    // The claim's own copy of each page (its text bounded), not the page as published.
    release: (claim, refused) => ({ pages: refused.map(({ index }) => claim.pages[index] as ClaimedPage) }),
    async write({ claim, kept, refused }) {
      outcome.writes++;
      if (claim.deleteAfter && refused.length === 0) {
        outcome.stored = null;
        return table.remove(key, version);
      }
      const ok = await table.put(key, { state: final, claim: kept, generation }, version, now);
      outcome.stored = ok ? { version: version + 1, state: final, claim: kept, generation } : null;
      return ok;
    },
  };
}

/** `outcome` with what a claim's pages came to. */
function withRun(outcome: CommitOutcome, run: ClaimRun<ClaimedPage>): CommitOutcome {
  return {
    ...outcome,
    status: run.outcome,
    sent: run.sent.map((p) => p.notification),
    failed: run.failed.map(({ page, error }) => ({ notification: page.notification, error })),
    // Only an item this run committed is known; any other is another run's (or in doubt).
    stored: run.outcome === CLAIM_OUTCOMES.committed || run.outcome === CLAIM_OUTCOMES.inDoubt ? outcome.stored : null,
  };
}

/**
 * Settle what a run left on `loaded` (`settle`): nothing (`committed`, the item as read); a
 * claim in force (`held`); or an expired one taken over, its pages published again, committed.
 * Only after `committed` is the item evaluated.
 */
async function settleTarget(
  table: StateTable,
  router: PageRouter,
  key: string,
  loaded: StoredState | null,
  now: Date,
  options: CommitOptions,
): Promise<CommitOutcome> {
  const outcome = emptyOutcome(loaded);
  if (loaded?.claim == null) return outcome;
  const item = {
    table,
    router,
    key,
    state: loaded.state,
    generation: generationOf(loaded),
    expected: loaded.version,
  };
  const run = await settle(targetKind(item, now, outcome), loaded.claim, now, options);
  return withRun(outcome, run);
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
 * await commitTarget(table, router, { key: 'target#web-1', loaded, next: result.state,
 *   notifications: result.notifications, deleteAfter: false, write: true }, now, { token, leaseMs: 300_000 });
 */
async function commitTarget(
  table: StateTable,
  router: PageRouter,
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
      return { ...emptyOutcome(null), status: ok ? CLAIM_OUTCOMES.committed : CLAIM_OUTCOMES.raced, writes: 1 };
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
      status: ok ? CLAIM_OUTCOMES.committed : CLAIM_OUTCOMES.raced,
      writes: 1,
    };
  }
  // Each page's order, from its alert's record as the table holds it (the page order, a hybrid logical clock).
  const ordered = notifications.map((notification) => {
    const record = loaded?.state.alerts[notification.fingerprint];
    const order = nextOrder(Math.max(record?.order ?? 0, loaded?.state.lastOrder ?? 0), now);
    return withOrder(notification, order);
  });
  const orderOf = (page: OrderedNotification) => page.payload.order;
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
  const item = {
    table,
    router,
    key,
    state: withLastOrder(unsent, Math.max(loaded?.state.lastOrder ?? 0, ...ordered.map(orderOf))),
    generation: generationOf(loaded),
    expected,
    ...(commit.onCreated === undefined ? {} : { onCreated: commit.onCreated }),
  };
  const outcome = emptyOutcome(null);
  const run = await claimPublishCommit(targetKind(item, now, outcome), { claim, attempt: 'first', pages });
  return withRun(outcome, run);
}

export type { CommitOptions, CommitOutcome, TargetCommit };
export {
  commitTarget,
  MAX_STORED_MESSAGE_BYTES,
  MAX_STORED_PAYLOAD_BYTES,
  settleTarget,
  storedPage,
  targetKey,
  withPagesUnsent,
};
