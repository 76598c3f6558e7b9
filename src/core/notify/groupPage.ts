/**
 * The page a group sends (Alertmanager's grouped notification): one subject, text and JSON payload
 * about every alert the page names. A group of one whose newest handed-over page is about that
 * alert sends that page, so it reads exactly like the alert's own page. Otherwise the page is
 * split into parts when its alerts do not fit one payload: every named alert is in some part's
 * `alerts`, never cut, because the PagerDuty forwarder triggers and resolves incidents from it.
 * Same input, same pages: a run that crashed after publishing rebuilds them from the stored group.
 */
import {
  type AlertStatus,
  type GroupMember,
  type GroupReason,
  type GroupState,
  groupId,
  type LatestPage,
  type StatusByAlert,
} from '../alerts/group.ts';
import type { Notification } from '../alerts/types.ts';
import { MAX_PAYLOAD_BYTES, MAX_SUBJECT_CHARS, MAX_TEXT_MESSAGE_BYTES, ORDER_FIELD_BYTES } from '../constants.ts';
import type { GroupMessage, GroupMessageAlert, MessageGroup, PublishedMessage } from '../message/alertMessage.ts';
import { SEVERITY_NAMES, type Severity } from '../rules/types.ts';
import { fitLines, payloadBytes } from '../text/limits.ts';
import { cleanConfigText, cleanReportText, cleanSubjectText, TEXT_USES } from '../text/sanitize.ts';
import { withOrder } from './build.ts';
import { formatValue } from './format.ts';

interface GroupPageInput {
  group: GroupState;
  /** The alerts the page names, with the status it gives each (`pagedOf`). */
  paged: StatusByAlert;
  reason: Exclude<GroupReason, 'none'>;
  now: Date;
  /** The claim's order (the page order, a hybrid logical clock): part i of the page carries `order + i`; absent: no `order` field. */
  order?: number;
}

/** An alert the page names: its facts, the status the page gives it, and whether the last page said otherwise. */
interface NamedAlert {
  member: GroupMember;
  status: AlertStatus;
  isNew: boolean;
}

/** What every part of a grouped page says about the whole page. */
interface PageFacts {
  /** firing when any named alert is firing. */
  status: AlertStatus;
  /** The highest among the alerts of `status`. */
  severity: Severity;
  /** The rule when every named alert has the same one, else null. */
  rule: string | null;
  rules: number;
  /** The distinct targets of the alerts of `status`, sorted. */
  targets: string[];
  /** `new`: firing alerts the last page did not name firing. */
  counts: { firing: number; resolved: number; new: number };
}

/** Most urgent first, in the order `SEVERITY_NAMES` lists them. */
const SEVERITY_RANK = Object.fromEntries(SEVERITY_NAMES.map((s, rank) => [s, rank])) as Readonly<
  Record<Severity, number>
>;
const STATUS_RANK: Readonly<Record<AlertStatus, number>> = { firing: 0, resolved: 1 };
/** Subject characters kept for the target list however long the rule name: the start of a name at least. */
const SUBJECT_TARGETS_MIN_CHARS = 16;
const MORE_TARGETS = ', ...';

// Code-unit order, not locale order: the same pages on every machine.
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const dataText = (text: string, max: number) => cleanReportText(text, { max, use: TEXT_USES.data });
const plural = (n: number, word: string) => `${n} ${n === 1 ? word : `${word}s`}`;

/** Firing before resolved, then target, then rule (the fingerprint breaks the last ties). */
function compareAlerts(a: NamedAlert, b: NamedAlert): number {
  return (
    STATUS_RANK[a.status] - STATUS_RANK[b.status] ||
    byText(a.member.target, b.member.target) ||
    byText(a.member.rule, b.member.rule) ||
    byText(a.member.fingerprint, b.member.fingerprint)
  );
}

/** The named alerts the group holds, in page order (`pagedOf` names members only). */
function namedAlerts(group: GroupState, paged: StatusByAlert): NamedAlert[] {
  const named: NamedAlert[] = [];
  for (const [fp, status] of Object.entries(paged)) {
    const member = group.members[fp];
    if (member !== undefined) named.push({ member, status, isNew: member.sentStatus !== status });
  }
  return named.sort(compareAlerts);
}

/** A Notification's reason: `update` is a first page about the alerts that joined. */
function notifyReasonOf(status: AlertStatus, reason: GroupPageInput['reason']): Notification['reason'] {
  if (status === 'resolved') return 'resolved';
  return reason === 'repeat' ? 'repeat' : 'first';
}

/** The item's own id: a continuation's differs from the first item's (`<id>-2`), so it is its own incident. */
const itemIdOf = (group: GroupState) => groupId(group.key, group.continuation);

function groupJson(group: GroupState): MessageGroup {
  const continuation = group.continuation ?? 0;
  return { id: itemIdOf(group), key: group.key, labels: group.labels, ...(continuation > 0 ? { continuation } : {}) };
}

/** A handed-over page as a reminder says it: `repeat`, evaluated now (only a firing page is repeated). */
function repeated(page: PublishedMessage, reason: Notification['reason'], now: Date): PublishedMessage {
  if (reason !== 'repeat' || page.status !== 'firing') return page;
  return { ...page, reason, evaluatedAt: now.toISOString() };
}

/** The alert's own page, as handed over, with the group it went to. */
function ownPage(input: GroupPageInput, alert: NamedAlert, latest: LatestPage): Notification {
  const m = alert.member;
  const reason = notifyReasonOf(alert.status, input.reason);
  // The alert's last page may be its first: a reminder says it is one, as the alert's own would.
  const reminder = reason === 'repeat' ? [`Reminder: still firing at ${input.now.toISOString()}`] : [];
  return {
    fingerprint: m.fingerprint,
    status: alert.status,
    reason,
    target: m.target,
    rule: m.rule,
    severity: m.severity,
    value: m.value,
    threshold: m.threshold,
    subject: latest.subject,
    message:
      reminder.length === 0
        ? latest.message
        : fitLines(
            [...latest.message.split('\n').filter((l) => !l.startsWith('Reminder: ')), ...reminder],
            MAX_TEXT_MESSAGE_BYTES,
          ).join('\n'),
    payload: { ...repeated(latest.payload, reason, input.now), group: groupJson(input.group) },
    labels: 'labels' in latest.payload ? latest.payload.labels : {},
    group: null,
  };
}

function pageFacts(alerts: readonly NamedAlert[]): PageFacts {
  const firing = alerts.filter((a) => a.status === 'firing');
  const status: AlertStatus = firing.length > 0 ? 'firing' : 'resolved';
  const headline = firing.length > 0 ? firing : alerts;
  const severity = headline
    .map((a) => a.member.severity)
    .reduce((top, s) => (SEVERITY_RANK[s] < SEVERITY_RANK[top] ? s : top), 'info');
  const rules = new Set(alerts.map((a) => a.member.rule));
  return {
    status,
    severity,
    rule: rules.size === 1 ? (alerts[0]?.member.rule ?? null) : null,
    rules: rules.size,
    targets: [...new Set(headline.map((a) => a.member.target))].sort(byText),
    counts: {
      firing: firing.length,
      resolved: alerts.length - firing.length,
      new: firing.filter((a) => a.isNew).length,
    },
  };
}

const ruleLabel = (facts: PageFacts) => facts.rule ?? `${facts.rules} rules`;
const targetLabel = (facts: PageFacts) =>
  facts.targets.length === 1 ? (facts.targets[0] as string) : `${facts.targets.length} targets`;
const capChars = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 3)}...`);

/** `web-1, web-2, ...` within `room` characters: whole names while they fit, else the first one cut. */
function fitTargets(targets: readonly string[], room: number): string {
  let shown = '';
  let count = 0;
  for (const target of targets) {
    const next = count === 0 ? target : `${shown}, ${target}`;
    const last = count === targets.length - 1;
    if (next.length + (last ? 0 : MORE_TARGETS.length) > room) break;
    shown = next;
    count++;
  }
  if (count === targets.length) return shown;
  return count === 0 ? capChars(targets[0] ?? '', room) : `${shown}${MORE_TARGETS}`;
}

/** `6 targets`; on a continuation `6 more targets` (the group's first page names others). */
const targetCount = (facts: PageFacts, continuation: number) =>
  plural(facts.targets.length, continuation > 0 ? 'more target' : 'target');

/**
 * `[FIRING critical] idle-slots-low on 6 targets: web-1, web-2, ... (2/3)`, under 100 ASCII
 * characters; a continuation's `... on 400 more targets: web-0600, ... (continuation 1)`.
 */
function buildSubject(facts: PageFacts, continuation: number, index: number, count: number): string {
  const named = continuation > 0 ? `continuation ${continuation}` : '';
  const split = count > 1 ? `${index}/${count}` : '';
  const suffix = named === '' && split === '' ? '' : ` (${[named, split].filter((t) => t !== '').join(', ')})`;
  const lead = `[${facts.status.toUpperCase()} ${facts.severity}] `;
  const on = ` on ${targetCount(facts, continuation)}: `;
  const ruleRoom = MAX_SUBJECT_CHARS - suffix.length - lead.length - on.length - SUBJECT_TARGETS_MIN_CHARS;
  const head = `${lead}${capChars(cleanSubjectText(ruleLabel(facts)), ruleRoom)}${on}`;
  const targets = fitTargets(facts.targets.map(cleanSubjectText), MAX_SUBJECT_CHARS - suffix.length - head.length);
  return `${head}${targets}${suffix}`;
}

/** `6 firing (2 new since the last page), 1 resolved`. */
function countsLine(counts: PageFacts['counts']): string {
  const parts: string[] = [];
  if (counts.firing > 0)
    parts.push(`${counts.firing} firing${counts.new > 0 ? ` (${counts.new} new since the last page)` : ''}`);
  if (counts.resolved > 0) parts.push(`${counts.resolved} resolved`);
  return parts.join(', ');
}

/** `  web-1  idle-slots-low  2 < 5  firing since <firedAt>  new` or `  web-7  idle-slots-low  now 9  resolved at <resolvedAt>`. */
function alertLine(alert: NamedAlert): string {
  const m = alert.member;
  const where = `  ${cleanConfigText(m.target, 200)}  ${cleanConfigText(m.rule, 200)}`;
  if (alert.status === 'resolved') return `${where}  now ${formatValue(m.value)}  resolved at ${m.resolvedAt ?? 'n/a'}`;
  const op = m.op === null ? '?' : cleanConfigText(m.op, 8);
  const line = `${where}  ${formatValue(m.value)} ${op} ${formatValue(m.threshold)}  firing since ${m.firedAt ?? 'n/a'}`;
  return alert.isNew ? `${line}  new` : line;
}

/** `Firing (6):` and its alerts; in a part, `Firing (350 of 1000):`. */
function sectionLines(title: string, alerts: readonly NamedAlert[], total: number, count: number): string[] {
  if (alerts.length === 0) return [];
  const shown = count > 1 ? `${alerts.length} of ${total}` : `${alerts.length}`;
  return [`${title} (${shown}):`, ...alerts.map(alertLine)];
}

/** Header, group, counts and (on a repeat) the reminder: the same in every part but for its number. */
function headLines(input: GroupPageInput, facts: PageFacts, index: number, count: number): string[] {
  const ofParts = count > 1 ? ` (part ${index} of ${count})` : '';
  const rule = cleanConfigText(ruleLabel(facts), 200);
  const continuation = input.group.continuation ?? 0;
  const lines = [
    `${facts.status.toUpperCase()} ${facts.severity}: ${rule} on ${targetCount(facts, continuation)}${ofParts}`,
  ];
  if (continuation > 0)
    lines.push(
      `Continuation ${continuation} of this group: it has more alerts than one group page holds; the group's first page and its other continuations name the others.`,
    );
  const labels = Object.entries(input.group.labels).map(
    ([k, v]) => `${cleanConfigText(k, 64)}=${cleanConfigText(v, 256)}`,
  );
  if (labels.length > 0) lines.push(`Group: ${labels.join(', ')}`);
  lines.push(countsLine(facts.counts));
  if (input.reason === 'repeat') lines.push(`Reminder: still firing at ${input.now.toISOString()}`);
  return lines;
}

/** The text of one part: the whole page's head, the part's own alerts, the newest firing alert's page. */
function buildMessage(
  input: GroupPageInput,
  facts: PageFacts,
  part: readonly NamedAlert[],
  index: number,
  count: number,
): string {
  const firing = part.filter((a) => a.status === 'firing');
  const resolved = part.filter((a) => a.status === 'resolved');
  const lines = [
    ...headLines(input, facts, index, count),
    ...sectionLines('Firing', firing, facts.counts.firing, count),
    ...sectionLines('Resolved', resolved, facts.counts.resolved, count),
  ];
  // The newest firing alert's own page says what it saw (offenders, scoreboard): worth the room left.
  const latest = input.group.latest;
  if (latest?.status === 'firing' && firing.some((a) => a.member.fingerprint === latest.fingerprint))
    lines.push('Newest alert in detail:', ...latest.message.split('\n'));
  return fitLines(lines, MAX_TEXT_MESSAGE_BYTES).join('\n');
}

function alertJson(alert: NamedAlert): GroupMessageAlert {
  const m = alert.member;
  return {
    fingerprint: m.fingerprint,
    status: alert.status,
    target: dataText(m.target, 200),
    rule: m.rule,
    severity: m.severity,
    metric: m.metric,
    op: m.op,
    value: m.value,
    threshold: m.threshold,
    firedAt: m.firedAt,
    resolvedAt: m.resolvedAt,
    new: alert.isNew,
  };
}

/**
 * The rule's runbook, from the newest page, when the page is about that one rule; its summary only
 * when the page is about that page's target alone (a summary is filled in for one target's value).
 */
function ruleTexts(latest: LatestPage | null, facts: PageFacts): { summary: string | null; runbook: string | null } {
  const p = latest?.payload;
  if (facts.rule === null || p === undefined || p.rule !== facts.rule) return { summary: null, runbook: null };
  const aboutThatTarget = facts.targets.length === 1 && 'target' in p && facts.targets[0] === p.target;
  const texts = 'summary' in p ? p : { summary: null, runbook: null };
  return { summary: aboutThatTarget ? texts.summary : null, runbook: texts.runbook };
}

/**
 * One part's payload. `reason` is the group's (`first`, `update`, `repeat`, `resolved`), which
 * says more than the Notification's; `counts` and `rule` are the whole page's, `alerts` the part's.
 */
function groupPayload(
  input: GroupPageInput,
  facts: PageFacts,
  part: { index: number; count: number },
  alerts: readonly GroupMessageAlert[],
): GroupMessage {
  return {
    version: 1,
    kind: 'group',
    status: facts.status,
    reason: input.reason,
    fingerprint: `group-${itemIdOf(input.group)}`,
    group: groupJson(input.group),
    severity: facts.severity,
    rule: facts.rule,
    evaluatedAt: input.now.toISOString(),
    counts: facts.counts,
    part,
    alerts,
    ...ruleTexts(input.group.latest, facts),
  };
}

/**
 * Items in order, greedily into parts of at most `maxBytes`: `baseBytes` plus each item's bytes
 * and a comma between two. A part holds one item at least.
 */
function packBySize<T>(items: readonly T[], bytesOf: (item: T) => number, baseBytes: number, maxBytes: number): T[][] {
  const parts: T[][] = [];
  let current: T[] = [];
  let used = baseBytes;
  for (const item of items) {
    const bytes = bytesOf(item);
    if (current.length > 0 && used + 1 + bytes > maxBytes) {
      parts.push(current);
      current = [];
      used = baseBytes;
    }
    used += (current.length > 0 ? 1 : 0) + bytes;
    current.push(item);
  }
  if (current.length > 0) parts.push(current);
  return parts;
}

/** The grouped page, in as many parts as its alerts need, each part's payload within `MAX_PAYLOAD_BYTES`. */
function groupedPages(input: GroupPageInput, alerts: readonly NamedAlert[]): Notification[] {
  const facts = pageFacts(alerts);
  const entries = alerts.map((alert) => ({ alert, json: alertJson(alert) }));
  // Measured with part numbers as long as they can get (no more parts than alerts).
  const most = { index: alerts.length, count: alerts.length };
  const baseBytes = payloadBytes(groupPayload(input, facts, most, []));
  const parts = packBySize(entries, (e) => payloadBytes(e.json), baseBytes, MAX_PAYLOAD_BYTES - ORDER_FIELD_BYTES);
  const first = alerts[0]?.member;
  return parts.map((part, i) => {
    const index = i + 1;
    const named = part.map((e) => e.alert);
    return {
      fingerprint: `group-${itemIdOf(input.group)}`,
      status: facts.status,
      reason: notifyReasonOf(facts.status, input.reason),
      target: targetLabel(facts),
      rule: ruleLabel(facts),
      severity: facts.severity,
      value: null,
      threshold: first?.threshold ?? 0,
      subject: buildSubject(facts, input.group.continuation ?? 0, index, parts.length),
      message: buildMessage(input, facts, named, index, parts.length),
      payload: groupPayload(
        input,
        facts,
        { index, count: parts.length },
        part.map((e) => e.json),
      ),
      labels: { ...input.group.labels },
      group: null,
    };
  });
}

/**
 * The pages a group sends now: the alert's own page when the page names one alert and the group's
 * newest page is that alert's with the same status (and still fits with the group added), else a
 * grouped page in one or more parts. No named alert the group holds: no page.
 *
 * @example
 * buildGroupPages({ group, paged: pagedOf(group), reason: 'first', now })[0]?.subject
 * // '[FIRING critical] idle-slots-low on 6 targets: web-1, web-2, web-3, web-4, web-5, web-6'
 */
function buildGroupPages(input: GroupPageInput): Notification[] {
  const pages = unorderedGroupPages(input);
  const { order } = input;
  return order === undefined ? pages : pages.map((page, i) => withOrder(page, order + i));
}

function unorderedGroupPages(input: GroupPageInput): Notification[] {
  const alerts = namedAlerts(input.group, input.paged);
  const only = alerts.length === 1 ? alerts[0] : undefined;
  const latest = input.group.latest;
  if (only !== undefined && latest?.fingerprint === only.member.fingerprint && latest.status === only.status) {
    const own = ownPage(input, only, latest);
    if (payloadBytes(own.payload) <= MAX_PAYLOAD_BYTES - ORDER_FIELD_BYTES) return [own];
  }
  return alerts.length === 0 ? [] : groupedPages(input, alerts);
}

export type { GroupPageInput };
export { buildGroupPages };
