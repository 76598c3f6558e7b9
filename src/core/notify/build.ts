/**
 * A Notification from an alert that needs sending: subject, text body and JSON payload, all
 * carrying the same facts.
 */
import type { AlertRecord, Notification, NotifyReason, Observation } from '../alerts/types.ts';
import { MAX_MESSAGE_CHARS, MAX_SUBJECT_CHARS } from '../constants.ts';
import { formatDuration } from '../rules/duration.ts';
import { metricSpec } from '../rules/metrics.ts';
import type { Rule } from '../rules/types.ts';
import { asyncConnectionsLine } from './asyncConnections.ts';
import { fillTemplate, formatValue } from './format.ts';
import { findOffenders, type Offenders, scoreboardMap } from './offenders.ts';
import { cleanConfigText, cleanReportText, cleanSubjectText } from './sanitize.ts';

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
}

/** `[FIRING critical] web-1: idle-slots-low (2 < 5)`, under 100 ASCII characters. */
function buildSubject(input: NotificationInput, status: 'firing' | 'resolved'): string {
  const { rule, alert, observation } = input;
  const detail =
    status === 'resolved'
      ? `now ${formatValue(alert.value)}`
      : observation.kind === 'down' && rule.metric === 'target_up'
        ? cleanSubjectText(observation.reason).slice(0, 20)
        : `${formatValue(alert.value)} ${rule.op} ${formatValue(rule.threshold)}`;
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
  return findOffenders(input.observation.report.slots, modes);
}

function contextLines(input: NotificationInput, offenders: Offenders | null): string[] {
  const lines: string[] = [];
  const { observation } = input;
  if (observation.kind === 'down') {
    lines.push(`Failure: ${cleanReportText(observation.reason, 40)}: ${cleanReportText(observation.detail, 300)}`);
    lines.push(`Consecutive failures: ${input.consecutiveFailures}`);
    return lines;
  }
  if (offenders !== null && offenders.slots > 0) {
    const list = (title: string, counts: Offenders['clients']) => {
      if (counts.length === 0) return;
      lines.push(`Top ${title} among the ${offenders.slots} counted slots (${[...offenders.modes].join(' ')}):`);
      for (const c of counts) lines.push(`  ${String(c.count).padStart(4)}  ${c.name}`);
    };
    list('clients', offenders.clients);
    list('vhosts', offenders.vhosts);
    list('requests', offenders.requests);
    if (offenders.oldest.length > 0) {
      lines.push('Oldest counted requests (seconds since they started):');
      for (const o of offenders.oldest)
        lines.push(`  ${`${o.ss}s`.padStart(5)}  ${o.request}  from ${o.client} on ${o.vhost || '-'}`);
    }
  }
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

function buildMessage(input: NotificationInput, status: 'firing' | 'resolved', offenders: Offenders | null): string {
  const { rule, alert } = input;
  const target = cleanConfigText(input.target, 200);
  const value = formatValue(alert.value);
  const condition = `${rule.metric} ${rule.op} ${formatValue(rule.threshold)}`;
  const lines = [`${status.toUpperCase()} ${rule.severity}: ${rule.name} on ${target}`];
  if (rule.summary !== null) {
    lines.push(fillTemplate(rule.summary, { value, threshold: formatValue(rule.threshold), target, rule: rule.name }));
  }
  if (status === 'firing') {
    lines.push(`Condition: ${condition} (value ${value}), held for ${formatDuration(rule.forMs)} or more`);
    lines.push(`Active since ${alert.activeAt ?? 'n/a'}, firing since ${alert.firedAt ?? 'n/a'}`);
    if (input.reason === 'repeat') lines.push(`Reminder: still firing at ${input.now.toISOString()}`);
  } else {
    lines.push(`Condition no longer holds: ${condition} (value now ${value})`);
    lines.push(`Fired at ${alert.firedAt ?? 'n/a'}, resolved at ${alert.resolvedAt ?? 'n/a'}`);
  }
  if (rule.runbook !== null) lines.push(`Runbook: ${cleanConfigText(rule.runbook)}`);
  const labels = Object.entries(input.labels).map(([k, v]) => `${k}=${v}`);
  if (labels.length > 0) lines.push(`Labels: ${cleanConfigText(labels.join(', '))}`);
  if (status === 'firing') lines.push(...contextLines(input, offenders));
  const text = lines.join('\n');
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS - 4)}\n...`;
}

function buildPayload(input: NotificationInput, status: 'firing' | 'resolved', offenders: Offenders | null) {
  const { rule, alert, observation } = input;
  return {
    version: 1,
    status,
    reason: input.reason,
    fingerprint: alert.fingerprint,
    target: input.target,
    rule: rule.name,
    severity: rule.severity,
    metric: rule.metric,
    op: rule.op,
    threshold: rule.threshold,
    value: alert.value,
    activeAt: alert.activeAt,
    firedAt: alert.firedAt,
    resolvedAt: alert.resolvedAt,
    evaluatedAt: input.now.toISOString(),
    summary:
      rule.summary === null
        ? null
        : fillTemplate(rule.summary, {
            value: formatValue(alert.value),
            threshold: formatValue(rule.threshold),
            target: input.target,
            rule: rule.name,
          }),
    runbook: rule.runbook,
    labels: input.labels,
    offenders: status === 'firing' ? offenders : null,
    scoreboard:
      status === 'firing' && observation.kind === 'report' && offenders !== null
        ? scoreboardMap(observation.report.scoreboard)
        : null,
    down:
      observation.kind === 'down'
        ? {
            reason: cleanReportText(observation.reason, 40),
            detail: cleanReportText(observation.detail, 300),
            consecutiveFailures: input.consecutiveFailures,
          }
        : null,
  };
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
export { buildNotification };
