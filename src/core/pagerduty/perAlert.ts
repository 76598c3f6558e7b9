/**
 * One PagerDuty incident per alert (`-c pagerDutyEventsPer=alert`) within the Events API's rate
 * limit: a group gives an incident of its own to at most `PAGERDUTY_OWN_INCIDENTS_PER_GROUP` of its
 * firing alerts and coalesces the rest into ONE overflow incident (`group-<id>-more`), so a fleet
 * incident costs the bound plus one event, not one per target. The seats are remembered per group
 * by the forwarder (its state table): an alert keeps its seat while it fires, and a free seat
 * goes to the firing alert that fired first. So a newcomer never pushes out an alert whose
 * incident is open; and every resolved alert's resolve is sent when its key was triggered, so no
 * incident is left without the resolve that closes it, whoever holds the seats.
 * An alert outside any group is its own incident, as before.
 */

import { type AlertFacts, type AlertPage, isObject, MAX_DEDUP_KEY_CHARS } from '../message/readMessage.ts';
import { SEVERITY_NAMES, type Severity } from '../rules/types.ts';
import { cleanSubjectText } from '../text/sanitize.ts';
import {
  alertEvent,
  cut,
  linksOf,
  type OrderedEvent,
  PAGERDUTY_ACTIONS,
  PAGERDUTY_CLIENT,
  type PagerDutyEvent,
  pageOrderOf,
  titleOf,
} from './events.ts';

/** Why a firing alert has an incident of its own, or shares the overflow incident. */
const INCIDENT_REASONS = {
  /** It holds one of its group's seats already: it keeps it. */
  kept: 'kept',
  /** A seat is free and no alert that fired earlier is waiting for it. */
  room: 'room',
  /** Every seat is held: it is listed in the group's overflow incident. */
  full: 'full',
} as const;
type IncidentReason = (typeof INCIDENT_REASONS)[keyof typeof INCIDENT_REASONS];

/** A firing alert's incident: its own unless `reason` is `full` (then the group's overflow incident). */
interface IncidentAssignment {
  fingerprint: string;
  reason: IncidentReason;
}

const OVERFLOW_SUFFIX = '-more';
/** Most urgent first, in the order `SEVERITY_NAMES` lists them. */
const SEVERITY_RANK = Object.fromEntries(SEVERITY_NAMES.map((s, rank) => [s, rank])) as Readonly<
  Record<Severity, number>
>;

/** `group-<id>-more`: the group's overflow incident. */
const overflowKeyOf = (groupKey: string) =>
  `${groupKey.slice(0, MAX_DEDUP_KEY_CHARS - OVERFLOW_SUFFIX.length)}${OVERFLOW_SUFFIX}`;

/** When the alert started firing (epoch ms), or +Infinity when the page does not say. */
function firedAtMs(alert: AlertFacts): number {
  const at = alert.details.firedAt;
  const ms = typeof at === 'string' ? Date.parse(at) : Number.NaN;
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}

// Code-unit order, not locale order: the same ranking on every machine.
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The page's firing alerts, earliest fired first (the fingerprint breaks ties): the order in which
 * they take free seats, so an alert that joined later never takes one before an earlier one.
 *
 * @example rankFiring(page.alerts).map((a) => a.target) // ['web-7', 'web-1', ...] (web-7 fired first)
 */
function rankFiring(alerts: readonly AlertFacts[]): AlertFacts[] {
  return alerts
    .filter((a) => a.status === 'firing')
    .map((alert) => ({ alert, at: firedAtMs(alert) }))
    .sort((a, b) => (a.at === b.at ? byText(a.alert.fingerprint, b.alert.fingerprint) : a.at < b.at ? -1 : 1))
    .map((r) => r.alert);
}

/** The seats the page frees: those of its resolved alerts. */
function freedBy(alerts: readonly AlertFacts[], held: ReadonlySet<string>): string[] {
  return alerts.filter((a) => a.status === 'resolved' && held.has(a.fingerprint)).map((a) => a.fingerprint);
}

/**
 * Which firing alerts of the page have an incident of their own and which go to the overflow,
 * given the seats the group's alerts hold once the page's are freed (`held`, possibly alerts of
 * other parts of the page; see `freedBy`) and the bound: holders keep theirs, free seats go in
 * rank order, the rest overflow.
 *
 * @example assignIncidents(page.alerts, new Set(['fp-a']), 2)
 * // [{ fingerprint: 'fp-a', reason: 'kept' }, { fingerprint: 'fp-b', reason: 'room' }, { fingerprint: 'fp-c', reason: 'full' }]
 */
function assignIncidents(
  alerts: readonly AlertFacts[],
  held: ReadonlySet<string>,
  bound: number,
): IncidentAssignment[] {
  let free = Math.max(0, bound - held.size);
  return rankFiring(alerts).map(({ fingerprint }) => {
    if (held.has(fingerprint)) return { fingerprint, reason: INCIDENT_REASONS.kept };
    if (free > 0) {
      free--;
      return { fingerprint, reason: INCIDENT_REASONS.room };
    }
    return { fingerprint, reason: INCIDENT_REASONS.full };
  });
}

const highestSeverity = (alerts: readonly AlertFacts[]): Severity =>
  alerts.map((a) => a.severity).reduce((top, s) => (SEVERITY_RANK[s] < SEVERITY_RANK[top] ? s : top), 'info');

/** The rule when every alert has the same one, else `<n> rules`. */
function ruleLabel(alerts: readonly AlertFacts[]): string {
  const rules = [...new Set(alerts.map((a) => a.rule))];
  return rules.length === 1 ? (rules[0] as string) : `${rules.length} rules`;
}

/** What the overflow event says about the group and the page. */
function pageContext(page: AlertPage): Record<string, unknown> {
  const group = page.group?.details.group ?? page.alerts[0]?.details.group;
  return {
    ...(isObject(group) ? { group } : {}),
    ...(page.group === null ? {} : { counts: page.group.counts, part: page.group.part }),
  };
}

/**
 * The overflow incident's trigger: `[FIRING warning] closing-pileup: 880 more targets: web-0120, ...`
 * (`(part 2 of 9)` on a page in parts, which lists the part's alerts, as a group's own event does).
 */
function overflowTrigger(page: AlertPage, groupKey: string, overflow: readonly AlertFacts[], routingKey: string) {
  const targets = [...new Set(overflow.map((a) => cleanSubjectText(a.target)))];
  const rule = ruleLabel(overflow);
  const severity = highestSeverity(overflow);
  const count = `${targets.length} more ${targets.length === 1 ? 'target' : 'targets'}`;
  const source = targets.length === 1 ? (overflow[0]?.target ?? '') : `${targets.length} targets`;
  const evaluatedAt = page.group?.details.evaluatedAt;
  const links = new Set(overflow.map((a) => a.rule)).size === 1 ? linksOf(overflow[0]?.details ?? {}) : [];
  const event: PagerDutyEvent = {
    routing_key: routingKey,
    event_action: PAGERDUTY_ACTIONS.trigger,
    dedup_key: overflowKeyOf(groupKey),
    client: PAGERDUTY_CLIENT,
    payload: {
      summary: titleOf('firing', severity, rule, count, page.group?.part ?? { index: 1, count: 1 }, targets),
      source,
      severity,
      ...(typeof evaluatedAt === 'string' && evaluatedAt !== '' ? { timestamp: evaluatedAt } : {}),
      component: source,
      class: rule,
      custom_details: {
        ...pageContext(page),
        overflow: { alerts: overflow.length, targets: targets.length },
        alerts: overflow.map((a) => a.details),
      },
    },
    ...(links.length > 0 ? { links } : {}),
  };
  return event;
}

/** The overflow incident's resolve: none of the alerts it listed fires any more. */
function overflowResolve(page: AlertPage, groupKey: string, routingKey: string): PagerDutyEvent {
  const rule = ruleLabel(page.alerts);
  const severity = highestSeverity(page.alerts);
  const source = `${new Set(page.alerts.map((a) => a.target)).size} targets`;
  return {
    routing_key: routingKey,
    event_action: PAGERDUTY_ACTIONS.resolve,
    dedup_key: overflowKeyOf(groupKey),
    client: PAGERDUTY_CLIENT,
    payload: {
      summary: `[RESOLVED ${severity}] ${cut(cleanSubjectText(rule), 200)}: no more targets firing`,
      source,
      severity,
      component: source,
      class: rule,
      custom_details: pageContext(page),
    },
  };
}

/**
 * What the parts of a page forwarded so far say about the rest of it (per-alert mode, a page with
 * an order): the firing alerts other parts listed (`pageEntry`, read back by `alertOfEntry`), those
 * of them that took a seat freed by this part (`promoted`: this part triggers their incidents), and
 * whether every firing alert of the page is known (`complete`: the page's counts are reached).
 */
interface PageView {
  others: AlertFacts[];
  promoted: ReadonlySet<string>;
  complete: boolean;
}

/** What the ledger keeps of a firing alert listed by one part of a page, enough to trigger or list it. */
const pageEntry = (a: AlertFacts): string =>
  JSON.stringify([a.fingerprint, a.target, a.rule, a.severity, a.details.firedAt ?? null]);

/** A firing alert another part of the page listed (`pageEntry`), its details those few facts. */
function alertOfEntry(entry: string): AlertFacts {
  const [fingerprint, target, rule, severity, firedAt] = JSON.parse(entry) as [
    string,
    string,
    string,
    Severity,
    unknown,
  ];
  const details = {
    fingerprint,
    status: 'firing',
    target,
    rule,
    severity,
    firedAt,
    listedBy: 'another part of the page',
  };
  return { fingerprint, status: 'firing', target, rule, severity, details };
}

/**
 * The events of one page of a group (its key `groupKey`) in per-alert mode, given the firing
 * alerts that have an incident of their own (`own`, from `assignIncidents` and the seats taken)
 * and, when known, what the page's other parts listed (`view`):
 * - a trigger for each of those of this part, and of other parts' alerts given a seat this part
 *   freed (`view.promoted`), keyed by its fingerprint;
 * - a resolve for every resolved alert, keyed by its fingerprint (the forwarder sends only those
 *   PagerDuty accepted a trigger for);
 * - the overflow incident, at the page's order (`pageOrderOf`): a trigger listing every firing
 *   alert of the page known without an incident of its own (this part's and the others listed),
 *   or, when none fires, a resolve, but only when the whole page is known: a page in one part,
 *   every firing alert of the page listed (`view.complete`), or the group resolved as a whole. A
 *   part holding only resolved alerts of a firing group says nothing of the overflow. A page
 *   without an order (published before orders) never resolves it.
 *
 * @example perAlertEvents(page, page.groupKey, new Set(['fp-a']), key).map((e) => e.event.dedup_key)
 * // ['fp-a', 'group-5f1c...-more']
 */
function perAlertEvents(
  page: AlertPage,
  groupKey: string,
  own: ReadonlySet<string>,
  routingKey: string,
  view?: PageView,
): OrderedEvent[] {
  const ordered = (event: PagerDutyEvent, order = page.order): OrderedEvent => ({ event, order, part: page.part });
  const events: OrderedEvent[] = [];
  const overflow: AlertFacts[] = [];
  for (const alert of page.alerts) {
    const fp = alert.fingerprint;
    if (alert.status === 'resolved' || own.has(fp)) events.push(ordered(alertEvent(alert, routingKey, fp)));
    else overflow.push(alert);
  }
  for (const alert of view?.others ?? []) {
    if (view?.promoted.has(alert.fingerprint)) events.push(ordered(alertEvent(alert, routingKey, alert.fingerprint)));
    else if (!own.has(alert.fingerprint)) overflow.push(alert);
  }
  const overflowOrder = view === undefined ? page.order : pageOrderOf(page);
  const wholePage = (page.group?.part.count ?? 1) === 1;
  const groupResolved =
    page.group === null ? page.alerts.every((a) => a.status === 'resolved') : page.group.status === 'resolved';
  const knowsAll = wholePage || groupResolved || view?.complete === true;
  if (overflow.length > 0) events.push(ordered(overflowTrigger(page, groupKey, overflow, routingKey), overflowOrder));
  else if (page.order !== null && page.alerts.length > 0 && knowsAll)
    events.push(ordered(overflowResolve(page, groupKey, routingKey), overflowOrder));
  return events;
}

export type { IncidentAssignment, IncidentReason, PageView };
export {
  alertOfEntry,
  assignIncidents,
  freedBy,
  INCIDENT_REASONS,
  overflowKeyOf,
  pageEntry,
  perAlertEvents,
  rankFiring,
};
