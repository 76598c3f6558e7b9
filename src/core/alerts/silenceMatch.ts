/**
 * Silences: time-bounded matchers (target, rule) that suppress notifications. The alert's state
 * still advances, so what a silence held back is sent when it ends. Their documents are read in
 * silences.ts; this file needs no schema, so evaluating (`check --file`) loads none.
 */

import { globMatch } from '../rules/glob.ts';

interface Silence {
  /** Where it came from (SSM parameter name or file), for people. */
  source: string;
  /** Target name or `*` glob. */
  target: string;
  /** Rule name or `*` glob. */
  rule: string;
  /** Start of a scheduled silence (maintenance window), ISO-8601 (UTC); null: in force at once. */
  startsAt: string | null;
  /** End of the silence, ISO-8601 (UTC). */
  until: string;
  comment: string | null;
}

/** Whether the silence is in force at `now`: from `startsAt` (inclusive) until `until` (exclusive). */
function silenceActive(silence: Silence, now: Date): boolean {
  const at = now.getTime();
  return (silence.startsAt === null || at >= Date.parse(silence.startsAt)) && at < Date.parse(silence.until);
}

/** The first silence in force at `now` for this target and rule, if any. */
function findSilence(silences: readonly Silence[], target: string, rule: string, now: Date): Silence | undefined {
  return silences.find((s) => silenceActive(s, now) && globMatch(s.target, target) && globMatch(s.rule, rule));
}

export type { Silence };
export { findSilence, silenceActive };
