/**
 * `parseReport`: detect the input form and hand it to its parser.
 */
import { describeInput, NotAStatusReportError } from '../errors.ts';
import { parseAuto } from './auto.ts';
import { checkReport } from './check.ts';
import { parseHtml } from './html/page.ts';
import { parseText } from './text.ts';
import type { ReportFormat, StatusReport } from './types.ts';

const EXPECTED = 'an Apache server-status report (the HTML page, the ?auto page or a text dump of the HTML page)';

/** What each form is, as `--format` names it, for the error when the input is another one. */
const FORM_NAMES: Record<ReportFormat, string> = {
  html: 'the HTML server-status page',
  auto: 'the ?auto server-status page',
  text: 'a text dump of the HTML server-status page',
};

/** Which form `text` is in, or null when it looks like none of them. */
function detectFormat(text: string): ReportFormat | null {
  const head = text.slice(0, 4096);
  if (/<title>\s*Apache Status\s*<\/title>/i.test(head) || /<h1>\s*Apache Server Status for/i.test(head)) return 'html';
  if (/^Scoreboard: /m.test(text) && !/<html/i.test(head)) return 'auto';
  // [ \t]*, not \s*: \s* spans newlines, and a body of blank lines would make the scan quadratic.
  if (/^[ \t]*Scoreboard Key:/m.test(text) || /^[ \t]*Apache Server Status for /m.test(head)) return 'text';
  // A page saved without its head: the scoreboard's <pre> (at least one mode character, not an empty <pre>).
  if (/<pre>\s*[_SRWKDCLGI.][_SRWKDCLGI.\s]*<\/pre>/i.test(text)) return 'html';
  return null;
}

/**
 * Parse a server-status report in any of its forms.
 *
 * @example
 * const report = parseReport(await readFile('server-status.html', 'utf8'));
 * report.counts._ // idle workers on the scoreboard
 * @throws NotAStatusReportError when the input is not a report (404 page, empty, truncated), or
 *   `options.format` names another form than the input's
 */
function parseReport(text: string, options: { format?: ReportFormat } = {}): StatusReport {
  const detected = detectFormat(text);
  const format = options.format ?? detected;
  if (detected !== null && format !== detected) {
    // A forced form must be the input's: each parser would otherwise make a report out of another
    // form's remains (a text read of an HTML page finds its <pre> lines and nothing else).
    throw new NotAStatusReportError(
      `${FORM_NAMES[format as ReportFormat]} (format "${format}")`,
      `${FORM_NAMES[detected]}: ${describeInput(text)}`,
    );
  }
  switch (format) {
    case 'html':
      return checkReport(parseHtml(text));
    case 'auto':
      return checkReport(parseAuto(text));
    case 'text':
      return checkReport(parseText(text));
    default:
      throw new NotAStatusReportError(EXPECTED, describeInput(text));
  }
}

export { detectFormat, parseReport };
