/**
 * Durations as rules write them: `30s`, `5m`, `1h`, also combined (`1h30m`).
 */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+(ms|s|m|h|d))+$/;
const PART = /(\d+)(ms|s|m|h|d)/g;

/** Milliseconds of a duration such as `2m` or `1h30m`; null when the text is not one. */
function parseDuration(text: string): number | null {
  if (!DURATION.test(text)) return null;
  let total = 0;
  for (const m of text.matchAll(PART)) total += Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  return Number.isSafeInteger(total) ? total : null;
}

/** The shortest readable form, e.g. 90_000 -> `1m30s`, 0 -> `0s`. */
function formatDuration(ms: number): string {
  if (ms <= 0) return '0s';
  let rest = Math.round(ms / 1000);
  if (rest === 0) return `${ms}ms`;
  let out = '';
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out;
}

export { formatDuration, parseDuration };
