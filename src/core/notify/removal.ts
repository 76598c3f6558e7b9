/**
 * The resolve page of an alert that left the configuration: its target was removed, its rule was
 * removed or renamed, or the rule's `targets` no longer match. The firing page went out, so the
 * incident it opened is closed with a page saying why.
 */
import { groupRefOfKey, withContinuation } from '../alerts/group.ts';
import type { AlertRecord, Notification } from '../alerts/types.ts';
import { MAX_SUBJECT_CHARS } from '../constants.ts';
import type { RemovalMessage } from '../message/alertMessage.ts';
import { cleanConfigText, cleanSubjectText } from '../text/sanitize.ts';

/** Why an alert left the configuration; the words the page carries. */
const REMOVAL_CAUSES = {
  targetRemoved: 'target removed from configuration',
  ruleRemoved: 'rule removed',
  ruleNarrowed: 'rule no longer applies to this target',
} as const;
type RemovalCause = (typeof REMOVAL_CAUSES)[keyof typeof REMOVAL_CAUSES];

interface RemovalInput {
  alert: AlertRecord;
  cause: RemovalCause;
  labels: Record<string, string>;
  now: Date;
}

/** `[RESOLVED warning] web-1: closing-pileup (rule removed)`, under 100 ASCII characters. */
function removalSubject(alert: AlertRecord, cause: RemovalCause): string {
  const head = `[RESOLVED ${alert.severity}] `;
  const tail = `: ${cleanSubjectText(alert.rule).slice(0, 40)} (${cause})`;
  let target = cleanSubjectText(alert.target);
  const room = MAX_SUBJECT_CHARS - head.length - tail.length;
  if (target.length > room) target = `${target.slice(0, Math.max(room - 3, 1))}...`;
  return `${head}${target}${tail}`.slice(0, MAX_SUBJECT_CHARS);
}

/**
 * @example
 * buildRemovalNotification({ alert, cause: REMOVAL_CAUSES.ruleRemoved, labels: {}, now }).subject
 * // '[RESOLVED critical] web-1: closing-seen (rule removed)'
 */
function buildRemovalNotification({ alert, cause, labels, now }: RemovalInput): Notification {
  const target = cleanConfigText(alert.target, 200);
  const rule = cleanConfigText(alert.rule, 200);
  const message = [
    `RESOLVED ${alert.severity}: ${rule} on ${target}: ${cause}`,
    `The alert was firing since ${alert.firedAt ?? 'n/a'} (last value ${alert.value ?? 'n/a'}, threshold ${alert.threshold}).`,
    'It is no longer evaluated, so it is closed here and its state deleted; nothing more will be sent for it.',
    `Evaluated at ${now.toISOString()}.`,
  ].join('\n');
  return {
    fingerprint: alert.fingerprint,
    status: 'resolved',
    reason: 'resolved',
    target: alert.target,
    rule: alert.rule,
    severity: alert.severity,
    value: alert.value,
    threshold: alert.threshold,
    subject: removalSubject(alert, cause),
    message,
    payload: {
      version: 1,
      status: 'resolved',
      reason: 'resolved',
      cause,
      fingerprint: alert.fingerprint,
      target: alert.target,
      rule: alert.rule,
      severity: alert.severity,
      threshold: alert.threshold,
      value: alert.value,
      activeAt: alert.activeAt,
      firedAt: alert.firedAt,
      resolvedAt: now.toISOString(),
      evaluatedAt: now.toISOString(),
      labels,
    } satisfies RemovalMessage,
    labels: { ...labels },
    // The resolve closes the group page that named the alert firing.
    group: alert.group == null ? null : withContinuation(groupRefOfKey(alert.group, null), alert.groupContinuation),
  };
}

export type { RemovalCause };
export { buildRemovalNotification, REMOVAL_CAUSES };
