/**
 * A target that stops answering while it was full: a timeout right after a report with almost no
 * free slot (or a forecast of minutes) is most likely the server's own exhaustion, not an outage.
 */
import { SATURATION_FORECAST_MINUTES, SATURATION_FREE_RATIO, SATURATION_LAST_SEEN_MAX_AGE_MS } from '../constants.ts';
import type { Observation } from './types.ts';

/** The figures of a target's last successful report that saturation is judged by. */
interface LastReport {
  /** Evaluation time of that report, ISO-8601. */
  at: string;
  /** Positions not free (the capacity less `slots_free`), and the capacity. */
  busy: number;
  total: number;
  /** `minutes_to_exhaustion` then; null when there was no forecast. */
  minutesToExhaustion: number | null;
}

/** What the failure page says of the report seen last: busy of total slots, and when. */
interface LastSeen {
  busy: number;
  total: number;
  at: string;
}

/**
 * The last report that makes this failure `likely saturated`, or null: the fetch timed out (the
 * fetcher's `timeout` covers a connection accepted and never answered), and the last successful
 * report, at most 10 minutes old, had at most 10 % of its slots free or a forecast of at most 5
 * minutes.
 *
 * @example
 * likelySaturated({ kind: 'down', reason: 'timeout', detail }, { at: '…11:59Z', busy: 250, total: 256, minutesToExhaustion: null }, now)
 * // { busy: 250, total: 256, at: '…11:59Z' }
 */
function likelySaturated(observation: Observation, last: LastReport | null | undefined, now: Date): LastSeen | null {
  if (observation.kind !== 'down' || observation.reason !== 'timeout' || last == null) return null;
  const ageMs = now.getTime() - Date.parse(last.at);
  if (!(ageMs >= 0 && ageMs <= SATURATION_LAST_SEEN_MAX_AGE_MS)) return null;
  const full = last.total > 0 && (last.total - last.busy) / last.total <= SATURATION_FREE_RATIO;
  const forecast = last.minutesToExhaustion !== null && last.minutesToExhaustion <= SATURATION_FORECAST_MINUTES;
  return full || forecast ? { busy: last.busy, total: last.total, at: last.at } : null;
}

export type { LastReport, LastSeen };
export { likelySaturated };
