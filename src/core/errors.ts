/**
 * Named error classes of the pure core. Each says what was expected and what was found.
 */

/** The input is not a server-status report (a 404 page, a login page, an empty or truncated body). */
class NotAStatusReportError extends Error {
  /** What the parser looked for, e.g. "an Apache server-status report (HTML, ?auto or text dump)". */
  readonly expected: string;
  /** What it found instead, printably escaped and shortened. */
  readonly found: string;

  constructor(expected: string, found: string, options?: ErrorOptions) {
    super(`expected ${expected}, found ${found}`, options);
    this.name = 'NotAStatusReportError';
    this.expected = expected;
    this.found = found;
  }
}

/**
 * An input with problems, every one listed: validation never stops at the first. The one base of
 * the problem-list errors (rules and silences documents, the monitor's configuration, the
 * Lambda's environment, the deploy options); a problem is a line of text or a structured record.
 * Subclasses word the message and set `name` (class names do not survive minifying).
 */
class ProblemListError<Problem = string> extends Error {
  readonly problems: Problem[];

  constructor(message: string, problems: Problem[], options?: ErrorOptions) {
    super(message, options);
    this.problems = problems;
  }
}

/** `heading:` and one problem a line, each after `- `. */
function problemLines(heading: string, problems: readonly string[]): string {
  return `${heading}:\n- ${problems.join('\n- ')}`;
}

/** Escape the first bytes of untrusted input so they can be shown on one line. */
function describeInput(text: string, max = 60): string {
  if (text.length === 0) return 'an empty body';
  const head = text.slice(0, max);
  const escaped = head.replace(/[^\x20-\x7e]|["\\]/g, (c) => {
    if (c === '"' || c === '\\') return `\\${c}`;
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return `"${escaped}"${text.length > max ? '...' : ''} (${text.length} characters)`;
}

export { describeInput, NotAStatusReportError, ProblemListError, problemLines };
