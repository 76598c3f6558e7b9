/**
 * Report text (client, vhost, request) is untrusted: anyone who can send a request to the server
 * chooses it. Before it reaches a page it loses control characters (no forged lines), markup
 * characters and non-ASCII are percent-encoded (no HTML, Markdown links or mentions), and it is capped.
 */
import { MAX_REPORT_TEXT_CHARS } from '../constants.ts';

// C0, DEL, C1, zero-width and bidi controls, line/paragraph separators, BOM.
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g;
// Everything else outside this set is percent-encoded: `< > [ ] ( ) \` * | { } \ " @ !` and non-ASCII.
const SAFE = /[A-Za-z0-9 \-._~:/?=+,;%$'&#^]/;

function percentEncode(c: string): string {
  return [...new TextEncoder().encode(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/**
 * Untrusted text made safe for a page: one line, printable ASCII without markup, at most `max`
 * characters (cut text ends in `...`).
 *
 * @example
 * cleanReportText('GET /<script>\n HTTP/1.1') // 'GET /%3Cscript%3E HTTP/1.1'
 */
function cleanReportText(text: string, max = MAX_REPORT_TEXT_CHARS): string {
  let out = '';
  for (const c of text.replace(CONTROL, '')) {
    out += SAFE.test(c) ? c : percentEncode(c);
    if (out.length > max) break;
  }
  if (out.length <= max) return out;
  // Do not leave half an escape (`%3`) before the ellipsis.
  return `${out.slice(0, max - 3).replace(/%[0-9A-F]?$/, '')}...`;
}

/** Text for the subject: printable ASCII only (others become `?`), one line. */
function cleanSubjectText(text: string): string {
  return text.replace(CONTROL, '').replace(/[^\x20-\x7e]/g, '?');
}

/** Text from configuration (summary, target labels): no control characters, capped. */
function cleanConfigText(text: string, max = 500): string {
  const out = text.replace(CONTROL, ' ');
  return out.length <= max ? out : `${out.slice(0, max - 3)}...`;
}

const COLON = 0x3a;
const SLASH = 0x2f;
const AT = 0x40;

/** Where a URL's authority ends: the first `/ ? #`, white space or quote after `from`. */
function authorityEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === SLASH || c === 0x3f || c === 0x23 || c <= 0x20 || c === 0x22 || c === 0x27 || c === 0x3e) return i;
  }
  return text.length;
}

/**
 * Credentials in URLs hidden wherever they appear in `text`: `https://user:pass@host/` becomes
 * `https://user:***@host/`, `https://token@host/` becomes `https://***@host/`. One forward scan,
 * no regex: the text may be untrusted and long. The one redaction every log line, error, page,
 * state item and CLI output goes through.
 *
 * @example
 * redactCredentials('GET https://ops:s3cret@web-1/server-status failed') // 'GET https://ops:***@web-1/server-status failed'
 */
function redactCredentials(text: string): string {
  let out = '';
  let copied = 0;
  let from = 0;
  for (;;) {
    const scheme = text.indexOf('://', from);
    if (scheme < 0) break;
    const start = scheme + 3;
    const end = authorityEnd(text, start);
    const at = text.lastIndexOf('@', end - 1);
    if (at >= start && text.charCodeAt(at) === AT) {
      const userinfo = text.slice(start, at);
      const colon = userinfo.indexOf(String.fromCharCode(COLON));
      const shown = colon < 0 ? '***' : `${userinfo.slice(0, colon)}:***`;
      out += `${text.slice(copied, start)}${shown}`;
      copied = at;
    }
    from = Math.max(end, start);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

export { cleanConfigText, cleanReportText, cleanSubjectText, redactCredentials };
