/**
 * The JSON variant of a published page (what SNS hands an SQS, Lambda or HTTP subscriber, and the
 * PagerDuty forwarder reads), as one type: the shapes the monitor writes, named once. Four kinds
 * share a page's identity (`version`, `fingerprint`, `status`, `severity`, and `order` once the
 * page is claimed): an alert's own page, a group's page (`kind: "group"`, possibly in parts), the
 * configuration alert's pages and the resolve of an alert that is no longer evaluated.
 * docs/routing.md and docs/rules-alerts.md describe the fields for people.
 *
 * Type aliases rather than interfaces, so a message is also a `Record<string, unknown>` (what
 * `payloadBytes` and the text hygiene take).
 */
import type { GroupReason } from '../alerts/group.ts';
import type { NotifyReason } from '../alerts/types.ts';
import type { Offenders } from '../notify/offenders.ts';
import type { FreeSlotSample } from '../rules/forecast.ts';
import type { LastSeen } from '../rules/saturation.ts';
import type { Op, Severity } from '../rules/types.ts';

/** What every page says of itself. */
type MessageIdentity = {
  version: 1;
  fingerprint: string;
  status: 'firing' | 'resolved';
  severity: Severity;
  /** The page's order (epoch ms, strictly increasing per alert or group), added when it is claimed. */
  order?: number;
};

/** The group a page went to: its item's id, its key, its labels, and a continuation's number. */
type MessageGroup = { id: string; key: string; labels: Record<string, string>; continuation?: number };

/** One alert's own page (src/core/notify/build.ts). */
type AlertMessage = MessageIdentity & {
  reason: Exclude<NotifyReason, 'none'>;
  target: string;
  rule: string;
  metric: string;
  op: Op;
  threshold: number;
  clearThreshold: number | null;
  value: number | null;
  activeAt: string | null;
  firedAt: string | null;
  resolvedAt: string | null;
  keepFiringSince: string | null;
  resolvesAt: string | null;
  evaluatedAt: string;
  summary: string | null;
  runbook: string | null;
  labels: Record<string, string>;
  /** Labels left out to keep the page within its budget. */
  labelsOmitted?: number;
  offenders: Offenders | null;
  scoreboard: string[] | null;
  down: { reason: string; detail: string; consecutiveFailures: number } | null;
  failure: { reason: string; likelySaturated: boolean; lastSeen: LastSeen | null } | null;
  silence: { comment: string | null; source: string; endedAt: string } | null;
  forecast: { minutesToExhaustion: number; exhaustedAt: string; samples: FreeSlotSample[] } | null;
  /** Labels and report context dropped to keep the page within its budget. */
  truncated?: true;
  /** The group it was handed to, on a group member's own page. */
  group?: MessageGroup;
};

/** One alert as a group's page lists it. */
type GroupMessageAlert = {
  fingerprint: string;
  status: 'firing' | 'resolved';
  target: string;
  rule: string;
  severity: Severity;
  metric: string | null;
  op: string | null;
  value: number | null;
  threshold: number;
  firedAt: string | null;
  resolvedAt: string | null;
  /** Joined the group since its last page. */
  new: boolean;
};

/** One part of a group's page (src/core/notify/groupPage.ts): `counts` and `rule` the whole page's, `alerts` the part's. */
type GroupMessage = MessageIdentity & {
  kind: 'group';
  reason: Exclude<GroupReason, 'none'>;
  group: MessageGroup;
  /** The rule when every alert has the same one, else null. */
  rule: string | null;
  evaluatedAt: string;
  counts: { firing: number; resolved: number; new: number };
  part: { index: number; count: number };
  alerts: readonly GroupMessageAlert[];
  summary: string | null;
  runbook: string | null;
};

/** The configuration alert's page (src/core/notify/configAlert.ts); the problems only while it fires. */
type ConfigAlertMessage = MessageIdentity & {
  target: string;
  rule: string;
  evaluatedAt: string;
  problemCount?: number;
  problems?: string[];
  targetsInForce?: number | null;
  /** A page updating the open alert: the configuration is still invalid and its problems changed. */
  problemsChanged?: true;
};

/** The resolve of an alert no longer evaluated (src/core/notify/removal.ts). */
type RemovalMessage = MessageIdentity & {
  status: 'resolved';
  reason: 'resolved';
  cause: string;
  target: string;
  rule: string;
  threshold: number;
  value: number | null;
  activeAt: string | null;
  firedAt: string | null;
  resolvedAt: string;
  evaluatedAt: string;
  labels: Record<string, string>;
};

/**
 * A page as a claim keeps it when its JSON passed MAX_STORED_PAYLOAD_BYTES (src/app/accounting/
 * targetItems.ts): the alert's facts only. A run that recovers the claim publishes it as it is.
 */
type ReducedMessage = MessageIdentity & {
  reason: Exclude<NotifyReason, 'none'>;
  target: string;
  rule: string;
  value: number | null;
  threshold: number;
};

/** Any page's JSON variant. */
type PublishedMessage = AlertMessage | GroupMessage | ConfigAlertMessage | RemovalMessage | ReducedMessage;

/** A group's page (part), told from the others by `kind`, which only it has. */
const isGroupMessage = (m: PublishedMessage): m is GroupMessage => 'kind' in m && m.kind === 'group';

export type {
  AlertMessage,
  ConfigAlertMessage,
  GroupMessage,
  GroupMessageAlert,
  MessageGroup,
  MessageIdentity,
  PublishedMessage,
  ReducedMessage,
  RemovalMessage,
};
export { isGroupMessage };
