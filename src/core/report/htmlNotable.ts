/**
 * The "Server Details" list of a `?notable` page, read into `Slot`s. Each entry is
 * `<b>Server 0-0</b> (16985): 0|118|118 [<b>Write</b>] u0 s0 cu0 cs0\n 5 0 6(0 B|6.3 MB|6.3 MB)\n
 * <i>127.0.0.1 {GET / HTTP/1.1}</i> <i>(http/1.1)</i> <b>[www.example.test:80]</b><br />`:
 * CPU as four parts, sizes as human-readable bytes, Dur (2.4.35+) and Protocol (2.4.19+) optional.
 */
import { decodeEntities, isRequestTruncated, parseAprNumber } from './common.ts';
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

const ENTRY_START = /<b>\s*Server\s/gi;
// Sticky: matched at each entry start only, so the list is read in one pass.
const ENTRY = new RegExp(
  [
    String.raw`<b>\s*Server\s+(\S+?)\s*</b>\s*\(([^)]*)\):\s*(\d+)\|(\d+)\|(\d+)\s*`,
    String.raw`\[(?:<b>)?([^<\]]*)(?:</b>)?\]\s*u(\S+)\s+s(\S+)\s+cu(\S+)\s+cs(\S+)\s+`,
    String.raw`(-?\d+)\s+(-?\d+)(?:\s+(-?\d+))?\s*\(([^|)]*)\|([^|)]*)\|([^|)]*)\)\s*`,
    String.raw`<i>([^<]*?)\s*\{([^<]*)\}</i>\s*(?:<i>\(([^<]*)\)</i>\s*)?<b>\[([^<]*)\]</b>`,
  ].join(''),
  'iy',
);

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
 * Read the entries of a "Server Details" list (`html` is the page from `</h2>` to the list's end).
 * Entries that do not have the expected shape are skipped with a warning.
 */
function readNotableSlots(html: string, warnings: string[]): Slot[] {
  const slots: Slot[] = [];
  const starts: number[] = [];
  ENTRY_START.lastIndex = 0;
  for (let m = ENTRY_START.exec(html); m !== null; m = ENTRY_START.exec(html)) starts.push(m.index);
  starts.forEach((start, n) => {
    ENTRY.lastIndex = start;
    const m = ENTRY.exec(html);
    const slot = m === null ? null : notableSlot(m, warnings);
    if (slot !== null) slots.push(slot);
    else {
      const end = starts[n + 1] ?? html.length;
      const entry = html.slice(start, Math.min(end, start + 80)).replace(/\s+/g, ' ');
      warnings.push(`Server Details entry ${n + 1} (${JSON.stringify(entry)}) could not be read; skipped`);
    }
  });
  return slots;
}

function notableSlot(m: RegExpExecArray, warnings: string[]): Slot | null {
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
  const request = decodeEntities(g(18));
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
    client: decodeEntities(g(17)),
    protocol: m[19] === undefined ? null : decodeEntities(m[19]),
    vhost: decodeEntities(g(20)),
    request,
    requestTruncated: isRequestTruncated(request),
  };
}

export { parseBytes, readNotableSlots, STATE_MODES, sumCpu };
