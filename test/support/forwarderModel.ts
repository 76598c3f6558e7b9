/**
 * The PagerDuty side of the page-accounting model (test/support/pageModel.ts): every page SNS
 * accepted is delivered, as its Lambda variant, to the real `forwardToPagerDuty` with a ledger on
 * the model's state table (the real DynamoDB ledger on dynalite; on the memory table a ledger with
 * the same conditional semantics), an injected clock, and a PagerDuty model that enforces the
 * Events API's rate limit (120 events per routing key in any 60 s, 429 beyond) and keeps each
 * incident's state per `dedup_key`. Faults: an invocation's send fails, PagerDuty accepts an event
 * whose answer is lost, the function dies after a send before its ledger write; a failed
 * invocation is retried (Lambda's asynchronous invocation: twice, in any order with the other
 * deliveries); SNS deliveries are duplicated and reordered. `check` states the invariants: each
 * incident as the monitor's newest page for its key says, and for a group past its seats (per
 * alert) the promise: every open incident stands for an alert still firing, every firing alert has one.
 */

import { buildPublishInput } from '../../src/adapters/snsMessage.ts';
import type { Notification } from '../../src/core/alerts/types.ts';
import { PAGERDUTY_ORDER_TTL_SECONDS, PAGERDUTY_OWN_INCIDENTS_PER_GROUP } from '../../src/core/constants.ts';
import { type AlertPage, readAlertPage } from '../../src/core/message/readMessage.ts';
import {
  type EventsPer,
  eventsOfPage,
  type OrderedEvent,
  type PagerDutyEvent,
} from '../../src/core/pagerduty/events.ts';
import type { KnownOrder } from '../../src/core/pagerduty/forwardDecision.ts';
import { overflowKeyOf, perAlertEvents } from '../../src/core/pagerduty/perAlert.ts';
import { forwardToPagerDuty } from '../../src/forwarder/forward.ts';
import { PagerDutyDeliveryError, type PagerDutyLedger, type PagerDutySender } from '../../src/forwarder/ports.ts';

const ROUTING_KEY = 'R0UT1NGKEY0000000000000000000000';
/** The Events API's limit per routing key in any 60 s. */
const EVENTS_PER_MINUTE = 120;
/** Lambda's asynchronous invocation: the first attempt and two retries, then the dead-letter queue. */
const MAX_ATTEMPTS = 3;
/** The forwarder's timeout (the stack's). */
const INVOCATION_MS = 900_000;

/** A fault of one forwarder invocation, at its `at`-th send. */
type ForwardFault =
  | { kind: 'none' }
  /** PagerDuty never got the event (5xx after the sender's own retries). */
  | { kind: 'sendFails'; at: number }
  /** PagerDuty accepted the event, its answer was lost: the sender throws. */
  | { kind: 'answerLost'; at: number }
  /** The function died just after PagerDuty accepted the event, before its ledger write. */
  | { kind: 'crashAfterSend'; at: number }
  /** SNS delivers the message twice (the copy later, in the queue). */
  | { kind: 'duplicate' };

interface Delivery {
  message: string;
  /** 1 for SNS's delivery, then Lambda's retries. */
  attempt: number;
}

interface AcceptedEvent {
  action: 'trigger' | 'resolve';
  /** The order of the page the event came from (the highest when several pages made the same event). */
  order: number | undefined;
  atMs: number;
}

class ForwarderCrashError extends Error {
  constructor() {
    super('the forwarder died here');
    this.name = 'ForwarderCrashError';
  }
}

/** How long an order record outlives its last write (the table's TTL), as the DynamoDB ledger keeps it. */
const ORDER_TTL_MS = PAGERDUTY_ORDER_TTL_SECONDS * 1000;

/**
 * A PagerDutyLedger over maps, with the DynamoDB ledger's conditions. Given a clock, an order
 * record expires as the DynamoDB ledger's TTL makes it (an expired record reads as none).
 */
function createMemoryLedger(clock?: () => number): PagerDutyLedger {
  const records = new Map<string, KnownOrder & { expiresAtMs: number }>();
  const seats = new Map<string, Set<string>>();
  const pages = new Map<string, { order: number; entries: Set<string> }>();
  const slots = new Map<string, number>();
  const problems = new Set<string>();
  const live = (dedupKey: string) => {
    const a = records.get(dedupKey);
    if (a !== undefined && clock !== undefined && a.expiresAtMs <= clock()) {
      records.delete(dedupKey);
      return undefined;
    }
    return a;
  };
  // An open record does not expire (the incident may last); a closed one 14 days after its last write.
  const set = (dedupKey: string, known: KnownOrder, nowMs: number) =>
    records.set(dedupKey, { ...known, expiresAtMs: known.open ? Number.POSITIVE_INFINITY : nowMs + ORDER_TTL_MS });
  return {
    async known(dedupKey) {
      const a = live(dedupKey);
      if (a === undefined) return null;
      const known: KnownOrder = {
        order: a.order,
        parts: [...a.parts].sort((x, y) => x - y),
        action: a.action,
        open: a.open,
      };
      if (a.opener !== undefined) known.opener = { ...a.opener };
      return known;
    },
    async recordAttempt(dedupKey, order, nowMs, action, opener) {
      const a = live(dedupKey);
      if (a !== undefined && a.order > order) return false;
      const open = action === 'trigger' || (a?.open ?? true);
      const keyOf = action === 'trigger' && opener !== undefined ? opener : a?.opener;
      const parts = a?.order === order ? a.parts : [];
      set(dedupKey, { order, parts, action, open, ...(keyOf === undefined ? {} : { opener: keyOf }) }, nowMs);
      return true;
    },
    async recordAccepted(dedupKey, order, part, nowMs, action) {
      const a = live(dedupKey);
      if (a === undefined || a.order !== order) return false;
      const open = action === 'resolve' ? false : a.open;
      set(dedupKey, { ...a, parts: [...new Set([...a.parts, part])], open }, nowMs);
      return true;
    },
    async recordClosed(dedupKey, order, part, nowMs) {
      const a = live(dedupKey);
      if (a !== undefined && (a.open || a.order > order)) return false;
      const parts = a?.order === order ? [...new Set([...a.parts, part])] : [part];
      const opener = a?.opener === undefined ? {} : { opener: a.opener };
      set(dedupKey, { order, parts, action: a?.order === order ? a.action : 'resolve', open: false, ...opener }, nowMs);
      return true;
    },
    async ownIncidents(groupKey) {
      return new Set(seats.get(groupKey) ?? []);
    },
    async claimOwnIncident(groupKey, fingerprint, bound) {
      const held = seats.get(groupKey) ?? new Set<string>();
      if (!held.has(fingerprint) && held.size >= bound) return false;
      seats.set(groupKey, held.add(fingerprint));
      return true;
    },
    async notePageFiring(groupKey, pageOrder, entries) {
      const page = pages.get(groupKey);
      if (page !== undefined && page.order > pageOrder) return null;
      const listed = page?.order === pageOrder ? page.entries : new Set<string>();
      for (const e of entries) listed.add(e);
      pages.set(groupKey, { order: pageOrder, entries: listed });
      return [...listed].sort();
    },
    async freeOwnIncident(groupKey, fingerprint) {
      seats.get(groupKey)?.delete(fingerprint);
    },
    async takeSlot(keyId, windowStartMs, limit) {
      const key = `${keyId}#${windowStartMs}`;
      const taken = slots.get(key) ?? 0;
      if (taken >= limit) return false;
      slots.set(key, taken + 1);
      return true;
    },
    async noteKeyProblem(keyId) {
      if (problems.has(keyId)) return false;
      problems.add(keyId);
      return true;
    },
  };
}

class ForwarderModel {
  /** The forwarder's clock: never behind the monitor's, moved on by the forwarder's waits. */
  nowMs = 0;
  /** SNS deliveries and Lambda retries not yet invoked, in the order they arrived. */
  queue: Delivery[] = [];
  /** Invocations that failed their last attempt (Lambda's dead-letter queue). */
  deadLetters: Delivery[] = [];
  /** PagerDuty's incidents by `dedup_key`. */
  incidents = new Map<string, { status: 'triggered' | 'resolved'; events: AcceptedEvent[] }>();
  /** When PagerDuty accepted each event (one routing key). */
  acceptedAt: number[] = [];
  /** Per `dedup_key`, the monitor's last word: the action of the page with the highest order. */
  lastWord = new Map<string, { order: number; action: 'trigger' | 'resolve' }>();
  /** Per alert of a group (per-alert mode): its group and the status of the newest page naming it. */
  alertWord = new Map<string, { groupKey: string; order: number; status: 'firing' | 'resolved' }>();
  /**
   * Groups (per-alert mode) a page of which had more firing alerts than the seats: which of their
   * alerts have an incident of their own depends on the seats' history, so their keys are checked
   * against the promise (`promiseBroken`), not against one page's events.
   */
  pastSeats = new Set<string>();
  /** Orders of the pages an event (as sent) came from. */
  ordersOfEvent = new Map<string, number[]>();
  violations: string[] = [];
  invocations = 0;
  /** How long after the previous invocation (or the monitor's run) each starts. */
  invocationGapMs = 1_000;
  readonly ledger: PagerDutyLedger;
  readonly eventsPer: EventsPer;

  constructor(eventsPer: EventsPer, ledger: PagerDutyLedger = createMemoryLedger()) {
    this.eventsPer = eventsPer;
    this.ledger = ledger;
  }

  /** A page SNS accepted: what its Lambda subscriber receives, and what it tells PagerDuty. */
  published(n: Notification): void {
    this.publishedMessage(
      JSON.parse(String(buildPublishInput(n, 'arn:aws:sns:eu-west-1:1:alerts').Message)).lambda as string,
    );
  }

  /** A published message as its Lambda subscriber receives it (the JSON variant). */
  publishedMessage(message: string): void {
    this.queue.push({ message, attempt: 1 });
    const page = readAlertPage(message);
    const groupKey = page.groupKey;
    if (this.eventsPer === 'alert' && groupKey !== null && page.order !== null) {
      const firing = page.group?.counts.firing ?? page.alerts.filter((a) => a.status === 'firing').length;
      if (firing > PAGERDUTY_OWN_INCIDENTS_PER_GROUP) this.pastSeats.add(groupKey);
      for (const a of page.alerts) {
        const before = this.alertWord.get(a.fingerprint);
        if (before === undefined || before.order <= page.order)
          this.alertWord.set(a.fingerprint, { groupKey, order: page.order, status: a.status });
      }
    }
    for (const { event, order } of this.eventsOf(page)) {
      if (order === null) continue;
      const id = JSON.stringify(event);
      this.ordersOfEvent.set(id, [...(this.ordersOfEvent.get(id) ?? []), order]);
      const before = this.lastWord.get(event.dedup_key);
      if (before === undefined || before.order <= order)
        this.lastWord.set(event.dedup_key, { order, action: event.event_action });
    }
  }

  /**
   * What the monitor says to PagerDuty with a page: the mapping, and per alert every firing alert
   * of a group with an incident of its own; right while a group stays within its seats, and the
   * keys of a group past them are judged by the promise instead (`pastSeats`).
   */
  private eventsOf(page: AlertPage): OrderedEvent[] {
    if (this.eventsPer !== 'alert' || page.groupKey === null) return eventsOfPage(page, ROUTING_KEY, this.eventsPer);
    const firing = page.alerts.filter((a) => a.status === 'firing').map((a) => a.fingerprint);
    return perAlertEvents(page, page.groupKey, new Set(firing), ROUTING_KEY);
  }

  /** PagerDuty's Events API: the rate limit, then the incident's state. */
  private async receive(event: PagerDutyEvent): Promise<void> {
    const recent = this.acceptedAt.filter((t) => t > this.nowMs - 60_000).length;
    if (recent >= EVENTS_PER_MINUTE) {
      this.violations.push(`PagerDuty: event ${recent + 1} within 60 s at ${iso(this.nowMs)}: 429`);
      throw new PagerDutyDeliveryError(event, 1, 'HTTP 429', 429);
    }
    this.acceptedAt.push(this.nowMs);
    const orders = this.ordersOfEvent.get(JSON.stringify(event)) ?? [];
    const accepted: AcceptedEvent = {
      action: event.event_action,
      order: orders.length > 0 ? Math.max(...orders) : undefined,
      atMs: this.nowMs,
    };
    const incident = this.incidents.get(event.dedup_key);
    if (event.event_action === 'resolve') {
      if (incident !== undefined) {
        incident.status = 'resolved';
        incident.events.push(accepted);
      }
      return;
    }
    if (incident?.status === 'resolved') {
      // Re-opened: only a page newer than the resolve PagerDuty accepted may do that.
      const resolve = incident.events.findLast((e) => e.action === 'resolve');
      if (accepted.order === undefined || resolve?.order === undefined || accepted.order <= resolve.order)
        this.violations.push(
          `PagerDuty: ${event.dedup_key} re-opened at ${iso(this.nowMs)} by order ${accepted.order} after its resolve of order ${resolve?.order}`,
        );
    }
    this.incidents.set(event.dedup_key, {
      status: 'triggered',
      events: [...(incident?.events ?? []), accepted],
    });
  }

  /**
   * Invoke the forwarder on the delivery at `pick` (any order), with `fault`, at the monitor's
   * time `nowMs` or later. A failed invocation is queued again until its last attempt.
   */
  async invoke(pick: number, fault: ForwardFault, monitorNowMs: number): Promise<void> {
    if (this.queue.length === 0) return;
    const [delivery] = this.queue.splice(pick % this.queue.length, 1) as [Delivery];
    // Lambda's retries and the dead-letter queue only catch what failed: the last attempt is clean.
    const f: ForwardFault = delivery.attempt >= MAX_ATTEMPTS ? { kind: 'none' } : fault;
    if (f.kind === 'duplicate') this.queue.push({ ...delivery });
    this.nowMs = Math.max(this.nowMs, monitorNowMs) + this.invocationGapMs;
    const startMs = this.nowMs;
    this.invocations++;
    let sends = 0;
    let crashed = false;
    const alive = () => {
      if (crashed) throw new ForwarderCrashError();
    };
    const ledger = this.ledger;
    /** A ledger call of a dead function never happens. */
    const living =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        alive();
        return call(...args);
      };
    const sender: PagerDutySender = {
      send: async (event) => {
        alive();
        const at = sends++;
        if (f.kind === 'sendFails' && f.at === at) throw new PagerDutyDeliveryError(event, 4, 'HTTP 503', 503);
        await this.receive(event);
        if ((f.kind === 'answerLost' || f.kind === 'crashAfterSend') && f.at === at) {
          if (f.kind === 'answerLost') throw new PagerDutyDeliveryError(event, 4, 'no answer', null);
          crashed = true;
          throw new ForwarderCrashError();
        }
      },
    };
    try {
      await forwardToPagerDuty(
        { Records: [{ Sns: { MessageId: `d${this.invocations}`, Message: delivery.message } }] } as never,
        {
          routingKey: async () => ROUTING_KEY,
          sender,
          ledger: {
            known: living((k) => ledger.known(k)),
            recordAttempt: living((k, o, now, action) => ledger.recordAttempt(k, o, now, action)),
            recordAccepted: living((k, o, p, now, action) => ledger.recordAccepted(k, o, p, now, action)),
            recordClosed: living((k, o, p, now) => ledger.recordClosed(k, o, p, now)),
            ownIncidents: living((g) => ledger.ownIncidents(g)),
            claimOwnIncident: living((g, fp, bound, now) => ledger.claimOwnIncident(g, fp, bound, now)),
            freeOwnIncident: living((g, fp) => ledger.freeOwnIncident(g, fp)),
            notePageFiring: living((g, o, e, now) => ledger.notePageFiring(g, o, e, now)),
            takeSlot: living((k, w, l, ms) => ledger.takeSlot(k, w, l, ms)),
            noteKeyProblem: living((k, now) => ledger.noteKeyProblem(k, now)),
          },
          eventsPer: this.eventsPer,
          now: () => this.nowMs,
          sleep: async (ms) => {
            this.nowMs += ms;
          },
          remainingMs: () => startMs + INVOCATION_MS - this.nowMs,
          log: () => {},
        },
      );
    } catch (error) {
      const known = ['ForwardError', 'ForwarderCrashError'];
      if (!known.includes((error as Error).name))
        this.violations.push(`forwarder: ${(error as Error).name}: ${(error as Error).message}`);
      if (delivery.attempt < MAX_ATTEMPTS) this.queue.push({ ...delivery, attempt: delivery.attempt + 1 });
      else this.deadLetters.push(delivery);
    }
  }

  /** Every delivery and retry invoked, in the order they arrived, with no fault. */
  async settle(monitorNowMs: number): Promise<void> {
    while (this.queue.length > 0) await this.invoke(0, { kind: 'none' }, monitorNowMs);
  }

  /**
   * After settling: nothing in the dead-letter queue; PagerDuty's state per incident is the
   * monitor's last word (the action of the page with the highest order for its `dedup_key`);
   * re-opening and the rate limit were checked as events arrived.
   */
  check(): string[] {
    const out = [...this.violations];
    for (const d of this.deadLetters)
      out.push(`forwarder: dead-lettered after ${d.attempt} attempts: ${d.message.slice(0, 120)}`);
    const judgedByPromise = new Set([...this.pastSeats].map(overflowKeyOf));
    for (const [fingerprint, word] of this.alertWord)
      if (this.pastSeats.has(word.groupKey)) judgedByPromise.add(fingerprint);
    for (const groupKey of this.pastSeats) out.push(...this.promiseBroken(groupKey));
    for (const [dedupKey, word] of this.lastWord) {
      if (judgedByPromise.has(dedupKey)) continue;
      const status = this.incidents.get(dedupKey)?.status;
      const want = word.action === 'trigger' ? 'triggered' : 'resolved';
      // A resolve for an incident PagerDuty never opened leaves none: the same as resolved.
      if ((status ?? 'resolved') === want) continue;
      out.push(
        `PagerDuty: ${dedupKey} ${status ?? 'never opened'}, the monitor's last page (order ${word.order}) says ${word.action}`,
      );
    }
    return out;
  }

  /**
   * The promise for a group past its seats (per alert): every incident open for it stands for an
   * alert still firing (its own, or the overflow while a firing alert has none of its own), and
   * every alert still firing has an open incident, its own or the overflow.
   */
  private promiseBroken(groupKey: string): string[] {
    const open = (key: string) => this.incidents.get(key)?.status === 'triggered';
    const alerts = [...this.alertWord].filter(([, w]) => w.groupKey === groupKey);
    const firing = alerts.filter(([, w]) => w.status === 'firing').map(([fp]) => fp);
    const overflowOpen = open(overflowKeyOf(groupKey));
    const out: string[] = [];
    for (const [fp, w] of alerts)
      if (w.status === 'resolved' && open(fp)) out.push(`PagerDuty: ${fp} open, its alert resolved (order ${w.order})`);
    const bare = firing.filter((fp) => !open(fp));
    if (overflowOpen && bare.length === 0)
      out.push(`PagerDuty: ${overflowKeyOf(groupKey)} open, every firing alert of the group has its own incident`);
    if (!overflowOpen && bare.length > 0)
      out.push(`PagerDuty: ${bare.length} firing alerts of ${groupKey} without an open incident, e.g. ${bare[0]}`);
    return out;
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

export type { ForwardFault };
export { createMemoryLedger, ForwarderModel };
