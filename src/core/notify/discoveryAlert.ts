/**
 * The discovery alert of one discovery parameter: one page when its source starts failing to list
 * (which source, why, since when), none while it keeps failing for another reason, one resolve
 * when it lists again. Kept in a state item of its own (`STATE_KEYS.discoveryAlert`) and
 * published through the claim machine, as the configuration alert is.
 */

import type { AlertRecord, Notification, TargetState } from '../alerts/types.ts';
import type { DiscoverySourceName } from '../discovery/document.ts';
import type { ListingFailure } from '../discovery/listing.ts';
import type { ConfigAlertMessage } from '../message/alertMessage.ts';
import { cleanConfigText } from '../text/sanitize.ts';

const DISCOVERY_ALERT_RULE = 'discovery-failing';
const MAX_DETAIL_CHARS = 300;

interface DiscoveryAlertInput {
  previous: TargetState | null;
  /** The discovery parameter, `<prefix>/discovery/web`. */
  parameter: string;
  source: DiscoverySourceName;
  /** Since when and why its listing fails; null while it lists. */
  failing: { since: number; why: ListingFailure; detail: string } | null;
  /** Targets of the last good list, still checked meanwhile. */
  targetsInForce: number;
  now: Date;
}

/**
 * The alert's next state and page: firing once when the listing starts failing, resolved once
 * when it lists again (then no record is kept).
 *
 * @example
 * evaluateDiscoveryAlert({ previous: null, parameter: '/p/discovery/web', source: 'ec2', failing: { since, why: 'throttled', detail }, targetsInForce: 3, now })
 *   .notifications[0].subject // '[FIRING warning] /p/discovery/web: discovery failing (ec2, throttled)'
 */
function evaluateDiscoveryAlert(input: DiscoveryAlertInput): { state: TargetState; notifications: Notification[] } {
  const { previous, parameter, source, failing, now } = input;
  const at = now.toISOString();
  const id = `${DISCOVERY_ALERT_RULE}#${parameter}`;
  const current = previous?.alerts[id];
  const state = (alerts: Record<string, AlertRecord>): TargetState => ({
    target: parameter,
    evaluatedAt: at,
    consecutiveFailures: 0,
    counters: null,
    alerts,
  });
  const identity = { fingerprint: id, target: parameter, rule: DISCOVERY_ALERT_RULE, severity: 'warning' } as const;
  if (failing === null) {
    if (current?.lastSentStatus !== 'firing') return { state: state({}), notifications: [] };
    const message = `The discovery parameter ${parameter} (source ${source}) lists its instances again (checked at ${at}).`;
    const resolved: Notification = {
      ...identity,
      status: 'resolved',
      reason: 'resolved',
      value: 0,
      threshold: 0,
      subject: `[RESOLVED warning] ${parameter}: discovery lists again`,
      message,
      payload: { version: 1, ...identity, status: 'resolved', evaluatedAt: at } satisfies ConfigAlertMessage,
      labels: { discovery: parameter },
    };
    return { state: state({}), notifications: [resolved] };
  }
  if (current?.lastSentStatus === 'firing') return { state: state({ [id]: current }), notifications: [] };
  const since = new Date(failing.since).toISOString();
  const record: AlertRecord = {
    ...identity,
    state: 'firing',
    activeAt: since,
    firedAt: at,
    resolvedAt: null,
    lastSentAt: at,
    lastSentStatus: 'firing',
    value: 1,
    threshold: 0,
  };
  const why = `${failing.why}: ${cleanConfigText(failing.detail, MAX_DETAIL_CHARS)}`;
  const message = [
    `The discovery parameter ${parameter} cannot list its instances through the ${source} source since ${since}.`,
    `Why: ${why}`,
    `The last good list stays in force (${input.targetsInForce} target(s) still checked); nothing is removed until it lists again.`,
    '',
    `Evaluated at ${at}.`,
  ].join('\n');
  const firing: Notification = {
    ...identity,
    status: 'firing',
    reason: 'first',
    value: 1,
    threshold: 0,
    subject: `[FIRING warning] ${parameter}: discovery failing (${source}, ${failing.why})`,
    message,
    payload: {
      version: 1,
      ...identity,
      status: 'firing',
      problemCount: 1,
      problems: [`${source} ${why}`],
      targetsInForce: input.targetsInForce,
      evaluatedAt: at,
    } satisfies ConfigAlertMessage,
    labels: { discovery: parameter },
  };
  return { state: state({ [id]: record }), notifications: [firing] };
}

/**
 * The alert of a discovery parameter that was deleted: resolved once if its firing page went out
 * (its listing is no longer tried, so it would otherwise fire for ever), and no state kept: the
 * caller deletes the item. The targets it listed leave the configuration as removed targets do.
 *
 * @example
 * evaluateRemovedDiscoveryAlert({ previous: firing, parameter: '/p/discovery/web', now }).notifications[0].subject
 * // '[RESOLVED warning] /p/discovery/web: discovery document removed'
 */
function evaluateRemovedDiscoveryAlert(input: { previous: TargetState | null; parameter: string; now: Date }): {
  notifications: Notification[];
} {
  const { previous, parameter, now } = input;
  const id = `${DISCOVERY_ALERT_RULE}#${parameter}`;
  if (previous?.alerts[id]?.lastSentStatus !== 'firing') return { notifications: [] };
  const at = now.toISOString();
  const identity = { fingerprint: id, target: parameter, rule: DISCOVERY_ALERT_RULE, severity: 'warning' } as const;
  const resolved: Notification = {
    ...identity,
    status: 'resolved',
    reason: 'resolved',
    value: 0,
    threshold: 0,
    subject: `[RESOLVED warning] ${parameter}: discovery document removed`,
    message: `The discovery parameter ${parameter} was deleted: its listing is no longer tried, and the targets it listed leave the configuration as removed (checked at ${at}).`,
    payload: { version: 1, ...identity, status: 'resolved', evaluatedAt: at } satisfies ConfigAlertMessage,
    labels: { discovery: parameter },
  };
  return { notifications: [resolved] };
}

export type { DiscoveryAlertInput };
export { DISCOVERY_ALERT_RULE, evaluateDiscoveryAlert, evaluateRemovedDiscoveryAlert };
