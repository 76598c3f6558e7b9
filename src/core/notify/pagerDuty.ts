/**
 * PagerDuty Events API v2 events from the JSON variant of a published message (what SNS hands an
 * SQS or Lambda subscriber). Keyed off fields of each alert only (fingerprint, status, target,
 * rule, severity), so a message carrying one alert (today) and a grouped message carrying
 * `alerts: [...]` (Alertmanager-style grouping) map the same way: one event per alert, its
 * fingerprint the `dedup_key`, so a resolve closes exactly the incident its trigger opened.
 */

import { describeInput } from '../errors.ts';
import { SEVERITY_NAMES, type Severity } from '../rules/types.ts';
import { formatValue } from './format.ts';
import { cleanSubjectText } from './sanitize.ts';

/** https://developer.pagerduty.com/docs/events-api-v2/trigger-events/ */
const PAGERDUTY_ACTIONS = { trigger: 'trigger', resolve: 'resolve' } as const;
type PagerDutyAction = (typeof PAGERDUTY_ACTIONS)[keyof typeof PAGERDUTY_ACTIONS];

/** The Events API's limits: `payload.summary` and `dedup_key` lengths. */
const MAX_SUMMARY_CHARS = 1024;
const MAX_DEDUP_KEY_CHARS = 255;
/** What the events name as their sender (`client`). */
const PAGERDUTY_CLIENT = 'httpd-status-alerts';

/** The per-alert facts the mapping reads; everything else of the alert rides in `custom_details`. */
interface AlertFacts {
  fingerprint: string;
  status: 'firing' | 'resolved';
  target: string;
  rule: string;
  severity: Severity;
  /** The whole alert object as published (labels, offenders, runbook, down, ...). */
  details: Record<string, unknown>;
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

function readAlert(alert: unknown, where: string): AlertFacts {
  if (!isObject(alert)) throw new PagerDutyMessageError(`${where}: expected an object, found ${JSON.stringify(alert)}`);
  const fingerprint = text(alert, 'fingerprint', where);
  if (fingerprint.length > MAX_DEDUP_KEY_CHARS)
    throw new PagerDutyMessageError(
      `${where}.fingerprint: expected at most ${MAX_DEDUP_KEY_CHARS} characters, found ${fingerprint.length}`,
    );
  const status = alert.status;
  if (status !== 'firing' && status !== 'resolved')
    throw new PagerDutyMessageError(`${where}.status: expected firing or resolved, found ${JSON.stringify(status)}`);
  const severity = SEVERITY_NAMES.find((s) => s === alert.severity);
  if (severity === undefined)
    throw new PagerDutyMessageError(
      `${where}.severity: expected one of ${SEVERITY_NAMES.join(', ')}, found ${JSON.stringify(alert.severity)}`,
    );
  return {
    fingerprint,
    status,
    target: text(alert, 'target', where),
    rule: text(alert, 'rule', where),
    severity,
    details: alert,
  };
}

/**
 * The alerts of one message: `{ alerts: [...] }` (a group) or the alert object itself.
 *
 * @throws PagerDutyMessageError saying which field was wrong and what it held
 */
function alertsOfMessage(message: string): AlertFacts[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch (error) {
    throw new PagerDutyMessageError(`found ${describeInput(message)}`, { cause: error });
  }
  if (!isObject(parsed)) throw new PagerDutyMessageError(`found ${describeInput(message)}`);
  if (!('alerts' in parsed)) return [readAlert(parsed, 'message')];
  if (!Array.isArray(parsed.alerts))
    throw new PagerDutyMessageError(`message.alerts: expected an array, found ${JSON.stringify(parsed.alerts)}`);
  return parsed.alerts.map((alert, i) => readAlert(alert, `message.alerts[${i}]`));
}

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

function linksOf(alert: AlertFacts): { href: string; text: string }[] {
  const runbook = alert.details.runbook;
  return typeof runbook === 'string' && /^https?:\/\//.test(runbook) ? [{ href: runbook, text: 'Runbook' }] : [];
}

function timestampOf(alert: AlertFacts): string | undefined {
  const at = alert.status === 'resolved' ? alert.details.resolvedAt : alert.details.firedAt;
  return typeof at === 'string' && at !== '' ? at : undefined;
}

/**
 * One Events API v2 event per alert of the message: `trigger` while firing (a repeat adds to the
 * open incident), `resolve` when resolved, both with the alert's fingerprint as `dedup_key`.
 *
 * @example
 * pagerDutyEvents('{"fingerprint":"3f2a...","status":"resolved","target":"web-1",...}', key)[0].event_action
 * // 'resolve'
 * @throws PagerDutyMessageError when the message is not an alert message
 */
function pagerDutyEvents(message: string, routingKey: string): PagerDutyEvent[] {
  return alertsOfMessage(message).map((alert) => {
    const timestamp = timestampOf(alert);
    const links = linksOf(alert);
    return {
      routing_key: routingKey,
      event_action: alert.status === 'resolved' ? PAGERDUTY_ACTIONS.resolve : PAGERDUTY_ACTIONS.trigger,
      dedup_key: alert.fingerprint,
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
  });
}

export type { AlertFacts, PagerDutyAction, PagerDutyEvent };
export {
  alertsOfMessage,
  MAX_DEDUP_KEY_CHARS,
  MAX_SUMMARY_CHARS,
  PAGERDUTY_ACTIONS,
  PagerDutyMessageError,
  pagerDutyEvents,
};
