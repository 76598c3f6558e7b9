/**
 * The PagerDuty forwarder's one job: the alerts of every SNS record become Events API v2 events
 * (one per group, or one per alert within a bound per group, the rest of the group in one overflow
 * incident), each sent only when it is not older than what was last attempted for its `dedup_key`
 * (a resolve only while an incident may be open), at a pace the Events API accepts. It depends on
 * its ports (./ports.ts) only; the entry (src/lambda/pagerDutyHandler.ts) composes the adapters, and
 * tests give it a clock, a routing key, a sender and a ledger of their own.
 */
import { createHash } from 'node:crypto';
import type { SNSEvent } from 'aws-lambda';
import {
  PAGERDUTY_EVENTS_PER_WINDOW,
  PAGERDUTY_OWN_INCIDENTS_PER_GROUP,
  PAGERDUTY_PACE_WINDOW_MS,
} from '../core/constants.ts';
import { type AlertFacts, type AlertPage, PagerDutyMessageError, readAlertPage } from '../core/message/readMessage.ts';
import {
  EVENTS_PER,
  eventsOfPage,
  type OrderedEvent,
  PAGERDUTY_ACTIONS,
  pageOrderOf,
} from '../core/pagerduty/events.ts';
import {
  closesNothing,
  FORWARD_REASONS,
  type ForwardDecision,
  forwardDecision,
  type RoutingKeyRef,
  resolvedSince,
} from '../core/pagerduty/forwardDecision.ts';
import {
  alertOfEntry,
  assignIncidents,
  freedBy,
  INCIDENT_REASONS,
  pageEntry,
  perAlertEvents,
} from '../core/pagerduty/perAlert.ts';
import { LOG_MESSAGES } from './logMessages.ts';
import { type ForwarderDeps, PagerDutyDeliveryError } from './ports.ts';

/** Time kept back from the invocation's budget when waiting for the next pacing window. */
const PACE_MARGIN_MS = 15_000;

interface ForwardResult {
  /** Events PagerDuty accepted. */
  sent: number;
  /** Events older than (or the same as) one accepted for their dedup_key, and resolves with nothing open, not sent. */
  dropped: number;
  /** Records that were not alert messages, refused without a retry. */
  refused: number;
}

/** Some events of an invocation were not accepted; the invocation fails so Lambda retries it. */
class ForwardError extends Error {
  constructor(failures: Error[]) {
    super(
      `expected every event to reach PagerDuty, found ${failures.length} failed: ${failures.map((f) => f.message).join('; ')}`,
      { cause: failures[0] },
    );
    this.name = 'ForwardError';
  }
}

/** The invocation would run out of time waiting for the pace to allow the rest. */
class PaceDeadlineError extends Error {
  constructor(left: number, remainingMs: number) {
    super(
      `expected time to send ${left} more event(s) at ${PAGERDUTY_EVENTS_PER_WINDOW} per ${PAGERDUTY_PACE_WINDOW_MS} ms, found ${remainingMs} ms left in the invocation`,
    );
    this.name = 'PaceDeadlineError';
  }
}

/** What identifies the routing key in the table and the logs, never the key itself. */
const keyIdOf = (routingKey: string) => createHash('sha256').update(routingKey).digest('hex').slice(0, 16);

/** 400 or 403: the routing key is wrong, most likely (an invalid event is a 400 too: the others still go). */
const keyRefused = (error: unknown) =>
  error instanceof PagerDutyDeliveryError && (error.status === 400 || error.status === 403);

/**
 * A page's events. Per alert, the group's seats among its incidents of their own held by the
 * page's resolved alerts are freed, then its firing alerts keep or take one (conditional writes,
 * so parts forwarded at once never exceed the bound); those without one are coalesced into the
 * group's overflow incident. Freed before the resolves are sent: every resolve whose key was
 * triggered is sent whoever holds the seats, so an incident never depends on its seat.
 */
async function eventsOf(page: AlertPage, routingKey: string, deps: ForwarderDeps): Promise<OrderedEvent[]> {
  const groupKey = page.groupKey;
  if (deps.eventsPer !== EVENTS_PER.alert || groupKey === null) return eventsOfPage(page, routingKey, deps.eventsPer);
  // A late delivery of an older page neither frees the seat of an alert that fired again since
  // nor takes one for an alert that resolved since (that seat would stay held).
  const movedOn = async (fingerprint: string) => {
    const accepted = page.order === null ? null : await deps.ledger.known(fingerprint);
    return accepted !== null && page.order !== null && accepted.order > page.order;
  };
  const held = await deps.ledger.ownIncidents(groupKey);
  for (const fingerprint of freedBy(page.alerts, held)) {
    if (await movedOn(fingerprint)) continue;
    await deps.ledger.freeOwnIncident(groupKey, fingerprint);
    held.delete(fingerprint);
  }
  // What the page's other parts listed: their firing alerts may take a seat this part freed, and
  // the overflow lists them all, whichever part comes first.
  const pageOrder = pageOrderOf(page);
  const firingHere = page.alerts.filter((a) => a.status === 'firing');
  let others: AlertFacts[] = [];
  let complete = false;
  if (pageOrder !== null) {
    const listed = await deps.ledger.notePageFiring(groupKey, pageOrder, firingHere.map(pageEntry), deps.now());
    if (listed !== null) {
      const here = new Set(page.alerts.map((a) => a.fingerprint));
      others = listed.map(alertOfEntry).filter((a) => !here.has(a.fingerprint));
      complete = firingHere.length + others.length >= (page.group?.counts.firing ?? firingHere.length);
    }
  }
  const fromOthers = new Set(others.map((a) => a.fingerprint));
  const own = new Set<string>();
  const promoted = new Set<string>();
  let refreshed = false;
  const ranked = assignIncidents([...page.alerts, ...others], held, PAGERDUTY_OWN_INCIDENTS_PER_GROUP);
  for (const { fingerprint, reason } of ranked) {
    if (reason === INCIDENT_REASONS.full) continue;
    // A kept seat is claimed again once per page: that moves the seats' TTL on while the group fires.
    const claim = reason === INCIDENT_REASONS.room || !refreshed;
    if (reason === INCIDENT_REASONS.room && (await movedOn(fingerprint))) continue;
    if (
      claim &&
      !(await deps.ledger.claimOwnIncident(groupKey, fingerprint, PAGERDUTY_OWN_INCIDENTS_PER_GROUP, deps.now()))
    )
      continue;
    refreshed ||= reason === INCIDENT_REASONS.kept;
    own.add(fingerprint);
    if (reason === INCIDENT_REASONS.room && fromOthers.has(fingerprint)) promoted.add(fingerprint);
  }
  const coalesced = firingHere.length + others.length - own.size;
  if (coalesced > 0)
    deps.log('info', LOG_MESSAGES.coalesced, { groupKey, own: own.size, coalesced, order: page.order });
  return perAlertEvents(page, groupKey, own, routingKey, { others, promoted, complete });
}

/** The events of the records that are alert messages; each other record is logged once and skipped. */
async function eventsOfRecords(
  event: SNSEvent,
  routingKey: string,
  deps: ForwarderDeps,
): Promise<{ events: OrderedEvent[]; refused: number }> {
  const events: OrderedEvent[] = [];
  let refused = 0;
  for (const record of event.Records ?? []) {
    let page: AlertPage;
    try {
      page = readAlertPage(record.Sns?.Message ?? '');
    } catch (error) {
      if (!(error instanceof PagerDutyMessageError)) throw error;
      // Why: a retry cannot make it an alert message; failing would only retry it into the DLQ.
      refused++;
      deps.log('error', LOG_MESSAGES.refused, { messageId: record.Sns?.MessageId, error: error.message });
      continue;
    }
    events.push(...(await eventsOf(page, routingKey, deps)));
  }
  return { events, refused };
}

/**
 * Waits until the routing key's pacing window has room.
 * @returns whether it had to wait (then what was accepted meanwhile is worth reading again)
 * @throws PaceDeadlineError when the invocation's time would run out first
 */
async function takePace(keyId: string, left: number, deps: ForwarderDeps): Promise<boolean> {
  for (let waited = false; ; waited = true) {
    const windowStart = Math.floor(deps.now() / PAGERDUTY_PACE_WINDOW_MS) * PAGERDUTY_PACE_WINDOW_MS;
    if (await deps.ledger.takeSlot(keyId, windowStart, PAGERDUTY_EVENTS_PER_WINDOW, PAGERDUTY_PACE_WINDOW_MS))
      return waited;
    const wait = windowStart + PAGERDUTY_PACE_WINDOW_MS - deps.now();
    if (deps.remainingMs() - wait < PACE_MARGIN_MS) throw new PaceDeadlineError(left, deps.remainingMs());
    await deps.sleep(Math.max(wait, 1));
  }
}

/** Whether the event is newer than what is known for its key (a resolve: and may close something). */
async function worthSending(e: OrderedEvent, deps: ForwarderDeps): Promise<ForwardDecision> {
  return forwardDecision(
    { order: e.order, part: e.part, action: e.event.event_action },
    e.order === null ? null : await deps.ledger.known(e.event.dedup_key),
  );
}

/** The routing key an event goes to, and what the ledger remembers of it. */
interface Route {
  key: string;
  ref: RoutingKeyRef;
}

const routeOf = (key: string, version: number | null): Route => ({ key, ref: { keyId: keyIdOf(key), version } });

/**
 * Where an event goes: the service its key's open incident was opened on, when the routing key
 * changed since (read at the version that opened it, and checked against the id remembered), so
 * the incident is updated and resolved where it is; otherwise the current key. An old key that
 * can no longer be read (the version deleted, SSM keeps 100) or does not match is logged, and the
 * event goes to the current key.
 */
async function routeFor(e: OrderedEvent, current: Route, deps: ForwarderDeps): Promise<Route> {
  if (e.order === null) return current;
  const known = await deps.ledger.known(e.event.dedup_key);
  const opener = known?.opener;
  if (opener === undefined || !known?.open || opener.keyId === current.ref.keyId) return current;
  if (opener.version === null || deps.routingKeyAt === undefined) return current;
  try {
    const old = routeOf(await deps.routingKeyAt(opener.version), opener.version);
    if (old.ref.keyId === opener.keyId) return old;
    deps.log('warn', LOG_MESSAGES.openerKeyLost, { dedupKey: e.event.dedup_key, version: opener.version });
  } catch (error) {
    deps.log('warn', LOG_MESSAGES.openerKeyLost, {
      dedupKey: e.event.dedup_key,
      version: opener.version,
      error: (error as Error).message,
    });
  }
  return current;
}

/** How many times a drop is decided again when its key changed between the read and the write. */
const DECIDE_TRIES = 3;

/**
 * Decides whether to send `e`, taking a place in the pace first when it goes, and writes what the
 * decision commits to: an attempt before a send (a newer attempt meanwhile makes it stale), or a
 * resolve with nothing open remembered as closed (a trigger attempted meanwhile: decided again).
 * Checked before taking a place (a retry's accepted events and resolves with nothing open cost
 * no pace), and again after a wait: a newer page of the key may have been attempted meanwhile.
 */
async function decide(e: OrderedEvent, route: Route, left: number, deps: ForwarderDeps): Promise<ForwardDecision> {
  const key = e.event.dedup_key;
  for (let tries = 1; ; tries++) {
    let decision = await worthSending(e, deps);
    if (decision.send && (await takePace(route.ref.keyId, left, deps))) decision = await worthSending(e, deps);
    if (e.order === null) return decision;
    if (decision.send) {
      // Written before the send: should its answer be lost, the retry still knows it may be open.
      const action = e.event.event_action;
      if (await deps.ledger.recordAttempt(key, e.order, deps.now(), action, route.ref)) return decision;
      return { send: false, reason: FORWARD_REASONS.stale };
    }
    if (!closesNothing(decision.reason)) return decision;
    // Remembered as if accepted: a retried older trigger must not open what this resolve ended.
    if ((await deps.ledger.recordClosed(key, e.order, e.part, deps.now())) || tries >= DECIDE_TRIES) return decision;
  }
}

/**
 * After a trigger PagerDuty accepted while a newer resolve of its key was being sent: when that
 * resolve may have reached PagerDuty first (`resolvedSince`), it is sent again, so the incident the
 * late trigger opened does not stay open with nothing to close it.
 * @returns whether a resolve was sent, or its delivery error
 */
async function closeAfterLateTrigger(
  e: OrderedEvent,
  route: Route,
  left: number,
  deps: ForwarderDeps,
): Promise<boolean | Error> {
  if (e.order === null) return false;
  const known = await deps.ledger.known(e.event.dedup_key);
  if (!resolvedSince({ order: e.order, action: e.event.event_action }, known)) return false;
  await takePace(route.ref.keyId, left, deps);
  try {
    await deps.sender.send({ ...e.event, routing_key: route.key, event_action: PAGERDUTY_ACTIONS.resolve });
  } catch (error) {
    return error as Error;
  }
  deps.log('warn', LOG_MESSAGES.lateTrigger, { dedupKey: e.event.dedup_key, order: e.order, newer: known?.order });
  return true;
}

/** Logs a missing or refused routing key the first time in its TTL (the table remembers), for the alarm. */
async function noteKeyProblem(keyId: string, error: Error, deps: ForwarderDeps): Promise<void> {
  if (await deps.ledger.noteKeyProblem(keyId, deps.now()))
    deps.log('error', LOG_MESSAGES.keyRefused, { keyId, error: error.message });
}

/**
 * Sends the events of every alert message of the event, in order: each only when not older than
 * the newest order attempted for its `dedup_key` and not accepted already (`decide`: the attempt
 * is remembered before the send, the part accepted after the 202), a resolve only while an
 * incident may be open (else dropped at no pace, and remembered), each after taking a place in
 * the routing key's pace. Per alert, a group's alerts past its seats are coalesced into its overflow incident
 * (`eventsOf`). A record that is not an alert message is logged and skipped. A failed event
 * does not stop the others, then the invocation fails so Lambda retries it; the retry finds the
 * accepted events remembered and sends only the rest. A 400 or 403 (the routing key, most likely)
 * is logged for the alarm once an hour.
 *
 * @example await forwardToPagerDuty(snsEvent, deps) // { sent: 1, dropped: 0, refused: 0 }
 * @throws ForwardError for events not accepted; PaceDeadlineError; the routing key's read error
 */
async function forwardToPagerDuty(event: SNSEvent, deps: ForwarderDeps): Promise<ForwardResult> {
  if ((event.Records ?? []).length === 0) return { sent: 0, dropped: 0, refused: 0 };
  let current: Route;
  try {
    const read = await deps.routingKey();
    current = typeof read === 'string' ? routeOf(read, null) : routeOf(read.key, read.version);
  } catch (error) {
    await noteKeyProblem('missing', error as Error, deps);
    throw error;
  }
  const { events, refused } = await eventsOfRecords(event, current.key, deps);
  const failures: Error[] = [];
  let sent = 0;
  let dropped = 0;
  for (const [i, e] of events.entries()) {
    const route = await routeFor(e, current, deps);
    const decision = await decide(e, route, events.length - i, deps);
    if (!decision.send) {
      dropped++;
      deps.log('info', closesNothing(decision.reason) ? LOG_MESSAGES.noIncident : LOG_MESSAGES.dropped, {
        dedupKey: e.event.dedup_key,
        action: e.event.event_action,
        order: e.order,
        reason: decision.reason,
      });
      continue;
    }
    try {
      await deps.sender.send(route.key === e.event.routing_key ? e.event : { ...e.event, routing_key: route.key });
    } catch (error) {
      if (keyRefused(error)) await noteKeyProblem(route.ref.keyId, error as Error, deps);
      failures.push(error as Error);
      // PagerDuty may have taken it though no answer came: it may have opened after its newer resolve.
      if (!keyRefused(error)) {
        const late = await closeAfterLateTrigger(e, route, events.length - i, deps);
        if (late instanceof Error) failures.push(late);
        else if (late) sent++;
      }
      continue;
    }
    sent++;
    if (e.order === null) continue;
    const learnt = await deps.ledger.recordAccepted(
      e.event.dedup_key,
      e.order,
      e.part,
      deps.now(),
      e.event.event_action,
    );
    if (!learnt) {
      // A newer event of the key was attempted meanwhile (another container, within this request).
      const late = await closeAfterLateTrigger(e, route, events.length - i, deps);
      if (late instanceof Error) failures.push(late);
      else if (late) sent++;
    }
  }
  if (failures.length > 0) throw new ForwardError(failures);
  return { sent, dropped, refused };
}

export type { ForwardResult };
export { ForwardError, forwardToPagerDuty, keyIdOf, PaceDeadlineError };
