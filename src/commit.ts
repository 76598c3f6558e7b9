/**
 * Publish-then-commit of one target's evaluation, so that a page is never lost and never sent
 * twice, with conditional writes only (no transactions):
 *
 * 1. For an alert with a notification, claim it: a conditional update that succeeds only if the
 *    item is still at the version this run read and nobody holds an unexpired claim. A run that
 *    loses the claim sends nothing for it: the run that holds it does.
 * 2. Publish to SNS.
 * 3. Commit the alert's new state (it records the page as sent), conditional on holding the claim.
 *    If SNS failed, commit the new state without the page marked as sent (releasing the claim):
 *    the next run decides again and sends it. If the run dies between 2 and 3, the claim expires after the lease and the
 *    next run sends again: at-least-once, never silently lost.
 * Alerts without a notification are written only when they changed, conditional on their version.
 */

import type { LoadedState, StateTable } from './adapters/dynamoStateStore.ts';
import type { Notifier } from './adapters/snsNotifier.ts';
import type { EvaluateResult } from './core/alerts/evaluateTarget.ts';
import type { AlertRecord, Notification } from './core/alerts/types.ts';

interface CommitOutcome {
  sent: Notification[];
  /** Notifications another run holds or already sent: not published here. */
  skipped: Notification[];
  failed: Array<{ notification: Notification; error: unknown }>;
  /** Writes that lost their condition to another run (its newer state wins). */
  conflicts: number;
}

function same(a: AlertRecord | undefined, b: AlertRecord | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Publish and commit one target's evaluation; never throws for SNS failures (they are returned). */
async function commitEvaluation(
  table: StateTable,
  notifier: Notifier,
  loaded: LoadedState,
  result: EvaluateResult,
  now: Date,
  options: { token: string; leaseMs: number },
): Promise<CommitOutcome> {
  const outcome: CommitOutcome = { sent: [], skipped: [], failed: [], conflicts: 0 };
  const previous = loaded.state?.alerts ?? {};
  const next = { ...result.state.alerts };
  const byFingerprint = new Map(result.notifications.map((n) => [n.fingerprint, n]));

  for (const fingerprint of new Set([...Object.keys(previous), ...Object.keys(next)])) {
    const version = loaded.alertVersions[fingerprint] ?? null;
    const record = next[fingerprint];
    const notification = byFingerprint.get(fingerprint);
    if (notification !== undefined && record !== undefined) {
      const claimed = await table.claimAlert(fingerprint, version, options.token, now, options.leaseMs);
      if (claimed === null) {
        outcome.skipped.push(notification);
        continue;
      }
      let written = record;
      try {
        await notifier.publish(notification);
        outcome.sent.push(notification);
      } catch (error) {
        outcome.failed.push({ notification, error });
        // The state advances but the page is not recorded as sent: the next run sends it again.
        const before = previous[fingerprint];
        written = {
          ...record,
          lastSentAt: before?.lastSentAt ?? null,
          lastSentStatus: before?.lastSentStatus ?? null,
        };
        next[fingerprint] = written;
      }
      if (!(await table.putAlert(written, claimed, now, options.token))) outcome.conflicts++;
      continue;
    }
    if (same(previous[fingerprint], record)) continue;
    const ok =
      record === undefined
        ? version === null || (await table.deleteAlert(fingerprint, version))
        : await table.putAlert(record, version, now);
    if (!ok) outcome.conflicts++;
  }

  const targetOk = await table.putTarget({ ...result.state, alerts: next }, loaded.targetVersion, now);
  if (!targetOk) outcome.conflicts++;
  return outcome;
}

export type { CommitOutcome };
export { commitEvaluation };
