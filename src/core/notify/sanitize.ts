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

export { cleanConfigText, cleanReportText, cleanSubjectText };
