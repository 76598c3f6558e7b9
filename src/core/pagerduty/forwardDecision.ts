/**
 * Whether the forwarder sends an event, as a pure decision with a named reason: given what it
 * knows per `dedup_key` (`KnownOrder`, kept by the ledger), an event is sent only when it is not
 * older than the newest attempt and not a part already accepted (the parts of one page share the
 * page's order), and a resolve only while an incident may be open. Also the check, after a trigger
 * was accepted or its answer lost, that a newer resolve may have reached PagerDuty first.
 */
import { PAGERDUTY_ACTIONS, type PagerDutyAction } from './events.ts';

/**
 * What the forwarder knows per `dedup_key`: the newest order it attempted (written before each
 * send) or PagerDuty accepted, the parts of that page accepted, its action, and whether PagerDuty
 * may hold an open incident for the key. An attempt whose answer was lost stays known: what is
 * older is never sent after it, and a resolve is still sent while a trigger may be open.
 */
interface KnownOrder {
  order: number;
  /** The parts of the page of `order` PagerDuty accepted (none yet when only attempted). */
  parts: number[];
  /** Null on what was remembered before actions were. */
  action: PagerDutyAction | null;
  /** A trigger was attempted and no resolve accepted since (records from before: `action !== 'resolve'`). */
  open: boolean;
  /**
   * The routing key the open incident was opened with: its id (`keyIdOf`) and SSM parameter
   * version, so its events go on to that service after a key change; absent on older records.
   */
  opener?: RoutingKeyRef;
}

/** Which routing key an incident was opened with, never the key itself: its id and parameter version. */
interface RoutingKeyRef {
  keyId: string;
  /** The SSM parameter version the key was read at; null when the reader did not say. */
  version: number | null;
}

/** Why an event is sent or dropped. */
const FORWARD_REASONS = {
  /** The page has no order (a message from before orders): sent unchecked. */
  unordered: 'unordered',
  /** Nothing known for its key yet. */
  first: 'first',
  /** Newer than what was attempted or accepted. */
  newer: 'newer',
  /** The order known, this part not accepted at it: another part of the page, or this one unanswered. */
  otherPart: 'other-part',
  /** Older than what was attempted or accepted: a retry or a late delivery; sending it could re-open a resolved incident. */
  stale: 'stale',
  /** This very event was accepted already. */
  duplicate: 'duplicate',
  /** A resolve for a key no trigger was ever attempted for: there is no incident to close. */
  neverTriggered: 'never-triggered',
  /** A resolve for a key whose last trigger was resolved since: the incident is closed already. */
  alreadyResolved: 'already-resolved',
} as const;
type ForwardReason = (typeof FORWARD_REASONS)[keyof typeof FORWARD_REASONS];
/** Whether to send an event, and why. */
interface ForwardDecision {
  send: boolean;
  reason: ForwardReason;
}
/** A resolve dropped for one of these has no incident to close: not a retry or a reordering. */
const closesNothing = (reason: ForwardReason): boolean =>
  reason === FORWARD_REASONS.neverTriggered || reason === FORWARD_REASONS.alreadyResolved;

/** What `forwardDecision` reads of an event. */
interface EventToForward {
  order: number | null;
  part: number;
  action: PagerDutyAction;
}

/**
 * Whether to send an event, given what is known for its `dedup_key`: only what is not older than
 * the newest attempt, and not a part already accepted; a resolve only while an incident may be
 * open (so the alerts of a fleet incident that never had an incident of their own cost no pace
 * when it ends). Every trigger is attempted (remembered) before it is sent, so a resolve with no
 * record has nothing to close.
 *
 * @example forwardDecision({ order: 5, part: 1, action: 'trigger' }, { order: 7, parts: [1], action: 'trigger', open: true })
 * // { send: false, reason: 'stale' }
 */
function forwardDecision(event: EventToForward, known: KnownOrder | null): ForwardDecision {
  if (event.order === null) return { send: true, reason: FORWARD_REASONS.unordered };
  const resolve = event.action === PAGERDUTY_ACTIONS.resolve;
  if (known === null)
    return resolve
      ? { send: false, reason: FORWARD_REASONS.neverTriggered }
      : { send: true, reason: FORWARD_REASONS.first };
  if (event.order < known.order) return { send: false, reason: FORWARD_REASONS.stale };
  if (event.order === known.order && known.parts.includes(event.part))
    return { send: false, reason: FORWARD_REASONS.duplicate };
  if (resolve && !known.open) return { send: false, reason: FORWARD_REASONS.alreadyResolved };
  return event.order > known.order
    ? { send: true, reason: FORWARD_REASONS.newer }
    : { send: true, reason: FORWARD_REASONS.otherPart };
}

/**
 * Whether a trigger PagerDuty just accepted came in after its key's newer resolve was sent
 * (attempted or accepted): its request was slower than the resolve's, so the incident it opened
 * would stay open with nothing left to close it. The forwarder then sends that resolve again
 * (a resolve of a closed incident is a no-op for PagerDuty).
 *
 * @example resolvedSince({ order: 5, action: 'trigger' }, { order: 7, parts: [], action: 'resolve', open: true }) // true
 */
function resolvedSince(accepted: { order: number; action: PagerDutyAction }, known: KnownOrder | null): boolean {
  return (
    accepted.action === PAGERDUTY_ACTIONS.trigger &&
    known !== null &&
    known.order > accepted.order &&
    known.action === PAGERDUTY_ACTIONS.resolve
  );
}

export type { EventToForward, ForwardDecision, ForwardReason, KnownOrder, RoutingKeyRef };
export { closesNothing, FORWARD_REASONS, forwardDecision, resolvedSince };
