/**
 * Credentials in URLs, found with the WHATWG URL parser (the one `fetch` and `new URL` use, so a
 * password is cut where a client would cut it, whatever characters it holds), with a fallback for
 * text that does not parse: everything between `//` (or a typo's `:/`) and the last `@` of the
 * line is hidden. Hiding too much is the safe side: a password shown in a terminal, a log line or
 * a stored configuration is not taken back.
 */

const CharCodes = {
  Newline: 0x0a,
  Return: 0x0d,
  Space: 0x20,
  Hash: 0x23,
  Plus: 0x2b,
  Dash: 0x2d,
  Dot: 0x2e,
  Slash: 0x2f,
  Digit0: 0x30,
  Digit9: 0x39,
  Colon: 0x3a,
  Question: 0x3f,
  UpperA: 0x41,
  UpperZ: 0x5a,
  Backslash: 0x5c,
  LowerA: 0x61,
  LowerZ: 0x7a,
} as const;

/** A URL longer than this is not parsed (the fallback applies): the parse is the cost per marker. */
const MAX_PARSED_URL_CHARS = 4096;

const isSchemeChar = (c: number) =>
  (c >= CharCodes.UpperA && c <= CharCodes.UpperZ) ||
  (c >= CharCodes.LowerA && c <= CharCodes.LowerZ) ||
  (c >= CharCodes.Digit0 && c <= CharCodes.Digit9) ||
  c === CharCodes.Plus ||
  c === CharCodes.Dash ||
  c === CharCodes.Dot;

const isLineEnd = (c: number) => c === CharCodes.Newline || c === CharCodes.Return;

/** Where the authority starts after a `//` or `:/` at `i` (a `/`), or -1 when `i` starts none. */
function authorityStart(text: string, i: number): number {
  if (text.charCodeAt(i + 1) === CharCodes.Slash) return i + 2;
  return text.charCodeAt(i - 1) === CharCodes.Colon ? i + 1 : -1;
}

/** Where the `scheme:` before the marker's first `/` (at `slash`) begins, or -1 when there is none. */
function schemeStart(text: string, slash: number): number {
  const colon = slash - 1;
  if (text.charCodeAt(colon) !== CharCodes.Colon) return -1;
  let i = colon;
  while (i > 0 && isSchemeChar(text.charCodeAt(i - 1))) i--;
  return i < colon ? i : -1;
}

/** Where the raw authority starting at `start` ends, as the WHATWG parser reads it (`/ ? # \`). */
function authorityEnd(text: string, start: number, lineEnd: number): number {
  for (let i = start; i < lineEnd; i++) {
    const c = text.charCodeAt(i);
    if (c === CharCodes.Slash || c === CharCodes.Question || c === CharCodes.Hash || c === CharCodes.Backslash)
      return i;
  }
  return lineEnd;
}

function lastAtBetween(text: string, from: number, to: number): number {
  const at = text.lastIndexOf('@', to - 1);
  return at >= from ? at : -1;
}

function parses(candidate: string): URL | null {
  if (candidate.length > MAX_PARSED_URL_CHARS) return null;
  try {
    return new URL(candidate);
  } catch {
    return null;
  }
}

/**
 * Where the credentials after the marker at `start` end (the `@` that closes them), or -1 when
 * there are none. Parsed: the last `@` of the authority. Not parsed, or parsed with a `:` in
 * the authority and an `@` later (a password cut at a `/` or `\\`): the last `@` of the line.
 */
function credentialsEnd(text: string, slash: number, start: number, lineEnd: number): number {
  const lastAt = lastAtBetween(text, start, lineEnd);
  if (lastAt < 0) return -1;
  const scheme = schemeStart(text, slash);
  const url = scheme < 0 ? null : parses(text.slice(scheme, lineEnd));
  if (url === null) return lastAt;
  if (url.username !== '' || url.password !== '') return lastAtBetween(text, start, authorityEnd(text, start, lineEnd));
  // `host:` then a cut: a password that starts with digits, `/` or `\` ends up as a port or a path.
  const end = authorityEnd(text, start, lineEnd);
  return end < lastAt && text.lastIndexOf(':', end - 1) >= start ? lastAt : -1;
}

/** What is shown instead of the credentials: `user:***` when a plain user name comes first, else `***`. */
function shownCredentials(credentials: string): string {
  const colon = credentials.indexOf(':');
  if (colon <= 0) return '***';
  for (let i = 0; i < colon; i++) {
    const c = credentials.charCodeAt(i);
    if (c <= CharCodes.Space || c === CharCodes.Slash || c === CharCodes.Question || c === CharCodes.Hash) return '***';
  }
  return `${credentials.slice(0, colon)}:***`;
}

/**
 * Credentials in URLs hidden wherever they appear in `text`: `https://user:pass@host/` becomes
 * `https://user:***@host/`, `https://token@host/` becomes `https://***@host/`, a password with
 * `/ ? # ' "` or spaces included, a `https:/` typo too. No regex: the text may be untrusted. The
 * one redaction every log line, error, page, state item, stored configuration and CLI output
 * goes through.
 *
 * @example
 * redactCredentials('GET https://ops:s3cret@web-1/server-status failed') // 'GET https://ops:***@web-1/server-status failed'
 * redactCredentials('https://ops:a/b#c@web-1/')                          // 'https://***@web-1/'
 */
function redactCredentials(text: string): string {
  let out = '';
  let copied = 0;
  let lineEnd = -1;
  for (let i = text.indexOf('/'); i >= 0; i = text.indexOf('/', i + 1)) {
    const start = authorityStart(text, i);
    if (start < 0) continue;
    if (lineEnd < start) {
      lineEnd = start;
      while (lineEnd < text.length && !isLineEnd(text.charCodeAt(lineEnd))) lineEnd++;
    }
    const end = credentialsEnd(text, i, start, lineEnd);
    if (end < 0) continue;
    out += `${text.slice(copied, start)}${shownCredentials(text.slice(start, end))}`;
    copied = end;
    i = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Whether a URL carries credentials in any form (user, password, or an `@` anywhere after its
 * `//` that a parser might read as one): such a URL is refused where it would be stored in plain
 * text (a target parameter), pointing to `--auth-parameter`.
 *
 * @example
 * urlHasCredentials('https://web-1/server-status')     // false
 * urlHasCredentials('https:/ops:pw@web-1/server-status') // true
 */
function urlHasCredentials(url: string): boolean {
  for (let i = url.indexOf('/'); i >= 0; i = url.indexOf('/', i + 1)) {
    const start = authorityStart(url, i);
    if (start >= 0) return url.indexOf('@', start) >= 0;
  }
  return false;
}

export { redactCredentials, urlHasCredentials };
