/**
 * The checking reader of a published page (the JSON variant SNS hands a subscriber): its alerts'
 * facts, the group's, its order and part, every field checked, with a `PagerDutyMessageError`
 * saying which field was wrong and what it held. The PagerDuty forwarder reads each message
 * through it once; what the message's report text shows people is cleaned here (`detailsOf`).
 */
import { describeInput } from '../errors.ts';
import { PAYLOAD_REPORT_TEXT } from '../notify/build.ts';
import { SEVERITY_NAMES, type Severity } from '../rules/types.ts';
import { cleanJsonForPeople } from '../text/sanitize.ts';

/** The Events API's limit of a `dedup_key`'s length, checked where the message is read. */
const MAX_DEDUP_KEY_CHARS = 255;

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

export type { AlertFacts, AlertPage, GroupFacts };
export { isObject, MAX_DEDUP_KEY_CHARS, PagerDutyMessageError, readAlertPage };
