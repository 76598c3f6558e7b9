/**
 * Report text (client, vhost, request) and fetched text (a body's first bytes, a redirect's
 * Location) are untrusted: anyone who can send a request to the server, or answer in its place,
 * chooses them. A page is read by a tired person who trusts it, in clients that turn URLs, host
 * names and markup into links and formatting. So untrusted text is cleaned in one place, for one of
 * two uses: shown to people (`page`: defanged, no markup, printable ASCII) or kept for machines
 * (`data`: the value itself, without invisible characters). Both are capped and have URL
 * credentials redacted. Beside them: the terminal filter (terminalText.ts) and the credential
 * redaction (redact.ts), exported from here so that there is one place to import cleaning from.
 * The characters that hide text are one list (hiddenChars.ts) for this and the terminal filter.
 */
import { MAX_REPORT_TEXT_CHARS } from '../constants.ts';
import { isHiddenChar, isHiddenPair } from './hiddenChars.ts';
import { redactCredentials, urlHasCredentials } from './redact.ts';
import { cleanTerminalText } from './terminalText.ts';

/** What cleaned text is for: a human-readable variant (subject, text, SMS, Chatbot) or a JSON field. */
const TEXT_USES = { page: 'page', data: 'data' } as const;
type TextUse = (typeof TEXT_USES)[keyof typeof TEXT_USES];

const CharCodes = {
  Space: 0x20,
  Dash: 0x2d,
  Dot: 0x2e,
  Digit0: 0x30,
  Digit9: 0x39,
  Colon: 0x3a,
  UpperA: 0x41,
  UpperZ: 0x5a,
  Underscore: 0x5f,
  LowerA: 0x61,
  LowerZ: 0x7a,
  Del: 0x7f,
} as const;

/** Invisible or line-breaking: C0, DEL, C1, and the hidden characters (hiddenChars.ts). */
function isInvisible(c: number): boolean {
  return c < CharCodes.Space || (c >= CharCodes.Del && c <= 0x9f) || isHiddenChar(c);
}

const isLetter = (c: number) =>
  (c >= CharCodes.UpperA && c <= CharCodes.UpperZ) || (c >= CharCodes.LowerA && c <= CharCodes.LowerZ);
const isDigit = (c: number) => c >= CharCodes.Digit0 && c <= CharCodes.Digit9;
/** Characters of a host name, a file name or a scheme: one "word" for the defanging. */
const isWordChar = (c: number) =>
  isLetter(c) || isDigit(c) || c === CharCodes.Dash || c === CharCodes.Dot || c === CharCodes.Underscore;

// Printable ASCII that no client reads as markup, a mention or a link: kept as is on a page. Left out
// (so percent-encoded): < > [ ] ( ) ` * _ ~ | { } \ " @ ! # and everything outside printable ASCII.
const PAGE_SAFE: ReadonlySet<number> = new Set([..." -.:/?=+,;%$'&^"].map((c) => c.charCodeAt(0)));

function percentEncode(c: string): string {
  let out = '';
  for (const b of new TextEncoder().encode(c)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/** Text without invisible characters (every other code point kept). */
function stripInvisible(text: string): string {
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const pair = isHiddenPair(text.charCodeAt(i), text.charCodeAt(i + 1));
    if (!pair && !isInvisible(text.charCodeAt(i))) continue;
    out += text.slice(copied, i);
    if (pair) i++;
    copied = i + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Whether a word's dots are bracketed: any word with a letter (or `_`, shown as `%5F`) could end
 * in a top-level domain (`evil.example`, `page.html`, `.com` after an escape), so its dots are;
 * words of digits, dots and `-` (`10.0.0.7`, `1.1`) cannot, and stay as they are.
 */
function bracketsDots(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (isLetter(c) || c === CharCodes.Underscore) return true;
  }
  return false;
}

/**
 * The pieces a word is shown as: dots of words with a letter bracketed (`evil[.]example`), `_`
 * percent-encoded (emphasis), everything else as is. Pieces are never split by the cap.
 */
function wordPieces(word: string, pieces: string[], room: number): void {
  const bracket = bracketsDots(word);
  // Every piece is at least one character: past `room` pieces the cap is passed anyway.
  for (let i = 0; i < word.length && i <= room; i++) {
    const c = word.charCodeAt(i);
    if (c === CharCodes.Dot && bracket) pieces.push('[.]');
    else if (c === CharCodes.Underscore) pieces.push('%5F');
    else pieces.push(word[i] as string);
  }
}

/** `scheme://` defanged: `hxxp://`, `hxxps://`; any other scheme keeps its name and loses the link: `ftp[:]//`. */
function schemePieces(word: string, pieces: string[], room: number): void {
  const lower = word.toLowerCase();
  if (lower === 'http' || lower === 'https') {
    pieces.push(lower === 'http' ? 'hxxp://' : 'hxxps://');
    return;
  }
  wordPieces(word, pieces, room);
  pieces.push('[:]//');
}

/**
 * Untrusted text as pieces for a page: scanned once, words and `://` recognised by char codes.
 * Stops once the pieces pass `max` characters; `complete` says whether all of `text` was read.
 */
function pagePieces(text: string, max: number): { pieces: string[]; complete: boolean } {
  const pieces: string[] = [];
  let length = 0;
  let i = 0;
  while (i < text.length && length <= max) {
    const before = pieces.length;
    const c = text.charCodeAt(i);
    if (isWordChar(c)) {
      let end = i;
      while (end < text.length && isWordChar(text.charCodeAt(end))) end++;
      const word = text.slice(i, end);
      if (text.startsWith('://', end)) {
        schemePieces(word, pieces, max - length);
        end += 3;
      } else wordPieces(word, pieces, max - length);
      i = end;
    } else if (c === CharCodes.Colon && text.startsWith('://', i)) {
      pieces.push('[:]//');
      i += 3;
    } else {
      const point = String.fromCodePoint(text.codePointAt(i) as number);
      pieces.push(PAGE_SAFE.has(c) ? point : percentEncode(point));
      i += point.length;
    }
    for (let k = before; k < pieces.length; k++) length += (pieces[k] as string).length;
  }
  return { pieces, complete: i >= text.length };
}

/** Pieces joined within `max` characters; cut text ends in `...`, never inside a piece. */
function joinCapped(pieces: string[], complete: boolean, max: number): string {
  let length = 0;
  for (const p of pieces) length += p.length;
  if (complete && length <= max) return pieces.join('');
  while (pieces.length > 0 && length > max - 3) length -= (pieces.pop() as string).length;
  return `${pieces.join('')}...`;
}

/** `text` cut at `max` UTF-16 units with `...`, never between the halves of a surrogate pair. */
function capCodeUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(max - 3, 0);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}...`;
}

/**
 * Untrusted text (from a report or a fetched response) made safe to show or to store. Invisible
 * characters are removed (no forged lines, no reordered text) and URL credentials redacted; then,
 * for `use: 'page'` (the default; every human-readable variant):
 * - schemes defanged: `https://` -> `hxxps://`, `ftp://` -> `ftp[:]//`;
 * - dots of words with a letter bracketed: `evil.example` -> `evil[.]example` (`10.0.0.7` stays);
 * - markup and mention characters (`< > [ ] ( ) \` * _ ~ | { } \ " @ ! #`) and everything outside
 *   printable ASCII (homoglyphs included) percent-encoded, so the text reads the same in every
 *   client and none turns it into a link, markup or formatting.
 *
 * For `use: 'data'` (JSON fields machines use) the value is otherwise kept. Either is at most
 * `max` characters (default `MAX_REPORT_TEXT_CHARS`); cut text ends in `...`. Linear in the input.
 *
 * @example
 * cleanReportText('GET https://evil.example/_x_ HTTP/1.1') // 'GET hxxps://evil[.]example/%5Fx%5F HTTP/1.1'
 * cleanReportText('GET /caf\u00e9\r\n', { use: 'data' })   // 'GET /caf\u00e9'
 */
function cleanReportText(text: string, options: { max?: number; use?: TextUse } = {}): string {
  const max = options.max ?? MAX_REPORT_TEXT_CHARS;
  const clean = redactCredentials(stripInvisible(text));
  if (options.use === TEXT_USES.data) return capCodeUnits(clean, max);
  const { pieces, complete } = pagePieces(clean, max);
  return joinCapped(pieces, complete, max);
}

/**
 * A JSON value (a page's payload) as people may read it, for a consumer that shows every field
 * (PagerDuty's `custom_details`), cleaned as the text page cleans each value:
 * - strings inside a field named in `reportText`, at any depth (the payload's `offenders` and
 *   `down`: report and fetched text), for a page (`use: 'page'`), capped at that field's number;
 * - every other string (fingerprints, times, rule, target, labels: the monitor's own values or its
 *   configuration) as data, not capped again (the builder capped it), so that it stays exact.
 * Keys, numbers, booleans and null are kept; the input is not changed. Cleaned text is not
 * cleaned again (`evil[.]example` would read `evil%5B.%5Dexample`): call this once, on what was
 * published.
 *
 * @example
 * cleanJsonForPeople({ at: '2026-11-22T12:00:00.000Z', down: { detail: 'see https://evil.example' } }, { down: 300 })
 * // { at: '2026-11-22T12:00:00.000Z', down: { detail: 'see hxxps://evil[.]example' } }
 */
function cleanJsonForPeople(value: unknown, reportText: Readonly<Record<string, number>>, max?: number): unknown {
  if (typeof value === 'string')
    return max === undefined
      ? cleanReportText(value, { use: TEXT_USES.data, max: Number.POSITIVE_INFINITY })
      : cleanReportText(value, { use: TEXT_USES.page, max });
  if (Array.isArray(value)) return value.map((v) => cleanJsonForPeople(v, reportText, max));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      cleanJsonForPeople(v, reportText, max ?? (Object.hasOwn(reportText, k) ? reportText[k] : undefined)),
    ]),
  );
}

/** Text for the subject: printable ASCII only (others become `?`), one line. */
function cleanSubjectText(text: string): string {
  let out = '';
  for (const c of stripInvisible(text)) {
    const code = c.charCodeAt(0);
    out += c.length === 1 && code >= CharCodes.Space && code < CharCodes.Del ? c : '?';
  }
  return out;
}

/** Text from configuration (summary, target labels): invisible characters become spaces, capped. */
function cleanConfigText(text: string, max = 500): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += isInvisible(text.charCodeAt(i)) ? ' ' : text[i];
  return capCodeUnits(out, max);
}

export type { TextUse };
export {
  cleanConfigText,
  cleanJsonForPeople,
  cleanReportText,
  cleanSubjectText,
  cleanTerminalText,
  redactCredentials,
  TEXT_USES,
  urlHasCredentials,
};
