/**
 * Alert groups (Alertmanager's `group_by`, `group_wait` 0 and `group_interval`): alerts that share
 * a group key go out as one page. A group is a set of members, one per alert, each with the status
 * it has now and the status the group's last accepted page gave it; whether to page is a pure
 * decision with a named reason, like `decideNotification` for one alert. Time is passed in.
 */
import { createHash } from 'node:crypto';
import { DEFAULT_GROUP_INTERVAL_MS, DEFAULT_RESOLVED_RETENTION_MS } from '../constants.ts';
import type { PublishedMessage } from '../message/alertMessage.ts';
import { LABEL_PREFIX } from '../rules/groupFields.ts';
import type { Severity } from '../rules/types.ts';
import { elapsedMs } from './elapsed.ts';
import { findSilence, type Silence } from './silenceMatch.ts';
import type { GroupRef, Notification } from './types.ts';

/** Why a group page is (or is not) sent. */
const GROUP_REASONS = {
  /** Firing alerts and no page of the group standing: a new incident pages at once. */
  first: 'first',
  /** Alerts joined or resolved, and the group interval has passed since the last page. */
  update: 'update',
  /** Nothing changed, still firing, and the repeat interval has passed since the last page. */
  repeat: 'repeat',
  /** Every alert resolved, and the group interval has passed since the last page. */
  resolved: 'resolved',
  none: 'none',
} as const;
type GroupReason = (typeof GROUP_REASONS)[keyof typeof GROUP_REASONS];

type AlertStatus = 'firing' | 'resolved';

/** One alert of a group: its facts as last handed over, and what the group's pages told about it. */
interface GroupMember {
  fingerprint: string;
  target: string;
  rule: string;
  severity: Severity;
  status: AlertStatus;
  /** Evaluation time of the newest hand-over: an older one arriving late changes nothing. */
  at: string;
  /** The status the last accepted page carried for it; null: no page has named it. */
  sentStatus: AlertStatus | null;
  metric: string | null;
  op: string | null;
  value: number | null;
  threshold: number;
  firedAt: string | null;
  resolvedAt: string | null;
}

/** The newest handed-over page, whole (bounded): a page about that one alert is the alert's own page. */
interface LatestPage {
  fingerprint: string;
  status: AlertStatus;
  subject: string;
  message: string;
  payload: PublishedMessage;
}

interface GroupState {
  key: string;
  /** Which continuation of the group this item is (1, 2, ...); absent: the group's first item. */
  continuation?: number;
  labels: Record<string, string>;
  intervalMs: number;
  /** When the group's last page was accepted; null: none yet. */
  lastSentAt: string | null;
  members: Record<string, GroupMember>;
  latest: LatestPage | null;
}

/** Which alerts a page names, with the status it gives each. */
type StatusByAlert = Record<string, AlertStatus>;

/**
 * The group an alert's pages join, or null when `groupBy` is empty (paged on its own). A label the
 * target does not carry groups as the empty string, as in Alertmanager.
 *
 * @example
 * groupRefOf(['rule', 'labels.cluster'], { rule: 'idle-slots-low', severity: 'critical', target: 'web-1',
 *   labels: { cluster: 'a' } }, 300_000)?.key // '{"rule":"idle-slots-low","labels.cluster":"a"}'
 */
function groupRefOf(
  groupBy: readonly string[],
  alert: { rule: string; severity: Severity; target: string; labels: Record<string, string> },
  intervalMs: number,
): GroupRef | null {
  if (groupBy.length === 0) return null;
  const labels: Record<string, string> = {};
  for (const field of groupBy) {
    if (field.startsWith(LABEL_PREFIX)) labels[field] = alert.labels[field.slice(LABEL_PREFIX.length)] ?? '';
    else if (field === 'rule' || field === 'severity' || field === 'target') labels[field] = alert[field];
  }
  return { key: JSON.stringify(labels), labels, intervalMs };
}

/** The group's values from its key (the key is their JSON). */
function groupLabelsOf(key: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(key);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

/**
 * The group an alert's record names (`AlertRecord.group`), for its later pages; `intervalMs` null
 * when its rule is gone (the group keeps its own).
 */
function groupRefOfKey(key: string, intervalMs: number | null): GroupRef {
  return { key, labels: groupLabelsOf(key), intervalMs };
}

/**
 * The group's identity in the table and in its pages: 32 hex characters of SHA-256 over the key;
 * a continuation's adds its number (`<id>-2`), so it is its own item and its own incident.
 */
function groupId(key: string, continuation = 0): string {
  const id = createHash('sha256').update(key).digest('hex').slice(0, 32);
  return continuation > 0 ? `${id}-${continuation}` : id;
}

/** `ref` naming continuation `n` of its group (0 or absent: the first item). */
function withContinuation(ref: GroupRef, n: number | undefined): GroupRef {
  const { continuation: _, ...first } = ref;
  return n !== undefined && n > 0 ? { ...first, continuation: n } : first;
}

/** When a handed-over page was evaluated (its payload says; else the hand-over time). */
function evaluatedAtOf(n: Notification, now: Date): string {
  return 'evaluatedAt' in n.payload ? n.payload.evaluatedAt : now.toISOString();
}

function memberOf(n: Notification, at: string, sentStatus: AlertStatus | null): GroupMember {
  const p = n.payload;
  return {
    fingerprint: n.fingerprint,
    target: n.target,
    rule: n.rule,
    severity: n.severity,
    status: n.status,
    at,
    sentStatus,
    metric: 'metric' in p ? p.metric : null,
    op: 'op' in p ? p.op : null,
    value: n.value,
    threshold: n.threshold,
    firedAt: 'firedAt' in p ? p.firedAt : null,
    resolvedAt: 'resolvedAt' in p ? p.resolvedAt : null,
  };
}

/**
 * The group without members no page needs any more: alerts resolved and said so, or resolved
 * before any page named them, once `retentionMs` has passed since they resolved. Until then they
 * stay as tombstones, so a hand-over replayed after a crash finds them and changes nothing
 * (instead of paging their resolve again).
 */
function settle(group: GroupState, now: Date, retentionMs = DEFAULT_RESOLVED_RETENTION_MS): GroupState {
  const members: Record<string, GroupMember> = {};
  for (const [fp, m] of Object.entries(group.members)) {
    const done = m.status === 'resolved' && m.sentStatus !== 'firing';
    if (!done || elapsedMs(now, m.at) < retentionMs) members[fp] = m;
  }
  return { ...group, members };
}

/** Whether the group still has an alert a page has named firing, or may yet name. */
function isOpen(group: GroupState): boolean {
  return Object.values(group.members).some((m) => m.status === 'firing' || m.sentStatus === 'firing');
}

/**
 * The group after one alert's page is handed over to it (idempotent: handing the same page over
 * again changes nothing; an older page arriving late is ignored). A resolve for an alert the group
 * does not hold is kept as owed: the alert only hands over a resolve once its firing went out.
 * Null when the group is full (`maxMembers`) and the alert is not in it: the caller pages it alone.
 */
function addToGroup(
  group: GroupState | null,
  ref: GroupRef,
  page: Notification,
  latest: LatestPage,
  now: Date,
  maxMembers: number,
): GroupState | null {
  const base: GroupState = group ?? {
    key: ref.key,
    ...(ref.continuation !== undefined && ref.continuation > 0 ? { continuation: ref.continuation } : {}),
    labels: ref.labels,
    intervalMs: ref.intervalMs ?? DEFAULT_GROUP_INTERVAL_MS,
    lastSentAt: null,
    members: {},
    latest: null,
  };
  const at = evaluatedAtOf(page, now);
  const prev = base.members[page.fingerprint];
  if (prev !== undefined && Date.parse(prev.at) > Date.parse(at)) return base;
  if (prev === undefined && Object.keys(base.members).length >= maxMembers) return null;
  // `??` would be wrong: a held alert no page named (null) must stay unnamed, not become owed.
  const sentStatus = prev !== undefined ? prev.sentStatus : page.status === 'resolved' ? 'firing' : null;
  return {
    ...base,
    intervalMs: ref.intervalMs ?? base.intervalMs,
    members: { ...base.members, [page.fingerprint]: memberOf(page, at, sentStatus) },
    latest,
  };
}

/**
 * Whether the group holds a newer hand-over of the page's alert with another status: the page is
 * ignored (`addToGroup`), not held, so whatever it says (a resolve) is still owed by its sender.
 */
function heldOtherwise(group: GroupState | null, page: Notification, now: Date): boolean {
  const prev = group?.members[page.fingerprint];
  return (
    prev !== undefined && Date.parse(prev.at) > Date.parse(evaluatedAtOf(page, now)) && prev.status !== page.status
  );
}

/**
 * Whether the group pages now, and why (Alertmanager's flush: `group_wait` 0, `group_interval`,
 * `repeat_interval`). A change is a member whose status differs from what the last page said.
 *
 * @example
 * decideGroup(groupWithOneNewFiringAlert, now, 4 * 3600_000) // 'first'
 */
function decideGroup(group: GroupState, now: Date, repeatIntervalMs: number): GroupReason {
  const members = Object.values(group.members);
  const changed = members.filter(
    (m) => m.status !== m.sentStatus && !(m.status === 'resolved' && m.sentStatus === null),
  );
  const firing = members.some((m) => m.status === 'firing');
  const standing = members.some((m) => m.sentStatus === 'firing');
  if (changed.length > 0) {
    if (!standing && changed.some((m) => m.status === 'firing')) return GROUP_REASONS.first;
    if (group.lastSentAt === null || elapsedMs(now, group.lastSentAt) >= group.intervalMs)
      return firing ? GROUP_REASONS.update : GROUP_REASONS.resolved;
    return GROUP_REASONS.none;
  }
  if (firing && group.lastSentAt !== null && elapsedMs(now, group.lastSentAt) >= repeatIntervalMs)
    return GROUP_REASONS.repeat;
  return GROUP_REASONS.none;
}

/**
 * The group as a page sent now sees it: firing alerts under a silence left out (they page when it
 * ends, as in Alertmanager's notify pipeline); resolves always go through.
 */
function withoutSilenced(group: GroupState, now: Date, silences: readonly Silence[]): GroupState {
  if (silences.length === 0) return group;
  const members: Record<string, GroupMember> = {};
  for (const [fp, m] of Object.entries(group.members))
    if (m.status !== 'firing' || findSilence(silences, m.target, m.rule, now) === undefined) members[fp] = m;
  return { ...group, members };
}

/** What a page sent now names: every firing alert, and every resolved one whose firing a page named. */
function pagedOf(group: GroupState): StatusByAlert {
  const paged: StatusByAlert = {};
  for (const m of Object.values(group.members)) {
    if (m.status === 'firing') paged[m.fingerprint] = 'firing';
    else if (m.sentStatus === 'firing') paged[m.fingerprint] = 'resolved';
  }
  return paged;
}

/**
 * The group once a page naming `paged` was accepted at `at`: each named alert's `sentStatus` is
 * what the page said (whatever happened to it since); `settle` later drops those said resolved.
 */
function markPaged(group: GroupState, paged: StatusByAlert, at: string): GroupState {
  // Members are settled by the flush (`settle`), which knows the time; here only what was said changes.
  const members: Record<string, GroupMember> = {};
  for (const [fp, m] of Object.entries(group.members)) {
    const said = paged[fp];
    members[fp] = said === undefined ? m : { ...m, sentStatus: said };
  }
  return { ...group, members, lastSentAt: at };
}

export type { AlertStatus, GroupMember, GroupReason, GroupState, LatestPage, StatusByAlert };
export {
  addToGroup,
  decideGroup,
  evaluatedAtOf,
  GROUP_REASONS,
  groupId,
  groupRefOf,
  groupRefOfKey,
  heldOtherwise,
  isOpen,
  markPaged,
  pagedOf,
  settle,
  withContinuation,
  withoutSilenced,
};
