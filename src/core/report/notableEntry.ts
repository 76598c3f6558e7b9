/**
 * One "Server Details" entry of a `?notable` page, as the HTML (tags removed) and the text readers
 * both see it: `Server 0-0 (16985): 0|118|118 [Write] u0 s0 cu0 cs0 5 0 6(0 B|6.3 MB|6.3 MB)
 * 127.0.0.1 {GET / HTTP/1.1} (http/1.1) [www.example.test:80]`. `readNotableFields` cuts it into
 * fields: 1 Srv, 2 PID, 3-5 Acc, 6 state word, 7-10 CPU parts (u s cu cs), 11 SS, 12 Req, 13 Dur
 * (2.4.35+), 14-16 Conn/Child/Slot as human-readable bytes, 17 Client, 18 Request, 19 Protocol
 * (2.4.19+), 20 VHost. It scans character codes once, left to right, with no backtracking: the
 * text between the braces is written by clients, so no regex runs over it.
 */
import { CharCodes, isWhitespace } from './charCodes.ts';
import { isRequestTruncated, parseAprNumber } from './common.ts';
import type { Slot } from './types.ts';

const Char = CharCodes; // a module-local binding: see charCodes.ts

/** The fields of one entry, indexed as documented above; `undefined` for an absent Dur or Protocol. */
type NotableFields = ReadonlyArray<string | undefined>;

const isDigit = (c: number): boolean => c >= Char.Zero && c <= Char.Nine;

/** A cursor over one entry; every method consumes what it reads or returns null / false. */
class EntryCursor {
  readonly text: string;
  pos = 0;
  end: number;

  constructor(text: string) {
    this.text = text;
    this.end = text.length;
    while (this.end > 0 && isWhitespace(text.charCodeAt(this.end - 1))) this.end--;
  }

  /** Skip whitespace; whether there was any. */
  space(): boolean {
    const from = this.pos;
    while (this.pos < this.end && isWhitespace(this.text.charCodeAt(this.pos))) this.pos++;
    return this.pos > from;
  }

  char(code: number): boolean {
    if (this.pos >= this.end || this.text.charCodeAt(this.pos) !== code) return false;
    this.pos++;
    return true;
  }

  /** `word` as is (`u`, `cu`), or ignoring case when `anyCase`. */
  word(word: string, anyCase = false): boolean {
    const slice = this.text.slice(this.pos, this.pos + word.length);
    if ((anyCase ? slice.toLowerCase() : slice) !== word) return false;
    this.pos += word.length;
    return true;
  }

  /** Characters up to (not including) the first of `stops`, or up to whitespace when `stopAtSpace`. */
  until(stops: readonly number[], stopAtSpace = false): string {
    const from = this.pos;
    for (; this.pos < this.end; this.pos++) {
      const c = this.text.charCodeAt(this.pos);
      if (stops.includes(c) || (stopAtSpace && isWhitespace(c))) break;
    }
    return this.text.slice(from, this.pos);
  }

  /** A run of digits, `-` first when `signed`; null when there is none. */
  integer(signed: boolean): string | null {
    const from = this.pos;
    if (signed && this.pos < this.end && this.text.charCodeAt(this.pos) === Char.Dash) this.pos++;
    const digits = this.pos;
    while (this.pos < this.end && isDigit(this.text.charCodeAt(this.pos))) this.pos++;
    if (this.pos === digits) {
      this.pos = from;
      return null;
    }
    return this.text.slice(from, this.pos);
  }

  /** A non-empty run of non-whitespace characters after `prefix`, then whitespace. */
  part(prefix: string): string | null {
    if (!this.word(prefix)) return null;
    const value = this.until([], true);
    return value !== '' && this.space() ? value : null;
  }
}

/** `a|b|c`: three digit runs; null when the entry does not have them. */
function readAcc(cursor: EntryCursor): [string, string, string] | null {
  const a = cursor.integer(false);
  if (a === null || !cursor.char(Char.Pipe)) return null;
  const b = cursor.integer(false);
  if (b === null || !cursor.char(Char.Pipe)) return null;
  const c = cursor.integer(false);
  return c === null ? null : [a, b, c];
}

/** `SS Req [Dur]` then optional whitespace and `(`: two or three integers. */
function readTimes(cursor: EntryCursor): [string, string, string | undefined] | null {
  const ss = cursor.integer(true);
  if (ss === null || !cursor.space()) return null;
  const req = cursor.integer(true);
  if (req === null) return null;
  const spaced = cursor.space();
  const dur = spaced ? cursor.integer(true) : null;
  if (dur !== null) cursor.space();
  return cursor.char(Char.OpenParen) ? [ss, req, dur ?? undefined] : null;
}

/**
 * The client, request, protocol and vhost: `CLIENT {REQUEST} (PROTOCOL) [VHOST]`. The request runs
 * from the first `{` to the last `}` (a request may hold braces; the fields after it hold none).
 */
function readTail(cursor: EntryCursor): [string, string, string | undefined, string] | null {
  const text = cursor.text;
  const client = cursor.until([Char.OpenBrace]).trim();
  if (!cursor.char(Char.OpenBrace)) return null;
  const close = text.lastIndexOf('}', cursor.end - 1);
  if (close < cursor.pos) return null;
  const request = text.slice(cursor.pos, close);
  cursor.pos = close + 1;
  cursor.space();
  let protocol: string | undefined;
  if (cursor.char(Char.OpenParen)) {
    protocol = cursor.until([Char.CloseParen]);
    if (!cursor.char(Char.CloseParen)) return null;
    cursor.space();
  }
  if (!cursor.char(Char.OpenBracket) || text.charCodeAt(cursor.end - 1) !== Char.CloseBracket) return null;
  if (cursor.pos > cursor.end - 1) return null;
  return [client, request, protocol, text.slice(cursor.pos, cursor.end - 1)];
}

/**
 * Cut one entry (tags already removed) into its fields; null when it does not have the shape of
 * one. Linear in the entry's length: one left-to-right pass plus one `lastIndexOf('}')`.
 *
 * @example
 * readNotableFields('Server 0-0 (7): 0|1|1 [Ready] u0 s0 cu0 cs0 5 0 6(0 B|0 B|0 B) ::1 {NULL} (http/1.1) [a:80]')?.[1] // '0-0'
 */
function readNotableFields(entry: string): NotableFields | null {
  const cursor = new EntryCursor(entry);
  cursor.space();
  if (!cursor.word('server', true) || !cursor.space()) return null;
  const srv = cursor.until([Char.OpenParen], true);
  cursor.space();
  if (srv === '' || !cursor.char(Char.OpenParen)) return null;
  const pid = cursor.until([Char.CloseParen]);
  if (!cursor.char(Char.CloseParen) || !cursor.char(Char.Colon)) return null;
  cursor.space();
  const acc = readAcc(cursor);
  cursor.space();
  if (acc === null || !cursor.char(Char.OpenBracket)) return null;
  const state = cursor.until([Char.CloseBracket]);
  if (!cursor.char(Char.CloseBracket)) return null;
  cursor.space();
  const u = cursor.part('u');
  const s = u === null ? null : cursor.part('s');
  const cu = s === null ? null : cursor.part('cu');
  const cs = cu === null ? null : cursor.part('cs');
  const times = cs === null ? null : readTimes(cursor);
  if (times === null) return null;
  const conn = cursor.until([Char.Pipe, Char.CloseParen]);
  if (!cursor.char(Char.Pipe)) return null;
  const child = cursor.until([Char.Pipe, Char.CloseParen]);
  if (!cursor.char(Char.Pipe)) return null;
  const slot = cursor.until([Char.Pipe, Char.CloseParen]);
  if (!cursor.char(Char.CloseParen)) return null;
  cursor.space();
  const tail = readTail(cursor);
  if (tail === null) return null;
  return [
    entry,
    srv,
    pid,
    ...acc,
    state,
    u as string,
    s as string,
    cu as string,
    cs as string,
    ...times,
    conn,
    child,
    slot,
    ...tail,
  ];
}

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
function slotFromNotableEntry(m: NotableFields, warnings: string[], decode: (text: string) => string): Slot | null {
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

export type { NotableFields };
export { readNotableFields, slotFromNotableEntry };
