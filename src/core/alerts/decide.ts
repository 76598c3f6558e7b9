/**
 * Whether an alert's step should be notified, and why: a pure decision apart from the state step
 * (Alertmanager's `needsUpdate`).
 */
import type { AlertRecord, NotifyReason } from './types.ts';

/**
 * `first`: firing and nothing sent for this firing episode (new, or held back by a silence or an
 * outage until now); `repeat`: still firing and the last page is `repeatIntervalMs` old;
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
    const firedAt = next.firedAt === null ? Number.NEGATIVE_INFINITY : Date.parse(next.firedAt);
    if (sentStatus !== 'firing' || sentAt === null || sentAt < firedAt) return 'first';
    return now.getTime() - sentAt >= repeatIntervalMs ? 'repeat' : 'none';
  }
  return next.resolvedAt !== null && sentStatus === 'firing' ? 'resolved' : 'none';
}

export { decideNotification };
