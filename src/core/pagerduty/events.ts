/**
 * PagerDuty Events API v2 events from the JSON variant of a published message (what SNS hands an
 * SQS or Lambda subscriber). Two mappings, chosen at deploy time (`pagerDutyEventsPer`):
 * - `group` (the default, as Alertmanager): one incident per alert group. A grouped page
 *   (`kind: "group"`) is one event keyed by its group (`group-<id>`); a page about one alert of a
 *   group is keyed by that group too, so the group's later updates and its resolve reach the
 *   incident its first page opened. An alert outside any group is keyed by its fingerprint.
 * - `alert`: one event per alert of the message, its fingerprint the `dedup_key`.
 * Either way a resolve closes exactly the incident its trigger opened. Each event carries the
 * page's `order` (when the page has one) and its part, so the forwarder can drop what is older than
 * accepted while taking every part of one page: a group's event carries the page's order whichever
 * part it comes from (`pageOrderOf`), so the parts add to one incident and none makes another stale.
 */

import { describeInput } from '../errors.ts';
import { PAYLOAD_REPORT_TEXT } from '../notify/build.ts';
import { formatValue } from '../notify/format.ts';
import { SEVERITY_NAMES, type Severity } from '../rules/types.ts';
import { cleanJsonForPeople, cleanSubjectText } from '../text/sanitize.ts';

/** https://developer.pagerduty.com/docs/events-api-v2/trigger-events/ */
const PAGERDUTY_ACTIONS = { trigger: 'trigger', resolve: 'resolve' } as const;
type PagerDutyAction = (typeof PAGERDUTY_ACTIONS)[keyof typeof PAGERDUTY_ACTIONS];

/** One PagerDuty event per alert group (the default), or per alert (`-c pagerDutyEventsPer=alert`). */
const EVENTS_PER = { group: 'group', alert: 'alert' } as const;
type EventsPer = (typeof EVENTS_PER)[keyof typeof EVENTS_PER];

/** The Events API's limits: `payload.summary` and `dedup_key` lengths. */
const MAX_SUMMARY_CHARS = 1024;
const MAX_DEDUP_KEY_CHARS = 255;
/** What the events name as their sender (`client`). */
const PAGERDUTY_CLIENT = 'httpd-status-alerts';
const MORE_TARGETS = ', ...';

/** The per-alert facts the mapping reads; everything else of the alert rides in `custom_details`. */
interface AlertFacts {
  fingerprint: string;
  status: 'firing' | 'resolved';
  target: string;
  rule: string;
  severity: Severity;
  /** The whole alert object as published (labels, offenders, runbook, down, ...), cleaned for people (`detailsOf`). */
  details: Record<string, unknown>;
}

/** What a grouped page (`kind: "group"`) says about the whole page. */
interface GroupFacts {
  /** `group-<id>`: the page's own fingerprint. */
  fingerprint: string;
  status: 'firing' | 'resolved';
  severity: Severity;
  /** The rule when every alert has the same one, else null. */
  rule: string | null;
  counts: { firing: number; resolved: number };
  part: { index: number; count: number };
  /** The whole page as published, cleaned for people (`detailsOf`). */
  details: Record<string, unknown>;
}

/** One message read: its alerts, and what the forwarder needs to key and order its events. */
interface AlertPage {
  alerts: AlertFacts[];
  /** Present on a grouped page only. */
  group: GroupFacts | null;
  /** `group-<id>` of the group the page belongs to (grouped or one alert's own page), else null. */
  groupKey: string | null;
  /**
   * The order the message carries (epoch ms, strictly increasing per alert or group; part i of a
   * page in parts carries the page's order plus i - 1, see `pageOrderOf`); null on older messages.
   */
  order: number | null;
  /** The part of a grouped page (1 otherwise). */
  part: number;
}

interface PagerDutyEvent {
  routing_key: string;
  event_action: PagerDutyAction;
  dedup_key: string;
  client: string;
  payload: {
    summary: string;
    source: string;
    severity: Severity;
    timestamp?: string;
    component: string;
    class: string;
    custom_details: Record<string, unknown>;
  };
  links?: { href: string; text: string }[];
}

/** An event with what the forwarder orders it by. */
interface OrderedEvent {
  event: PagerDutyEvent;
  order: number | null;
  part: number;
}

/** The SNS message is not the JSON variant of an alert message. */
class PagerDutyMessageError extends Error {
  constructor(problem: string, options?: ErrorOptions) {
    super(`expected the JSON variant of an httpd-status-alerts message, ${problem}`, options);
    this.name = 'PagerDutyMessageError';
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(alert: Record<string, unknown>, field: string, where: string): string {
  const value = alert[field];
  if (typeof value !== 'string' || value === '')
    throw new PagerDutyMessageError(`${where}.${field}: expected a non-empty string, found ${JSON.stringify(value)}`);
  return value;
}

function dedupKeyText(object: Record<string, unknown>, field: string, where: string): string {
  const value = text(object, field, where);
  if (value.length > MAX_DEDUP_KEY_CHARS)
    throw new PagerDutyMessageError(
      `${where}.${field}: expected at most ${MAX_DEDUP_KEY_CHARS} characters, found ${value.length}`,
    );
  return value;
}

function statusOf(object: Record<string, unknown>, where: string): 'firing' | 'resolved' {
  const status = object.status;
  if (status !== 'firing' && status !== 'resolved')
    throw new PagerDutyMessageError(`${where}.status: expected firing or resolved, found ${JSON.stringify(status)}`);
  return status;
}

function severityOf(object: Record<string, unknown>, where: string): Severity {
  const severity = SEVERITY_NAMES.find((s) => s === object.severity);
  if (severity === undefined)
    throw new PagerDutyMessageError(
      `${where}.severity: expected one of ${SEVERITY_NAMES.join(', ')}, found ${JSON.stringify(object.severity)}`,
    );
  return severity;
}

/**
 * What an event's `custom_details` shows of a published object. People read these fields, in
 * renderers the monitor does not control (PagerDuty's apps, what its chat and e-mail integrations
 * carry), and the Events API has no way to mark a field untrusted; so the report text in them
 * (offenders, a failure detail) is cleaned as the text page cleans it, the other values as data
 * (`cleanJsonForPeople`). Cleaned once, where the message is read.
 */
const detailsOf = (published: Record<string, unknown>) =>
  cleanJsonForPeople(published, PAYLOAD_REPORT_TEXT) as Record<string, unknown>;

function readAlert(alert: unknown, where: string): AlertFacts {
  if (!isObject(alert)) throw new PagerDutyMessageError(`${where}: expected an object, found ${JSON.stringify(alert)}`);
  const fingerprint = dedupKeyText(alert, 'fingerprint', where);
  const status = statusOf(alert, where);
  const severity = severityOf(alert, where);
  return {
    fingerprint,
    status,
    target: text(alert, 'target', where),
    rule: text(alert, 'rule', where),
    severity,
    details: detailsOf(alert),
  };
}

function wholeAtLeast(value: unknown, min: number, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
    throw new PagerDutyMessageError(`${where}: expected a whole number from ${min}, found ${JSON.stringify(value)}`);
  return value;
}

/** The page's `order`: absent (an older message) or a whole number of milliseconds. */
function orderOf(page: Record<string, unknown>): number | null {
  return page.order === undefined ? null : wholeAtLeast(page.order, 0, 'message.order');
}

function readGroupFacts(page: Record<string, unknown>): GroupFacts {
  const counts = isObject(page.counts) ? page.counts : {};
  const part = isObject(page.part) ? page.part : { index: 1, count: 1 };
  const rule = page.rule;
  if (rule !== null && (typeof rule !== 'string' || rule === ''))
    throw new PagerDutyMessageError(`message.rule: expected a rule name or null, found ${JSON.stringify(rule)}`);
  return {
    fingerprint: dedupKeyText(page, 'fingerprint', 'message'),
    status: statusOf(page, 'message'),
    severity: severityOf(page, 'message'),
    rule,
    counts: {
      firing: wholeAtLeast(counts.firing, 0, 'message.counts.firing'),
      resolved: wholeAtLeast(counts.resolved, 0, 'message.counts.resolved'),
    },
    part: {
      index: wholeAtLeast(part.index, 1, 'message.part.index'),
      count: wholeAtLeast(part.count, 1, 'message.part.count'),
    },
    details: detailsOf(page),
  };
}

/** `group-<id>` of the group a page about one alert went to, when it names one. */
function groupKeyOf(page: Record<string, unknown>): string | null {
  const group = page.group;
  if (!isObject(group)) return null;
  const id = dedupKeyText(group, 'id', 'message.group');
  return `group-${id}`.slice(0, MAX_DEDUP_KEY_CHARS);
}

/**
 * One message: `{ kind: "group", alerts: [...] }` (a grouped page), `{ alerts: [...] }` (alerts
 * without a group's facts) or one alert's own object.
 *
 * @example readAlertPage('{"fingerprint":"3f2a...","status":"firing",...,"order":1764000000000}').order // 1764000000000
 * @throws PagerDutyMessageError saying which field was wrong and what it held
 */
function readAlertPage(message: string): AlertPage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch (error) {
    throw new PagerDutyMessageError(`found ${describeInput(message)}`, { cause: error });
  }
  if (!isObject(parsed)) throw new PagerDutyMessageError(`found ${describeInput(message)}`);
  const order = orderOf(parsed);
  if (!('alerts' in parsed)) {
    const alert = readAlert(parsed, 'message');
    return { alerts: [alert], group: null, groupKey: groupKeyOf(parsed), order, part: 1 };
  }
  if (!Array.isArray(parsed.alerts))
    throw new PagerDutyMessageError(`message.alerts: expected an array, found ${JSON.stringify(parsed.alerts)}`);
  const alerts = parsed.alerts.map((alert, i) => readAlert(alert, `message.alerts[${i}]`));
  const group = parsed.kind === 'group' ? readGroupFacts(parsed) : null;
  return { alerts, group, groupKey: group?.fingerprint ?? null, order, part: group?.part.index ?? 1 };
}

/**
 * The order of the page a part belongs to: part i of a page carries the page's order plus i - 1
 * (the monitor's split, so every message has an order of its own), and the events the parts share
 * (a group's incident, per alert the overflow's) carry the page's: the forwarder then takes each
 * part at that one order (`other-part`) and none makes another stale.
 */
const pageOrderOf = (page: AlertPage): number | null => (page.order === null ? null : page.order - (page.part - 1));

/** Cuts to `max` UTF-16 units without leaving half a surrogate pair. */
function cut(value: string, max: number): string {
  if (value.length <= max) return value;
  const end = max - 3;
  const code = value.charCodeAt(end - 1);
  return `${value.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end)}...`;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** What the page says about the value: `0.031 < 0.05`, `now 3`, or the failure of a target that is down. */
function detailOf(alert: AlertFacts): string {
  const d = alert.details;
  if (alert.status === 'resolved') return `now ${formatValue(num(d.value))}`;
  const down = d.down;
  if (isObject(down) && typeof down.reason === 'string' && d.metric === 'target_up') return down.reason;
  return `${formatValue(num(d.value))} ${typeof d.op === 'string' ? d.op : '?'} ${formatValue(num(d.threshold))}`;
}

/**
 * The incident title, within the Events API's 1,024 characters:
 * `[FIRING critical] web-1: idle-slots-low (0.031 < 0.05): <rule summary>`.
 */
function summaryOf(alert: AlertFacts): string {
  const head = `[${alert.status.toUpperCase()} ${alert.severity}] ${cleanSubjectText(alert.target)}: ${cleanSubjectText(alert.rule)} (${cleanSubjectText(detailOf(alert))})`;
  const summary = alert.details.summary;
  return cut(typeof summary === 'string' && summary !== '' ? `${head}: ${summary}` : head, MAX_SUMMARY_CHARS);
}

function linksOf(details: Record<string, unknown>): { href: string; text: string }[] {
  const runbook = details.runbook;
  return typeof runbook === 'string' && /^https?:\/\//.test(runbook) ? [{ href: runbook, text: 'Runbook' }] : [];
}

function timestampOf(alert: AlertFacts): string | undefined {
  const at = alert.status === 'resolved' ? alert.details.resolvedAt : alert.details.firedAt;
  return typeof at === 'string' && at !== '' ? at : undefined;
}

const actionOf = (status: 'firing' | 'resolved'): PagerDutyAction =>
  status === 'resolved' ? PAGERDUTY_ACTIONS.resolve : PAGERDUTY_ACTIONS.trigger;

/** The alert's own event: `trigger` while firing (a repeat adds to the open incident), `resolve` when resolved. */
function alertEvent(alert: AlertFacts, routingKey: string, dedupKey: string): PagerDutyEvent {
  const timestamp = timestampOf(alert);
  const links = linksOf(alert.details);
  return {
    routing_key: routingKey,
    event_action: actionOf(alert.status),
    dedup_key: dedupKey,
    client: PAGERDUTY_CLIENT,
    payload: {
      summary: summaryOf(alert),
      source: alert.target,
      severity: alert.severity,
      ...(timestamp === undefined ? {} : { timestamp }),
      component: alert.target,
      class: alert.rule,
      custom_details: alert.details,
    },
    ...(links.length > 0 ? { links } : {}),
  };
}

/** `6 firing, 1 resolved`. */
function countsText(counts: GroupFacts['counts']): string {
  const parts: string[] = [];
  if (counts.firing > 0) parts.push(`${counts.firing} firing`);
  if (counts.resolved > 0) parts.push(`${counts.resolved} resolved`);
  return parts.join(', ');
}

/** `web-1, web-2, ...` in `room` characters: whole names while they fit, at least the start of the first. */
function targetList(targets: readonly string[], room: number): string {
  let shown = '';
  for (const [i, target] of targets.entries()) {
    const next = i === 0 ? target : `${shown}, ${target}`;
    const last = i === targets.length - 1;
    if (next.length + (last ? 0 : MORE_TARGETS.length) > room)
      return i === 0 ? cut(target, room) : `${shown}${MORE_TARGETS}`;
    shown = next;
  }
  return shown;
}

/**
 * A title of many targets: `[FIRING critical] idle-slots-low: 6 firing, 1 resolved (part 2 of 3): web-1, web-2, ...`
 * (`what` after the rule), the targets listed in what is left of 1,024 characters.
 */
function titleOf(
  status: string,
  severity: Severity,
  rule: string,
  what: string,
  part: { index: number; count: number },
  targets: readonly string[],
): string {
  const ofParts = part.count > 1 ? ` (part ${part.index} of ${part.count})` : '';
  const head = `[${status.toUpperCase()} ${severity}] ${cut(cleanSubjectText(rule), 200)}: ${what}${ofParts}: `;
  return `${head}${targetList(targets, MAX_SUMMARY_CHARS - head.length)}`;
}

/**
 * A grouped page's title: `[FIRING critical] idle-slots-low: 6 firing, 1 resolved: web-1, web-2, ...`,
 * the targets those of the page's status in this part, within 1,024 characters.
 */
function groupSummaryOf(group: GroupFacts, alerts: readonly AlertFacts[]): string {
  const rule = group.rule === null ? `${new Set(alerts.map((a) => a.rule)).size} rules` : group.rule;
  const targets = [...new Set(alerts.filter((a) => a.status === group.status).map((a) => cleanSubjectText(a.target)))];
  return titleOf(group.status, group.severity, rule, countsText(group.counts), group.part, targets);
}

/** One event for a grouped page, keyed by its group; `custom_details` is the page (every alert of the part). */
function groupEvent(group: GroupFacts, alerts: readonly AlertFacts[], routingKey: string): PagerDutyEvent {
  const targets = new Set(alerts.map((a) => a.target));
  const source = targets.size === 1 ? (alerts[0]?.target ?? '') : `${targets.size} targets`;
  const evaluatedAt = group.details.evaluatedAt;
  const links = linksOf(group.details);
  return {
    routing_key: routingKey,
    event_action: actionOf(group.status),
    dedup_key: group.fingerprint,
    client: PAGERDUTY_CLIENT,
    payload: {
      summary: groupSummaryOf(group, alerts),
      source,
      severity: group.severity,
      ...(typeof evaluatedAt === 'string' && evaluatedAt !== '' ? { timestamp: evaluatedAt } : {}),
      component: source,
      class: group.rule ?? `${new Set(alerts.map((a) => a.rule)).size} rules`,
      custom_details: group.details,
    },
    ...(links.length > 0 ? { links } : {}),
  };
}

/**
 * The events of one page read by `readAlertPage`, with its order.
 *
 * @example eventsOfPage(readAlertPage(message), key, EVENTS_PER.group)[0]?.event.dedup_key // 'group-5f1c...'
 */
function eventsOfPage(page: AlertPage, routingKey: string, per: EventsPer): OrderedEvent[] {
  const ordered = (event: PagerDutyEvent, order = page.order): OrderedEvent => ({ event, order, part: page.part });
  // Every part of a page adds to the group's one incident: at the page's order, none is stale.
  if (per === EVENTS_PER.group && page.group !== null)
    return page.alerts.length === 0
      ? []
      : [ordered(groupEvent(page.group, page.alerts, routingKey), pageOrderOf(page))];
  if (per === EVENTS_PER.group && page.group === null && page.groupKey !== null && page.alerts.length === 1) {
    const [only] = page.alerts as [AlertFacts];
    return [ordered(alertEvent(only, routingKey, page.groupKey))];
  }
  return page.alerts.map((alert) => ordered(alertEvent(alert, routingKey, alert.fingerprint)));
}

/**
 * The Events API v2 events of one message (see the file's head for the two mappings).
 *
 * @example
 * pagerDutyEvents('{"fingerprint":"3f2a...","status":"resolved","target":"web-1",...}', key, EVENTS_PER.alert)[0].event_action
 * // 'resolve'
 * @throws PagerDutyMessageError when the message is not an alert message
 */
function pagerDutyEvents(message: string, routingKey: string, per: EventsPer): PagerDutyEvent[] {
  return eventsOfPage(readAlertPage(message), routingKey, per).map((e) => e.event);
}

export type { AlertFacts, AlertPage, EventsPer, GroupFacts, OrderedEvent, PagerDutyAction, PagerDutyEvent };
export {
  alertEvent,
  cut,
  EVENTS_PER,
  eventsOfPage,
  isObject,
  linksOf,
  MAX_DEDUP_KEY_CHARS,
  MAX_SUMMARY_CHARS,
  PAGERDUTY_ACTIONS,
  PAGERDUTY_CLIENT,
  PagerDutyMessageError,
  pageOrderOf,
  pagerDutyEvents,
  readAlertPage,
  titleOf,
};
