/**
 * The configuration alert: one alert (fingerprint `configuration`, so one PagerDuty incident)
 * whatever its problems, kept in a state of its own and published through the same claim,
 * publish, commit protocol as every other alert. A changed problem set pages again as an update
 * of the same alert, so a configuration fixed in any number of steps ends with nothing open. Its page lists at most `MAX_PROBLEM_LINES` problems in the text and `MAX_PAYLOAD_PROBLEMS`
 * in the JSON, each capped, with "and N more": every variant fits SNS whatever the input
 * (a rules parameter of 4 KB of `{}` gives thousands of problems).
 */
import { createHash } from 'node:crypto';
import type { AlertRecord, Notification, TargetState } from '../alerts/types.ts';
import type { ConfigAlertMessage } from '../message/alertMessage.ts';
import { cleanConfigText, redactCredentials } from '../text/sanitize.ts';

/** The name the configuration alert carries where a target name would be. */
const CONFIG_ALERT_TARGET = 'httpd-status-alerts';
const CONFIG_ALERT_RULE = 'configuration';
/** The alert's fingerprint (the page's `dedup_key`): the same for every problem set. */
const CONFIG_ALERT_FINGERPRINT = CONFIG_ALERT_RULE;
const MAX_PROBLEM_LINES = 20;
const MAX_PAYLOAD_PROBLEMS = 50;
const MAX_PROBLEM_CHARS = 300;

interface ConfigAlertInput {
  previous: TargetState | null;
  /** The problems of this run's configuration, or null when it is valid. */
  problems: readonly string[] | null;
  /** Targets checked meanwhile with the last valid configuration (null: none yet). */
  targetsInForce: number | null;
  now: Date;
}

const problemsHash = (problems: readonly string[]) =>
  createHash('sha256').update(problems.join('\n')).digest('hex').slice(0, 16);

const shown = (line: string) => cleanConfigText(redactCredentials(line), MAX_PROBLEM_CHARS);

function more(total: number, listed: number): string[] {
  return total > listed ? [`... and ${total - listed} more`] : [];
}

function firingPage(
  record: AlertRecord,
  problems: readonly string[],
  inForce: number | null,
  now: Date,
  changed: boolean,
): Notification {
  const listed = problems.slice(0, MAX_PROBLEM_LINES).map((l) => `  - ${shown(l)}`);
  const message = [
    changed
      ? 'The monitor configuration in SSM is still invalid; its problems changed (this page updates the open alert).'
      : 'The monitor configuration in SSM is invalid or unreadable.',
    inForce === null
      ? 'No valid configuration has been seen yet: no target is checked until it is fixed.'
      : `The last valid configuration stays in force (${inForce} target(s)).`,
    '',
    `Problems (${problems.length}):`,
    ...listed,
    ...more(problems.length, listed.length).map((l) => `  ${l}`),
    '',
    `Evaluated at ${now.toISOString()}.`,
  ].join('\n');
  const payloadProblems = problems.slice(0, MAX_PAYLOAD_PROBLEMS).map(shown);
  return {
    fingerprint: record.fingerprint,
    status: 'firing',
    reason: 'first',
    target: CONFIG_ALERT_TARGET,
    rule: CONFIG_ALERT_RULE,
    severity: 'warning',
    value: problems.length,
    threshold: 0,
    subject: `[FIRING warning] httpd-status-alerts: invalid configuration${changed ? ' (problems changed)' : ''}`,
    message,
    // Why the alert's identity in the JSON: it is an alert message like the others (the PagerDuty forwarder reads these fields).
    payload: {
      version: 1,
      fingerprint: record.fingerprint,
      status: 'firing',
      target: CONFIG_ALERT_TARGET,
      rule: CONFIG_ALERT_RULE,
      severity: 'warning',
      problemCount: problems.length,
      problems: [...payloadProblems, ...more(problems.length, payloadProblems.length)],
      targetsInForce: inForce,
      ...(changed ? { problemsChanged: true } : {}),
      evaluatedAt: now.toISOString(),
    } satisfies ConfigAlertMessage,
    labels: {},
  };
}

function resolvedPage(record: AlertRecord, now: Date): Notification {
  return {
    fingerprint: record.fingerprint,
    status: 'resolved',
    reason: 'resolved',
    target: CONFIG_ALERT_TARGET,
    rule: CONFIG_ALERT_RULE,
    severity: 'warning',
    value: 0,
    threshold: 0,
    subject: '[RESOLVED warning] httpd-status-alerts: configuration valid again',
    message: `The monitor configuration in SSM is valid again (checked at ${now.toISOString()}).`,
    payload: {
      version: 1,
      fingerprint: record.fingerprint,
      status: 'resolved',
      target: CONFIG_ALERT_TARGET,
      rule: CONFIG_ALERT_RULE,
      severity: 'warning',
      evaluatedAt: now.toISOString(),
    } satisfies ConfigAlertMessage,
    labels: {},
  };
}

/**
 * The configuration alert's next state and pages. Invalid: the alert fires when it is not firing
 * yet, and pages again (an update of the same alert) when its problem set differs from the one
 * its last page listed. Valid: its resolve when its firing page went out, the record dropped.
 * Either way every record an earlier version kept per problem set (`configuration#<hash>`) whose
 * firing page went out is resolved and dropped, so an upgrade mid-incident leaves nothing open.
 * The returned state counts the pages as sent; records a page drops are absent from it.
 *
 * @example
 * evaluateConfigAlert({ previous: null, problems: ['/p/rules/x: expected JSON'], targetsInForce: 3, now })
 *   .notifications[0].subject // '[FIRING warning] httpd-status-alerts: invalid configuration'
 */
function evaluateConfigAlert(input: ConfigAlertInput): { state: TargetState; notifications: Notification[] } {
  const { previous, problems, now } = input;
  const at = now.toISOString();
  const id = CONFIG_ALERT_FINGERPRINT;
  const current = previous?.alerts[id];
  const firing = current?.lastSentStatus === 'firing';
  const alerts: Record<string, AlertRecord> = {};
  const notifications: Notification[] = [];
  if (problems !== null) {
    const hash = problemsHash(problems);
    if (firing && current.lastSentVariant === hash) alerts[id] = current;
    else {
      const record: AlertRecord = {
        fingerprint: id,
        target: CONFIG_ALERT_TARGET,
        rule: CONFIG_ALERT_RULE,
        severity: 'warning',
        state: 'firing',
        activeAt: (firing && current.activeAt) || at,
        firedAt: (firing && current.firedAt) || at,
        resolvedAt: null,
        lastSentAt: at,
        lastSentStatus: 'firing',
        lastSentVariant: hash,
        value: problems.length,
        threshold: 0,
        ...(current?.order === undefined ? {} : { order: current.order }),
      };
      alerts[id] = record;
      notifications.push(firingPage(record, problems, input.targetsInForce, now, firing));
    }
  } else if (firing) notifications.push(resolvedPage(current, now));
  // Records of earlier versions, one per problem set: each incident a page opened is closed.
  for (const r of Object.values(previous?.alerts ?? {}))
    if (r.fingerprint !== id && r.lastSentStatus === 'firing') notifications.push(resolvedPage(r, now));
  return {
    state: { target: CONFIG_ALERT_TARGET, evaluatedAt: at, consecutiveFailures: 0, counters: null, alerts },
    notifications,
  };
}

export type { ConfigAlertInput };
export { CONFIG_ALERT_FINGERPRINT, CONFIG_ALERT_TARGET, evaluateConfigAlert, MAX_PAYLOAD_PROBLEMS, MAX_PROBLEM_LINES };
