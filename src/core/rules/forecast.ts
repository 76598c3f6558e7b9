/**
 * `minutes_to_exhaustion`: when the target's free worker slots run out at the current trend, from
 * a least-squares line through its free-slot counts (Prometheus' `predict_linear`, solved for 0).
 * The samples are carried in the target's state; this module only reads and returns them.
 */
import {
  FORECAST_MAX_MINUTES,
  FORECAST_MIN_SAMPLES,
  FORECAST_MIN_SPAN_MS,
  FORECAST_WINDOW_MS,
  MAX_FORECAST_SAMPLES,
} from '../constants.ts';

/** The free slots (`slots_free`, as the idle rule counts them) of one successful evaluation. */
interface FreeSlotSample {
  /** Evaluation time, ISO-8601. */
  at: string;
  free: number;
}

/** A forecast: minutes until no slot is free, the time that is, and the samples it was drawn from. */
interface Forecast {
  minutes: number;
  exhaustedAt: string;
  samples: FreeSlotSample[];
}

/** No forecast, and why; `unbounded` when the line shows no exhaustion in sight (not falling, or beyond 120 minutes). */
type ForecastResult = { ok: true; forecast: Forecast } | { ok: false; reason: string; unbounded: boolean };

const MINUTE_MS = 60_000;

/**
 * The samples to keep after an evaluation at `now`: those of the last 10 minutes before it, and
 * `free` (this evaluation's count; null when it had no report, which adds none). At most
 * `MAX_FORECAST_SAMPLES`, the newest. Samples not before `now` (a clock stepped back) are dropped.
 *
 * @example
 * freeSlotSamples([{ at: '2026-11-22T11:59:00Z', free: 40 }], 38, new Date('2026-11-22T12:00:00Z'))
 * // [{ at: '2026-11-22T11:59:00Z', free: 40 }, { at: '2026-11-22T12:00:00.000Z', free: 38 }]
 */
function freeSlotSamples(
  previous: readonly FreeSlotSample[] | null | undefined,
  free: number | null,
  now: Date,
): FreeSlotSample[] {
  const t = now.getTime();
  // The state may come from a hand-edited --state file: anything not a sample is dropped.
  const kept = (Array.isArray(previous) ? previous : []).filter((s: FreeSlotSample) => {
    const at = typeof s?.at === 'string' ? Date.parse(s.at) : Number.NaN;
    return typeof s?.free === 'number' && Number.isFinite(s.free) && at < t && t - at <= FORECAST_WINDOW_MS;
  });
  if (free !== null) kept.push({ at: now.toISOString(), free });
  return kept.slice(-MAX_FORECAST_SAMPLES);
}

/** Rounded to a tenth of a minute: a page says `in 7.5 minutes`, not `in 7.4999999`. */
const tenths = (minutes: number) => Math.round(minutes * 10) / 10;

/**
 * The forecast from `samples` (the last one is now's): 0 when no slot is free now, otherwise where
 * the least-squares line reaches 0; no forecast (with why) when there are too few samples, when
 * the line is not falling, or when it reaches 0 more than 120 minutes from now.
 *
 * @example
 * forecastExhaustion([{ at: '…12:00Z', free: 40 }, { at: '…12:01Z', free: 35 }, { at: '…12:02Z', free: 30 }], new Date('…12:02Z'))
 * // { ok: true, forecast: { minutes: 6, exhaustedAt: '…12:08:00.000Z', samples } }
 */
function forecastExhaustion(samples: readonly FreeSlotSample[], now: Date): ForecastResult {
  const t = now.getTime();
  const forecast = (minutes: number): ForecastResult => ({
    ok: true,
    forecast: { minutes, exhaustedAt: new Date(t + minutes * MINUTE_MS).toISOString(), samples: [...samples] },
  });
  const last = samples.at(-1);
  if (last !== undefined && Date.parse(last.at) === t && last.free <= 0) return forecast(0);
  const points = samples.map((s) => ({ x: (Date.parse(s.at) - t) / MINUTE_MS, y: s.free }));
  const spanMs =
    points.length === 0 ? 0 : (Math.max(...points.map((p) => p.x)) - Math.min(...points.map((p) => p.x))) * MINUTE_MS;
  if (points.length < FORECAST_MIN_SAMPLES || spanMs < FORECAST_MIN_SPAN_MS) {
    return {
      ok: false,
      reason: `${points.length} free-slot samples over ${Math.round(spanMs / 1000)} s in the last 10 minutes, fewer than ${FORECAST_MIN_SAMPLES} over 2 minutes`,
      unbounded: false,
    };
  }
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / points.length;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / points.length;
  const sxy = points.reduce((sum, p) => sum + (p.x - meanX) * (p.y - meanY), 0);
  const sxx = points.reduce((sum, p) => sum + (p.x - meanX) ** 2, 0);
  const slope = sxy / sxx;
  if (!(slope < 0)) return { ok: false, reason: 'the free slots are not falling', unbounded: true };
  // Where the line reaches 0, in minutes from now; a line already past 0 while slots are free says "now".
  const minutes = tenths(Math.max(0, meanX - meanY / slope));
  if (minutes > FORECAST_MAX_MINUTES) {
    return {
      ok: false,
      reason: `the free slots run out in ${minutes} minutes, beyond ${FORECAST_MAX_MINUTES}`,
      unbounded: true,
    };
  }
  return forecast(minutes);
}

export type { Forecast, ForecastResult, FreeSlotSample };
export { forecastExhaustion, freeSlotSamples };
