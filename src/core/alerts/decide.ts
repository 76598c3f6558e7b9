/**
 * Whether an alert's step should be notified, and why: a pure decision apart from the state step
 * (Alertmanager's `needsUpdate`).
 */
import type { AlertRecord, NotifyReason } from './types.ts';

/**
 * `first`: firing and no firing page standing (new, held back by a silence or an outage until
 * now, or after a resolve that went out); a firing page whose resolve never went out still stands; `repeat`: still firing and the last page is `repeatIntervalMs` old;
 * `resolved`: no longer firing and the last thing sent said firing; otherwise `none` (pending is
 * never sent, and a still-firing alert is not re-sent every cycle).
 *
 * @param prev - the alert before this evaluation: what was sent (`lastSentAt`, `lastSentStatus`)
 * @param next - the alert after this evaluation's step
 * @example
 * decideNotification(firingSentAt12h, stillFiring, at16h, 4 * 3600_000) // 'repeat'
 */
function decideNotification(
  prev: AlertRecord | null,
  next: AlertRecord,
  now: Date,
  repeatIntervalMs: number,
): NotifyReason {
  const sentStatus = prev?.lastSentStatus ?? null;
  const sentAt = prev?.lastSentAt == null ? null : Date.parse(prev.lastSentAt);
  if (next.state === 'firing') {
    // A firing page whose resolve never went out (SNS refused it, then the condition returned)
    // still stands: the incident it opened is open, so the new episode continues it, no second page.
    if (sentStatus !== 'firing' || sentAt === null) return 'first';
    return now.getTime() - sentAt >= repeatIntervalMs ? 'repeat' : 'none';
  }
  return next.resolvedAt !== null && sentStatus === 'firing' ? 'resolved' : 'none';
}

export { decideNotification };
