/**
 * The alert model shared by the core, the CLI and the Lambda (Prometheus' model): an alert is
 * inactive, pending or firing; "resolved" is an inactive alert with `resolvedAt` set. Timestamps
 * are stored, not flags, as ISO-8601 strings so that every store can hold them as they are.
 */
import type { PublishedMessage } from '../message/alertMessage.ts';
import type { FreeSlotSample } from '../rules/forecast.ts';
import type { LastReport } from '../rules/saturation.ts';
import type { Counters, Severity } from '../rules/types.ts';

const ALERT_STATES = { inactive: 'inactive', pending: 'pending', firing: 'firing' } as const;
type AlertState = (typeof ALERT_STATES)[keyof typeof ALERT_STATES];

/** Why a notification is (or is not) sent; the pure decision of `notify`. */
const NOTIFY_REASONS = { first: 'first', repeat: 'repeat', resolved: 'resolved', none: 'none' } as const;
type NotifyReason = (typeof NOTIFY_REASONS)[keyof typeof NOTIFY_REASONS];

/** One alert instance: a (target, rule) pair, identified by `fingerprint`. */
interface AlertRecord {
  fingerprint: string;
  target: string;
  rule: string;
  severity: Severity;
  state: AlertState;
  /** When the condition started to hold (pending since); null while inactive. */
  activeAt: string | null;
  /** When it went pending -> firing. */
  firedAt: string | null;
  /** When a firing alert's condition stopped holding. */
  resolvedAt: string | null;
  /** When a notification for it was last published, and which status it carried. */
  lastSentAt: string | null;
  lastSentStatus: 'firing' | 'resolved' | null;
  /**
   * What the last page said beyond its status, when an alert's firing page can change while it
   * fires (the configuration alert: the hash of the problem set it listed); kept with `lastSentAt`.
   */
  lastSentVariant?: string;
  /** The metric value at the latest evaluation (null when it could not be evaluated). */
  value: number | null;
  threshold: number;
  /** When a firing alert's condition stopped holding while `keepFiringFor` holds it firing (hysteresis). */
  keepFiringSince?: string | null;
  /** The `order` of the last page claimed about it (the page order: a hybrid logical clock, epoch ms). */
  order?: number;
  /**
   * The group (its key, `GroupRef.key`) this alert's pages go to, fixed when it first fires so its
   * resolve closes the page that opened it; null or absent: paged on its own.
   */
  group?: string | null;
  /**
   * Which item of that group holds it: 1, 2, ... a continuation (the first item was full when it
   * joined); absent: the group's first item. Set from where its firing page was actually handed over.
   */
  groupContinuation?: number;
  /**
   * The silence that held back this firing alert's page (the latest one, while it lasts), so the
   * page sent when it ends can name it; cleared once that page goes out or the alert stops firing.
   */
  heldBy?: HeldBy | null;
}

/** A silence as the page after it names it. */
interface HeldBy {
  /** Where the silence came from (SSM parameter or file). */
  source: string;
  comment: string | null;
  /** The silence's `until`, ISO-8601. */
  until: string;
}

/** Everything kept between evaluations of one target. */
interface TargetState {
  target: string;
  /** Time of the latest evaluation, ISO-8601. */
  evaluatedAt: string | null;
  /** Consecutive runs in which the report could not be fetched or parsed. */
  consecutiveFailures: number;
  /** Counter values of the previous good report, for deltas (null when not carried). */
  counters: Counters | null;
  alerts: Record<string, AlertRecord>;
  /**
   * The order of the newest page claimed for any alert of this item (epoch ms, a hybrid logical
   * clock), so a page about an alert whose record left the state still orders after the pages
   * before it (the configuration alert drops its record on resolve). Kept by the accounting.
   */
  lastOrder?: number;
  /**
   * Free slots of the successful evaluations of the last 10 minutes, for `minutes_to_exhaustion`.
   * Kept where the state is kept between runs: the CLI's `--state` file; in AWS only the warm
   * container (never the table), so a cold start begins without.
   */
  samples?: FreeSlotSample[];
  /** The last successful report in brief, so a timeout after it can be named `likely saturated`; kept as `samples`. */
  lastReport?: LastReport | null;
}

/** A message to publish, decided by the core; adapters only deliver it. `P`: the kind of page its JSON is. */
interface Notification<P extends PublishedMessage = PublishedMessage> {
  fingerprint: string;
  status: 'firing' | 'resolved';
  reason: Exclude<NotifyReason, 'none'>;
  target: string;
  rule: string;
  severity: Severity;
  value: number | null;
  threshold: number;
  /** Under 100 ASCII characters, e.g. `[FIRING critical] web-1: idle-slots-low (2 < 5)`. */
  subject: string;
  /** Plain text a person acts on. */
  message: string;
  /** The same facts for machines: the page's JSON variant. */
  payload: P;
  labels: Record<string, string>;
  /** The group this page joins instead of going out on its own (`groupBy` not `[]`); null or absent: on its own. */
  group?: GroupRef | null;
}

/** A page once claimed: its JSON carries the page's `order`. */
type OrderedNotification = Notification<PublishedMessage & { order: number }>;

/** Where an alert's pages are grouped: the group's key, the values it groups by, its interval. */
interface GroupRef {
  /** `{"rule":"idle-slots-low","labels.cluster":"a"}`: the `groupBy` fields and their values, as JSON. */
  key: string;
  labels: Record<string, string>;
  /** The rule's `groupInterval`; null when the rule is gone (a removal's resolve): the group keeps its own. */
  intervalMs: number | null;
  /**
   * The continuation (1, 2, ...) of the group the page goes to: a group item holds at most
   * MAX_GROUP_MEMBERS alerts, and a firing alert a full item refuses goes on to the next one.
   * Absent: the first item (a firing page goes on from there when it is full).
   */
  continuation?: number;
}

/** Knobs of `evaluateTarget`; defaults in `src/core/constants.ts`. */
interface EvaluateOptions {
  /** A still-firing alert is notified again after this long (Alertmanager `repeat_interval`). */
  repeatIntervalMs: number;
  /** Consecutive failed observations before the built-in `target-down` alert's condition holds. */
  downAfterFailures: number;
  /** How long a resolved alert stays in the state after its resolution was sent. */
  resolvedRetentionMs: number;
}

/** An alert as shown to people and to `check --json`: one per rule that is pending or firing. */
interface AlertView {
  fingerprint: string;
  rule: string;
  metric: string;
  op: string;
  state: AlertState;
  value: number | null;
  threshold: number;
  severity: Severity;
  activeAt: string | null;
  firedAt: string | null;
  /** When the condition stopped holding while `keepFiringFor` keeps the alert firing; null otherwise. */
  keepFiringSince: string | null;
  /** When a kept-firing alert resolves unless its condition returns (`keepFiringSince + keepFiringFor`). */
  resolvesAt: string | null;
}

export type {
  AlertRecord,
  AlertState,
  AlertView,
  EvaluateOptions,
  GroupRef,
  HeldBy,
  Notification,
  NotifyReason,
  OrderedNotification,
  TargetState,
};
export { ALERT_STATES, NOTIFY_REASONS };
