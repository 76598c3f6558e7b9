/**
 * One "Server Details" entry of a `?notable` page, as the HTML and the text readers both match it:
 * groups 1 Srv, 2 PID, 3-5 Acc, 6 state word, 7-10 CPU parts (u s cu cs), 11 SS, 12 Req, 13 Dur
 * (2.4.35+), 14-16 Conn/Child/Slot as human-readable bytes, 17 Client, 18 Request, 19 Protocol
 * (2.4.19+), 20 VHost.
 */
import { isRequestTruncated, parseAprNumber } from './common.ts';
import type { Slot } from './types.ts';

// The state words mod_status prints instead of the scoreboard character.
const STATE_MODES: Readonly<Record<string, string>> = {
  Ready: '_',
  Starting: 'S',
  Read: 'R',
  Write: 'W',
  Keepalive: 'K',
  Logging: 'L',
  'DNS lookup': 'D',
  Closing: 'C',
  Dead: '.',
  Graceful: 'G',
  Dying: 'I',
};

const BYTE_UNITS: Readonly<Record<string, number>> = { B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** `"6.3 MB"` (mod_status's byte format) to bytes; `NaN` when it is not one. */
function parseBytes(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(B|kB|MB|GB)\s*$/.exec(text);
  // Units are powers of two, so scaling keeps the printed precision exactly.
  return m ? Number(m[1]) * (BYTE_UNITS[m[2] as string] as number) : Number.NaN;
}

/** `u.1 s.36 cu0 cs0` summed as the table's CPU column does, rounded to the printed decimals. */
function sumCpu(parts: readonly string[]): number {
  let sum = 0;
  let decimals = 0;
  for (const part of parts) {
    const value = parseAprNumber(part);
    if (value === null) return Number.NaN;
    sum += value;
    const dot = part.indexOf('.');
    if (part.includes('e')) decimals = 20;
    else if (dot >= 0) decimals = Math.max(decimals, part.length - dot - 1);
  }
  return decimals >= 20 ? sum : Number(sum.toFixed(decimals));
}

/**
 * The slot of a matched entry, its text fields passed through `decode` (HTML entities, or as is);
 * `null` when a number does not read. An unknown state word is kept as `?` with a warning.
 */
function slotFromNotableEntry(m: RegExpExecArray, warnings: string[], decode: (text: string) => string): Slot | null {
  const g = (i: number): string => m[i] ?? '';
  const pid = g(2) === '-' ? null : Number(g(2));
  const cpu = sumCpu([g(7), g(8), g(9), g(10)]);
  const conn = parseBytes(g(14));
  const child = parseBytes(g(15));
  const total = parseBytes(g(16));
  if (Number.isNaN(pid) || Number.isNaN(cpu) || Number.isNaN(conn + child + total)) return null;
  const state = g(6).trim();
  const mode = STATE_MODES[state];
  if (mode === undefined) warnings.push(`slot ${g(1)}: state ${JSON.stringify(state)} is not one of the 11 modes`);
  const request = decode(g(18));
  return {
    srv: g(1),
    pid,
    acc: [Number(g(3)), Number(g(4)), Number(g(5))],
    mode: mode ?? '?',
    cpu,
    ss: Number(g(11)),
    reqMs: Number(g(12)),
    durMs: m[13] === undefined ? null : Number(m[13]),
    connKB: conn / 1024,
    childMB: child / 1024 ** 2,
    slotMB: total / 1024 ** 2,
    client: decode(g(17)),
    protocol: m[19] === undefined ? null : decode(m[19]),
    vhost: decode(g(20)),
    request,
    requestTruncated: isRequestTruncated(request),
  };
}

export { slotFromNotableEntry };
