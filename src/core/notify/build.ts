/**
 * A Notification from an alert that needs sending: subject, text body and JSON payload, all
 * carrying the same facts. Text from a report or a fetched response is defanged in the subject
 * and the text (`cleanReportText`, use `page`) and kept as data in the payload (use `data`); every
 * part is built within its SNS budget (`src/core/constants.ts`), whatever the input.
 */
import { resolvesAt } from '../alerts/elapsed.ts';
import type { AlertRecord, HeldBy, Notification, NotifyReason, OrderedNotification } from '../alerts/types.ts';
import {
  MAX_FAILURE_DETAIL_CHARS,
  MAX_LABELS_SHOWN,
  MAX_PAYLOAD_BYTES,
  MAX_REPORT_TEXT_CHARS,
  MAX_SUBJECT_CHARS,
  MAX_TEXT_MESSAGE_BYTES,
  ORDER_FIELD_BYTES,
} from '../constants.ts';
import type { DownReason } from '../downReasons.ts';
import type { AlertMessage } from '../message/alertMessage.ts';
import { formatDuration } from '../rules/duration.ts';
import type { Forecast } from '../rules/forecast.ts';
import { BUSY_MODES, metricSpec } from '../rules/metrics.ts';
import type { LastSeen } from '../rules/saturation.ts';
import type { Observation, Rule } from '../rules/types.ts';
import { fitLines, fitText, payloadBytes } from '../text/limits.ts';
import { cleanConfigText, cleanReportText, cleanSubjectText, TEXT_USES } from '../text/sanitize.ts';
import { asyncConnectionsLine } from './asyncConnections.ts';
import { fillTemplate, formatValue } from './format.ts';
import { findOffenders, type Offenders, offenderModes, scoreboardMap } from './offenders.ts';

interface NotificationInput {
  rule: Rule;
  /** The alert after this evaluation. */
  alert: AlertRecord;
  reason: Exclude<NotifyReason, 'none'>;
  target: string;
  labels: Record<string, string>;
  observation: Observation;
  consecutiveFailures: number;
  now: Date;
  /** The forecast behind a `minutes_to_exhaustion` alert: when the slots run out, and its samples. */
  forecast?: Forecast | null;
  /** A `target_up` failure that is most likely the server's own exhaustion: the report seen last. */
  saturation?: LastSeen | null;
  /** The silence that held this page back until now (it ended, or was lifted). */
  heldBy?: HeldBy | null;
}

type Status = 'firing' | 'resolved';

/** Subject words for each down reason (`src/core/downReasons.ts`); `http-status` names its status (`failureLabel`). */
const FAILURE_LABELS: Readonly<Record<Exclude<DownReason, 'http-status'>, string>> = {
  timeout: 'timeout',
  refused: 'refused',
  dns: 'DNS',
  tls: 'TLS',
  'too-large': 'too large',
  redirect: 'redirect',
  network: 'network',
  'refused-address': 'address refused',
  'not-a-report': 'not a report',
};

/**
 * The payload's fields that hold report or fetched text, each with the cap the text page shows it
 * at: what a consumer showing the payload to people cleans for a page (`cleanJsonForPeople`; the
 * PagerDuty forwarder's `custom_details`). A new field of report text is added here.
 */
const PAYLOAD_REPORT_TEXT: Readonly<Record<string, number>> = {
  offenders: MAX_REPORT_TEXT_CHARS,
  down: MAX_FAILURE_DETAIL_CHARS,
};

const pageText = (text: string, max?: number) => cleanReportText(text, { max, use: TEXT_USES.page });
const dataText = (text: string, max?: number) => cleanReportText(text, { max, use: TEXT_USES.data });

/**
 * The failure as the subject names it: `timeout`, `refused`, `HTTP 404`, `not a report`. An
 * `http-status` detail starts with the status line (`HTTP 404 Not Found from ...`).
 */
function failureLabel(reason: string, detail: string): string {
  if (reason === 'http-status') {
    const code = detail.slice(5, 8);
    const digits = code.length === 3 && [...code].every((c) => c >= '0' && c <= '9');
    return detail.startsWith('HTTP ') && digits ? `HTTP ${code}` : 'HTTP error';
  }
  return (FAILURE_LABELS as Readonly<Record<string, string>>)[reason] ?? cleanSubjectText(reason).slice(0, 20);
}

/** `[FIRING critical] web-1: idle-slots-low (0.031 < 0.05)`, under 100 ASCII characters. */
function buildSubject(input: NotificationInput, status: Status): string {
  const { rule, alert, observation } = input;
  let detail = `${formatValue(alert.value)} ${rule.op} ${formatValue(rule.threshold)}`;
  if (status === 'resolved') detail = `now ${formatValue(alert.value)}`;
  else if (observation.kind === 'down' && rule.metric === 'target_up')
    detail = input.saturation != null ? 'saturated' : failureLabel(observation.reason, observation.detail);
  else if (alert.keepFiringSince != null) detail = `cleared, now ${formatValue(alert.value)}`;
  const head = `[${status.toUpperCase()} ${rule.severity}] `;
  const tail = `: ${rule.name} (${detail})`;
  let target = cleanSubjectText(input.target);
  const room = MAX_SUBJECT_CHARS - head.length - tail.length;
  if (target.length > room) target = `${target.slice(0, Math.max(room - 3, 1))}...`;
  return `${head}${target}${tail}`.slice(0, MAX_SUBJECT_CHARS);
}

function offendersOf(input: NotificationInput): Offenders | null {
  const modes = metricSpec(input.rule.metric)?.modes ?? null;
  if (modes === null || input.observation.kind !== 'report') return null;
  return findOffenders(input.observation.report.slots, offenderModes(modes));
}

/** `28 busy slots (S R W K D C L I)` or `3 slots in C`. */
function countedSlots(offenders: Offenders): string {
  const modes = [...offenders.modes].join(' ');
  return offenders.modes === BUSY_MODES
    ? `${offenders.slots} busy slots (${modes})`
    : `${offenders.slots} slots in ${modes}`;
}

function offenderLines(offenders: Offenders): string[] {
  const lines: string[] = [];
  const list = (title: string, counts: Offenders['clients']) => {
    if (counts.length === 0) return;
    lines.push(`Top ${title} among the ${countedSlots(offenders)}:`);
    for (const c of counts) lines.push(`  ${String(c.count).padStart(4)}  ${pageText(c.name)}`);
  };
  list('clients', offenders.clients);
  list('vhosts', offenders.vhosts);
  list('requests', offenders.requests);
  if (offenders.oldest.length > 0) {
    lines.push('Oldest requests among them (seconds since they started):');
    for (const o of offenders.oldest) {
      const vhost = o.vhost === '' ? '-' : pageText(o.vhost);
      lines.push(`  ${`${o.ss}s`.padStart(5)}  ${pageText(o.request)}  from ${pageText(o.client)} on ${vhost}`);
    }
  }
  return lines;
}

function contextLines(input: NotificationInput, offenders: Offenders | null): string[] {
  const { observation } = input;
  if (observation.kind === 'down') {
    const saturation = input.saturation ?? null;
    if (saturation === null) {
      return [
        `Failure: ${pageText(observation.reason, 40)}: ${pageText(observation.detail, MAX_FAILURE_DETAIL_CHARS)}`,
        `Consecutive failures: ${input.consecutiveFailures}`,
      ];
    }
    return [
      `Failure: ${saturatedReason(observation.reason, saturation)}`,
      'The server was (nearly) full when last seen: the status page most likely waits for a free worker like every other request.',
      `Fetch: ${pageText(observation.detail, MAX_FAILURE_DETAIL_CHARS)}`,
      `Consecutive failures: ${input.consecutiveFailures}`,
    ];
  }
  const lines: string[] = [];
  if (input.forecast != null) lines.push(...forecastLines(input.forecast));
  // The event MPM's async connection counts (keep-alive, writing, closing: held in no slot) belong
  // here, as one line before the slot lists, once the report carries them.
  if (offenders !== null && offenders.slots > 0) lines.push(...offenderLines(offenders));
  if (metricSpec(input.rule.metric)?.modes != null) {
    const async = asyncConnectionsLine(observation.report);
    if (async !== null) lines.push(async);
    const sb = observation.report.scoreboard;
    lines.push(
      `Scoreboard (${sb.length} positions, 64 per line; _ idle, . open, W sending, K keepalive, C closing, G graceful):`,
    );
    for (const l of scoreboardMap(sb)) lines.push(`  ${l}`);
  }
  return lines;
}

/** When a silence ended: its `until`, or now when it was lifted before that. */
function silenceEndedAt(heldBy: HeldBy, now: Date): string {
  return Date.parse(heldBy.until) <= now.getTime() ? heldBy.until : now.toISOString();
}

/** Why the page arrives now, not when the alert fired: the silence that held it, and when it ended. */
function heldByLine(heldBy: HeldBy, now: Date): string {
  const ended = silenceEndedAt(heldBy, now);
  const how = ended === heldBy.until ? `ended at ${ended}` : `was lifted at ${ended} (set until ${heldBy.until})`;
  const comment = heldBy.comment === null ? 'no comment' : `"${cleanConfigText(heldBy.comment, 200)}"`;
  return `Held back by a silence (${comment}, ${cleanConfigText(heldBy.source, 200)}) that ${how}: that is why this page arrives now`;
}

/** `timeout, likely saturated: 250/256 slots busy at 2026-11-22T12:00:00.000Z`. */
function saturatedReason(reason: string, seen: LastSeen): string {
  return `${pageText(reason, 40)}, likely saturated: ${seen.busy}/${seen.total} slots busy at ${seen.at}`;
}

/** When the free slots run out at the current trend, and the samples the line went through. */
function forecastLines(forecast: Forecast): string[] {
  const when =
    forecast.minutes === 0
      ? `No slot is free now (${forecast.exhaustedAt})`
      : `At the current trend the free slots run out at ${forecast.exhaustedAt} (in ${formatValue(forecast.minutes)} minutes)`;
  return [
    when,
    'Free slots at each evaluation (the least-squares line goes through these):',
    ...forecast.samples.map((s) => `  ${s.at}  ${String(s.free).padStart(5)}`),
  ];
}

/** `env=prod, team=web`, at most `MAX_LABELS_SHOWN` of them, then `and N more`. */
function labelsLine(labels: Record<string, string>): string | null {
  const entries = Object.entries(labels);
  if (entries.length === 0) return null;
  const shown = entries
    .slice(0, MAX_LABELS_SHOWN)
    .map(([k, v]) => `${cleanConfigText(k, 64)}=${cleanConfigText(v, 256)}`);
  const more = entries.length > MAX_LABELS_SHOWN ? `, and ${entries.length - MAX_LABELS_SHOWN} more` : '';
  return `Labels: ${shown.join(', ')}${more}`;
}

function statusLines(input: NotificationInput, status: Status): string[] {
  const { rule, alert } = input;
  const value = formatValue(alert.value);
  const condition = `${rule.metric} ${rule.op} ${formatValue(rule.threshold)}`;
  if (status === 'resolved') {
    return [
      `Condition no longer holds: ${condition} (value now ${value})`,
      `Fired at ${alert.firedAt ?? 'n/a'}, resolved at ${alert.resolvedAt ?? 'n/a'}`,
    ];
  }
  const lines: string[] = [];
  const clearedAt = alert.keepFiringSince ?? null;
  if (clearedAt === null) {
    lines.push(`Condition: ${condition} (value ${value}), held for ${formatDuration(rule.forMs)} or more`);
  } else {
    // Kept firing (keepFiringFor): the value no longer meets the condition; saying so keeps the page true.
    lines.push(`Condition cleared at ${clearedAt}: ${condition} no longer holds (value now ${value})`);
    lines.push(
      `Still firing for keepFiringFor ${formatDuration(rule.keepFiringForMs)}: resolves at ${resolvesAt(alert.keepFiringSince, rule.keepFiringForMs)} unless the condition returns`,
    );
  }
  if (rule.clearThreshold !== null) {
    const side = rule.op === '<' || rule.op === '<=' ? '>=' : '<=';
    lines.push(`Resolves once ${rule.metric} ${side} ${formatValue(rule.clearThreshold)} (clearThreshold)`);
  }
  lines.push(`Active since ${alert.activeAt ?? 'n/a'}, firing since ${alert.firedAt ?? 'n/a'}`);
  if (input.reason === 'repeat') lines.push(`Reminder: still firing at ${input.now.toISOString()}`);
  if (input.heldBy != null) lines.push(heldByLine(input.heldBy, input.now));
  return lines;
}

function buildMessage(input: NotificationInput, status: Status, offenders: Offenders | null): string {
  const { rule, alert } = input;
  const target = cleanConfigText(input.target, 200);
  const lines = [`${status.toUpperCase()} ${rule.severity}: ${rule.name} on ${target}`];
  // A kept-firing alert's summary would describe a condition that no longer holds.
  const keptFiring = status === 'firing' && alert.keepFiringSince != null;
  if (rule.summary !== null && !keptFiring) {
    const value = formatValue(alert.value);
    lines.push(fillTemplate(rule.summary, { value, threshold: formatValue(rule.threshold), target, rule: rule.name }));
  }
  lines.push(...statusLines(input, status));
  if (rule.runbook !== null) lines.push(`Runbook: ${cleanConfigText(rule.runbook)}`);
  const labels = labelsLine(input.labels);
  if (labels !== null) lines.push(labels);
  if (status === 'firing') lines.push(...contextLines(input, offenders));
  return fitLines(lines, MAX_TEXT_MESSAGE_BYTES).join('\n');
}

/**
 * The payload within `MAX_PAYLOAD_BYTES`: whole when it fits (always, unless the target has
 * hundreds of labels), else with labels cut to `MAX_LABELS_SHOWN` (`labelsOmitted` counts the
 * rest), else without labels and report context (`truncated: true`).
 */
function boundedPayload(payload: AlertMessage, labels: Record<string, string>): AlertMessage {
  if (payloadBytes(payload) <= MAX_PAYLOAD_BYTES - ORDER_FIELD_BYTES) return payload;
  const entries = Object.entries(labels);
  const fewer = {
    ...payload,
    labels: Object.fromEntries(
      entries.slice(0, MAX_LABELS_SHOWN).map(([k, v]) => [fitText(k, 64), fitText(v, 256)] as const),
    ),
    labelsOmitted: Math.max(entries.length - MAX_LABELS_SHOWN, 0),
  };
  if (payloadBytes(fewer) <= MAX_PAYLOAD_BYTES - ORDER_FIELD_BYTES) return fewer;
  return {
    ...payload,
    labels: {},
    labelsOmitted: entries.length,
    offenders: null,
    scoreboard: null,
    forecast: null,
    truncated: true,
  };
}

function buildPayload(input: NotificationInput, status: Status, offenders: Offenders | null): AlertMessage {
  const { rule, alert, observation } = input;
  const target = dataText(input.target, 200);
  const payload: AlertMessage = {
    version: 1,
    status,
    reason: input.reason,
    fingerprint: alert.fingerprint,
    target,
    rule: rule.name,
    severity: rule.severity,
    metric: rule.metric,
    op: rule.op,
    threshold: rule.threshold,
    clearThreshold: rule.clearThreshold,
    value: alert.value,
    activeAt: alert.activeAt,
    firedAt: alert.firedAt,
    resolvedAt: alert.resolvedAt,
    keepFiringSince: status === 'firing' ? (alert.keepFiringSince ?? null) : null,
    resolvesAt: status === 'firing' ? resolvesAt(alert.keepFiringSince, rule.keepFiringForMs) : null,
    evaluatedAt: input.now.toISOString(),
    summary:
      rule.summary === null
        ? null
        : fillTemplate(rule.summary, {
            value: formatValue(alert.value),
            threshold: formatValue(rule.threshold),
            target,
            rule: rule.name,
          }),
    runbook: rule.runbook === null ? null : cleanConfigText(rule.runbook),
    labels: input.labels,
    offenders: status === 'firing' ? offenders : null,
    scoreboard:
      status === 'firing' && observation.kind === 'report' && offenders !== null
        ? scoreboardMap(observation.report.scoreboard)
        : null,
    down:
      observation.kind === 'down'
        ? {
            reason: dataText(observation.reason, 40),
            detail: dataText(observation.detail, MAX_FAILURE_DETAIL_CHARS),
            consecutiveFailures: input.consecutiveFailures,
          }
        : null,
    failure:
      observation.kind === 'down' && rule.metric === 'target_up'
        ? {
            reason: dataText(observation.reason, 40),
            likelySaturated: input.saturation != null,
            lastSeen: input.saturation ?? null,
          }
        : null,
    silence:
      status === 'firing' && input.heldBy != null
        ? {
            comment: input.heldBy.comment === null ? null : cleanConfigText(input.heldBy.comment, 500),
            source: cleanConfigText(input.heldBy.source, 200),
            endedAt: silenceEndedAt(input.heldBy, input.now),
          }
        : null,
    forecast:
      status === 'firing' && input.forecast != null
        ? {
            minutesToExhaustion: input.forecast.minutes,
            exhaustedAt: input.forecast.exhaustedAt,
            samples: input.forecast.samples,
          }
        : null,
  };
  return boundedPayload(payload, input.labels);
}

/**
 * The notification for an alert that `decideNotification` says to send.
 *
 * @example
 * buildNotification({ rule, alert, reason: 'first', target: 'web-1', labels: {}, observation, consecutiveFailures: 0, now }).subject
 * // '[FIRING critical] web-1: idle-slots-low (2 < 5)'
 */
function buildNotification(input: NotificationInput): Notification {
  const status = input.reason === 'resolved' ? 'resolved' : 'firing';
  const offenders = offendersOf(input);
  return {
    fingerprint: input.alert.fingerprint,
    status,
    reason: input.reason,
    target: input.target,
    rule: input.rule.name,
    severity: input.rule.severity,
    value: input.alert.value,
    threshold: input.rule.threshold,
    subject: buildSubject(input, status),
    message: buildMessage(input, status, offenders),
    payload: buildPayload(input, status, offenders),
    labels: { ...input.labels },
  };
}

export type { NotificationInput };

/**
 * The page with its `order`, the page order: a hybrid logical clock in epoch milliseconds taken from
 * the state table when the page is claimed, strictly increasing per alert (single pages) or per
 * group; a consumer drops any page whose order is not above the last it accepted.
 */
function withOrder(page: Notification, order: number): OrderedNotification {
  return { ...page, payload: { ...page.payload, order } };
}

export { buildNotification, failureLabel, PAYLOAD_REPORT_TEXT, withOrder };
