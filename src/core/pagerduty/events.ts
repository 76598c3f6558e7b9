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

import { type AlertFacts, type AlertPage, type GroupFacts, isObject, readAlertPage } from '../message/readMessage.ts';
import { formatValue } from '../notify/format.ts';
import type { Severity } from '../rules/types.ts';
import { cleanSubjectText } from '../text/sanitize.ts';

/** https://developer.pagerduty.com/docs/events-api-v2/trigger-events/ */
const PAGERDUTY_ACTIONS = { trigger: 'trigger', resolve: 'resolve' } as const;
type PagerDutyAction = (typeof PAGERDUTY_ACTIONS)[keyof typeof PAGERDUTY_ACTIONS];

/** One PagerDuty event per alert group (the default), or per alert (`-c pagerDutyEventsPer=alert`). */
const EVENTS_PER = { group: 'group', alert: 'alert' } as const;
type EventsPer = (typeof EVENTS_PER)[keyof typeof EVENTS_PER];

/** The Events API's limit of `payload.summary`'s length. */
const MAX_SUMMARY_CHARS = 1024;
/** What the events name as their sender (`client`). */
const PAGERDUTY_CLIENT = 'httpd-status-alerts';
const MORE_TARGETS = ', ...';

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

export type { EventsPer, OrderedEvent, PagerDutyAction, PagerDutyEvent };
export {
  alertEvent,
  cut,
  EVENTS_PER,
  eventsOfPage,
  linksOf,
  MAX_SUMMARY_CHARS,
  PAGERDUTY_ACTIONS,
  PAGERDUTY_CLIENT,
  pageOrderOf,
  pagerDutyEvents,
  titleOf,
};
