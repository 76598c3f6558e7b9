/**
 * The ports of the PagerDuty forwarder (./forward.ts): the Events API it sends to and the ledger it
 * remembers in, as the monitor's are in src/app/ports.ts. Adapters implement them
 * (src/adapters/pagerDutyEventsClient.ts, src/adapters/pagerDutyLedger.ts); the Lambda entry and the
 * tests compose them. Nothing here imports an adapter.
 */
import type { EventsPer, PagerDutyAction, PagerDutyEvent } from '../core/pagerduty/events.ts';
import type { KnownOrder, RoutingKeyRef } from '../core/pagerduty/forwardDecision.ts';

/** Sends one event to the Events API; throws `PagerDutyDeliveryError` when it was not accepted. */
interface PagerDutySender {
  send(event: PagerDutyEvent): Promise<void>;
}

/** PagerDuty did not accept an event; says which one (never the routing key) and why. */
class PagerDutyDeliveryError extends Error {
  readonly status: number | null;
  constructor(event: PagerDutyEvent, attempts: number, found: string, status: number | null, options?: ErrorOptions) {
    super(
      `expected PagerDuty to accept ${event.event_action} ${event.dedup_key}, found ${found} after ${attempts} attempt(s)`,
      options,
    );
    this.name = 'PagerDutyDeliveryError';
    this.status = status;
  }
}

/**
 * What the forwarder remembers across its containers (the monitor's state table in the Lambda):
 * per `dedup_key` the newest order attempted or accepted, the seats of per-alert mode, the pace
 * per routing key, and key problems already reported.
 */
interface PagerDutyLedger {
  /** The newest order attempted or accepted for `dedupKey`, or null when none is remembered. */
  known(dedupKey: string): Promise<KnownOrder | null>;
  /**
   * Before a send: `order` becomes the newest known (its parts accepted kept when it already was),
   * with `action`; a trigger marks the key open and remembers the routing key it goes to (`opener`).
   * An open record has no expiry: it is kept until a resolve closes it. False when a newer order is
   * known (drop as stale).
   */
  recordAttempt(
    dedupKey: string,
    order: number,
    nowMs: number,
    action: PagerDutyAction,
    opener?: RoutingKeyRef,
  ): Promise<boolean>;
  /**
   * After PagerDuty's 202: `part` accepted at `order`; a resolve closes the key (and gives the
   * record its expiry). False (nothing written) when another order was attempted since.
   */
  recordAccepted(
    dedupKey: string,
    order: number,
    part: number,
    nowMs: number,
    action: PagerDutyAction,
  ): Promise<boolean>;
  /**
   * A resolve dropped because nothing is open, remembered like an accepted one (so an older
   * trigger's retry stays stale). False when the key is open or newer now (decide again).
   */
  recordClosed(dedupKey: string, order: number, part: number, nowMs: number): Promise<boolean>;
  /** The fingerprints of the alerts of `groupKey` holding an incident of their own. */
  ownIncidents(groupKey: string): Promise<Set<string>>;
  /** Takes a seat for `fingerprint` among at most `bound`; true when it holds one (taken now or before). */
  claimOwnIncident(groupKey: string, fingerprint: string, bound: number, nowMs: number): Promise<boolean>;
  /**
   * Per-alert mode: adds `entries` (the firing alerts one part of a group's page lists) to what the
   * parts of the page of `pageOrder` listed so far, and returns them all; a newer page starts
   * afresh. Null when a newer page of the group was noted (this part is late).
   */
  notePageFiring(groupKey: string, pageOrder: number, entries: string[], nowMs: number): Promise<string[] | null>;
  /** Frees the seat of `fingerprint`, if it holds one. */
  freeOwnIncident(groupKey: string, fingerprint: string): Promise<void>;
  /** Takes one of `limit` events of the window starting at `windowStartMs`; false when all are taken. */
  takeSlot(keyId: string, windowStartMs: number, limit: number, windowMs: number): Promise<boolean>;
  /** True the first time a key problem is noted within its TTL (so it is reported once). */
  noteKeyProblem(keyId: string, nowMs: number): Promise<boolean>;
}

/** The routing key as read now, with the SSM parameter version it was read at. */
interface VersionedRoutingKey {
  key: string;
  version: number | null;
}

interface ForwarderDeps {
  /** The routing key, decrypted (cached by the caller), with its parameter version when known. */
  routingKey: () => Promise<string | VersionedRoutingKey>;
  /**
   * The routing key at an earlier parameter version (SSM's `name:version`), to close an incident on
   * the service it was opened on after the key changed. Absent: every event goes to the current key.
   */
  routingKeyAt?: (version: number) => Promise<string>;
  sender: PagerDutySender;
  ledger: PagerDutyLedger;
  eventsPer: EventsPer;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** What is left of the invocation's time. */
  remainingMs: () => number;
  /** One structured log line. */
  log: (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;
}

export type { ForwarderDeps, PagerDutyLedger, PagerDutySender, VersionedRoutingKey };
export { PagerDutyDeliveryError };
