/**
 * The discovery alert of one discovery parameter: one page when its source starts failing to list
 * (which source, why, since when), none while it keeps failing for another reason, one resolve
 * when it lists again; and, beside it in the same item, one page when instances it lists are left
 * out because their target name is taken (which names, held by what), one resolve when none is.
 * Kept in a state item of its own (`STATE_KEYS.discoveryAlert`) and published through the claim
 * machine, as the configuration alert is.
 */

import type { AlertRecord, Notification, TargetState } from '../alerts/types.ts';
import type { DiscoverySourceName } from '../discovery/document.ts';
import type { NameCollision } from '../discovery/join.ts';
import type { ListingFailure } from '../discovery/listing.ts';
import type { ConfigAlertMessage } from '../message/alertMessage.ts';
import { cleanConfigText } from '../text/sanitize.ts';

const DISCOVERY_ALERT_RULE = 'discovery-failing';
/** The alert of a document some of whose instances are left out because their target name is taken. */
const DISCOVERY_NAMES_RULE = 'discovery-names-taken';
const MAX_DETAIL_CHARS = 300;
/** Collisions named in a page, at most (the count is always said). */
const MAX_NAMED = 20;

interface DiscoveryAlertInput {
  previous: TargetState | null;
  /** The discovery parameter, `<prefix>/discovery/web`. */
  parameter: string;
  source: DiscoverySourceName;
  /** Since when and why its listing fails; null while it lists. */
  failing: { since: number; why: ListingFailure; detail: string } | null;
  /** Targets of the last good list, still checked meanwhile. */
  targetsInForce: number;
  /** Its instances left out this run because their name is taken (none: every name unique). */
  collisions: readonly NameCollision[];
  now: Date;
}

const identityOf = (rule: string, parameter: string) =>
  ({ fingerprint: `${rule}#${parameter}`, target: parameter, rule, severity: 'warning' }) as const;

/** A resolve of one of the item's alerts, worded by the caller. */
function resolvedPage(rule: string, parameter: string, at: string, subject: string, message: string): Notification {
  const identity = identityOf(rule, parameter);
  return {
    ...identity,
    status: 'resolved',
    reason: 'resolved',
    value: 0,
    threshold: 0,
    subject: `[RESOLVED warning] ${parameter}: ${subject}`,
    message,
    payload: { version: 1, ...identity, status: 'resolved', evaluatedAt: at } satisfies ConfigAlertMessage,
    labels: { discovery: parameter },
  };
}

/** What one of the item's alerts owes when its condition holds: since when, and its firing page. */
interface Condition {
  activeAt: string;
  subject: string;
  message: string;
  problems: string[];
  targetsInForce: number;
}

/**
 * One alert of the item stepped: fired once when its condition starts to hold, kept (no page)
 * while it holds, resolved once when it stops (then no record is kept).
 */
function stepAlert(
  previous: TargetState | null,
  rule: string,
  parameter: string,
  at: string,
  holds: Condition | null,
  resolved: { subject: string; message: string },
): { record: AlertRecord | null; notifications: Notification[] } {
  const identity = identityOf(rule, parameter);
  const current = previous?.alerts[identity.fingerprint];
  const fired = current?.lastSentStatus === 'firing';
  if (holds === null)
    return {
      record: null,
      notifications: fired ? [resolvedPage(rule, parameter, at, resolved.subject, resolved.message)] : [],
    };
  if (fired) return { record: current ?? null, notifications: [] };
  const record: AlertRecord = {
    ...identity,
    state: 'firing',
    activeAt: holds.activeAt,
    firedAt: at,
    resolvedAt: null,
    lastSentAt: at,
    lastSentStatus: 'firing',
    value: 1,
    threshold: 0,
  };
  const firing: Notification = {
    ...identity,
    status: 'firing',
    reason: 'first',
    value: 1,
    threshold: 0,
    subject: `[FIRING warning] ${parameter}: ${holds.subject}`,
    message: holds.message,
    payload: {
      version: 1,
      ...identity,
      status: 'firing',
      problemCount: holds.problems.length,
      problems: holds.problems.slice(0, MAX_NAMED),
      targetsInForce: holds.targetsInForce,
      evaluatedAt: at,
    } satisfies ConfigAlertMessage,
    labels: { discovery: parameter },
  };
  return { record, notifications: [firing] };
}

/** The listing alert's condition: its source fails to list. */
function failingCondition(input: DiscoveryAlertInput, at: string): Condition | null {
  const { parameter, source, failing } = input;
  if (failing === null) return null;
  const since = new Date(failing.since).toISOString();
  const why = `${failing.why}: ${cleanConfigText(failing.detail, MAX_DETAIL_CHARS)}`;
  const message = [
    `The discovery parameter ${parameter} cannot list its instances through the ${source} source since ${since}.`,
    `Why: ${why}`,
    `The last good list stays in force (${input.targetsInForce} target(s) still checked); nothing is removed until it lists again.`,
    '',
    `Evaluated at ${at}.`,
  ].join('\n');
  return {
    activeAt: since,
    subject: `discovery failing (${source}, ${failing.why})`,
    message,
    problems: [`${source} ${why}`],
    targetsInForce: input.targetsInForce,
  };
}

/** The names alert's condition: some of its instances are left out because their name is taken. */
function namesCondition(input: DiscoveryAlertInput, at: string): Condition | null {
  const { parameter, collisions } = input;
  if (collisions.length === 0) return null;
  const lines = collisions.map(
    (c) => `"${cleanConfigText(c.name, MAX_DETAIL_CHARS)}" for instance ${c.instance}: held by ${c.holder}`,
  );
  const more = lines.length > MAX_NAMED ? [`... and ${lines.length - MAX_NAMED} more`] : [];
  const message = [
    `The discovery parameter ${parameter} lists ${collisions.length} instance(s) whose target name is already taken: they are left out, not checked.`,
    ...lines.slice(0, MAX_NAMED).map((l) => `- ${l}`),
    ...more,
    'Each name keeps its first holder, still checked (a configured target first, then discovery parameters by name). Names must be unique across the whole configuration: change the name template, or the target that holds the name.',
    '',
    `Evaluated at ${at}.`,
  ].join('\n');
  return {
    activeAt: at,
    subject: `discovery names taken (${collisions.length} left out)`,
    message,
    problems: lines,
    targetsInForce: input.targetsInForce,
  };
}

/**
 * The item's two alerts, each firing once and resolved once: the listing's (`discovery-failing`,
 * when its source starts failing to list, resolved when it lists again) and the names'
 * (`discovery-names-taken`, when instances of it are left out because their name is taken,
 * resolved when none is). Another reason to fail, or other names taken, while firing: no new page.
 *
 * @example
 * evaluateDiscoveryAlert({ previous: null, parameter: '/p/discovery/web', source: 'ec2', failing: { since, why: 'throttled', detail }, targetsInForce: 3, collisions: [], now })
 *   .notifications[0].subject // '[FIRING warning] /p/discovery/web: discovery failing (ec2, throttled)'
 */
function evaluateDiscoveryAlert(input: DiscoveryAlertInput): { state: TargetState; notifications: Notification[] } {
  const { previous, parameter, source, now } = input;
  const at = now.toISOString();
  const failing = stepAlert(previous, DISCOVERY_ALERT_RULE, parameter, at, failingCondition(input, at), {
    subject: 'discovery lists again',
    message: `The discovery parameter ${parameter} (source ${source}) lists its instances again (checked at ${at}).`,
  });
  const names = stepAlert(previous, DISCOVERY_NAMES_RULE, parameter, at, namesCondition(input, at), {
    subject: 'discovery names unique again',
    message: `The discovery parameter ${parameter} has no instance left out for a name already taken any more (checked at ${at}).`,
  });
  const alerts: Record<string, AlertRecord> = {};
  for (const { record } of [failing, names]) if (record !== null) alerts[record.fingerprint] = record;
  return {
    state: { target: parameter, evaluatedAt: at, consecutiveFailures: 0, counters: null, alerts },
    notifications: [...failing.notifications, ...names.notifications],
  };
}

/**
 * The alerts of a discovery parameter that was deleted: each resolved once if its firing page
 * went out (its listing is no longer tried and its names no longer joined, so it would otherwise
 * fire for ever), and no state kept: the caller deletes the item. The targets it listed leave the
 * configuration as removed targets do.
 *
 * @example
 * evaluateRemovedDiscoveryAlert({ previous: firing, parameter: '/p/discovery/web', now }).notifications[0].subject
 * // '[RESOLVED warning] /p/discovery/web: discovery document removed'
 */
function evaluateRemovedDiscoveryAlert(input: { previous: TargetState | null; parameter: string; now: Date }): {
  notifications: Notification[];
} {
  const { previous, parameter, now } = input;
  const at = now.toISOString();
  const fired = (rule: string) =>
    previous?.alerts[identityOf(rule, parameter).fingerprint]?.lastSentStatus === 'firing';
  const message = `The discovery parameter ${parameter} was deleted: its listing is no longer tried, and the targets it listed leave the configuration as removed (checked at ${at}).`;
  return {
    notifications: [
      ...(fired(DISCOVERY_ALERT_RULE)
        ? [resolvedPage(DISCOVERY_ALERT_RULE, parameter, at, 'discovery document removed', message)]
        : []),
      ...(fired(DISCOVERY_NAMES_RULE)
        ? [resolvedPage(DISCOVERY_NAMES_RULE, parameter, at, 'discovery names taken: document removed', message)]
        : []),
    ],
  };
}

export type { DiscoveryAlertInput };
export { DISCOVERY_ALERT_RULE, DISCOVERY_NAMES_RULE, evaluateDiscoveryAlert, evaluateRemovedDiscoveryAlert };
