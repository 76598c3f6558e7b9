/**
 * The Monitoring Plugins' threshold ranges (`[@][start:][end]`): `10` alerts outside 0..10, `10:`
 * below 10, `~:10` above 10, `10:20` outside 10..20, `@10:20` inside 10..20; the ends belong to
 * the range. Read in one pass over the text with named states, as the report parsers read.
 */

/** A parsed range: alert when the value is outside `start..end`, or inside it when `inside`. */
interface NagiosRange {
  /** `-Infinity` for `~`. */
  start: number;
  /** `Infinity` when nothing follows the `:`. */
  end: number;
  inside: boolean;
}

const EXPECTED = 'a range such as 10, 10:, ~:10, 10:20 or @10:20';

/** A range that cannot be read: says what was expected and what was found. */
class RangeSyntaxError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RangeSyntaxError';
  }
}

const STATES = { start: 'start', end: 'end' } as const;
const CODES = { at: 0x40, colon: 0x3a, tilde: 0x7e } as const;
/** A decimal number as plugins write it: optional sign, digits, optional fraction. */
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

function readNumber(text: string, where: string, whole: string): number {
  if (!NUMBER.test(text)) throw new RangeSyntaxError(`expected a number ${where}, found "${text}" in "${whole}"`);
  return Number(text);
}

/**
 * Reads one range.
 *
 * @throws RangeSyntaxError saying what was expected and what was found
 * @example
 * parseRange('@10:20') // { start: 10, end: 20, inside: true }
 * parseRange('~:10')   // { start: -Infinity, end: 10, inside: false }
 */
function parseRange(text: string): NagiosRange {
  if (text === '') throw new RangeSyntaxError(`expected ${EXPECTED}, found nothing`);
  let state: (typeof STATES)[keyof typeof STATES] = STATES.start;
  let inside = false;
  let from = 0;
  let startText: string | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === CODES.at && i === 0) {
      inside = true;
      from = 1;
    } else if (code === CODES.at) {
      throw new RangeSyntaxError(`expected "@" only at the start of ${EXPECTED}, found "${text}"`);
    } else if (code === CODES.colon && state === STATES.start) {
      startText = text.slice(from, i);
      from = i + 1;
      state = STATES.end;
    } else if (code === CODES.colon) {
      throw new RangeSyntaxError(`expected at most one ":" in ${EXPECTED}, found "${text}"`);
    }
  }
  const endText = text.slice(from);
  let start = 0;
  if (startText === '~') start = Number.NEGATIVE_INFINITY;
  else if (startText === '')
    throw new RangeSyntaxError(`expected a number or ~ before ":", found nothing in "${text}"`);
  else if (startText !== null) start = readNumber(startText, 'or ~ before ":"', text);
  let end = Number.POSITIVE_INFINITY;
  if (state === STATES.start) {
    if (endText === '') throw new RangeSyntaxError(`expected ${EXPECTED}, found "${text}"`);
    end = readNumber(endText, 'as the end', text);
  } else if (endText !== '') end = readNumber(endText, 'after ":"', text);
  if (start > end)
    throw new RangeSyntaxError(
      `expected a start no greater than the end, found ${startText} above ${endText} in "${text}"`,
    );
  return { start, end, inside };
}

/** Whether `value` alerts under `range`: outside it, or inside it for `@`. */
function rangeAlerts(range: NagiosRange, value: number): boolean {
  const within = value >= range.start && value <= range.end;
  return range.inside ? within : !within;
}

function figure(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(4)));
}

/**
 * The range in its shortest plugin form, for performance data.
 *
 * @example
 * formatRange(parseRange('0:10')) // '10'
 */
function formatRange(range: NagiosRange): string {
  const at = range.inside ? '@' : '';
  const start = range.start === Number.NEGATIVE_INFINITY ? '~' : figure(range.start);
  const end = range.end === Number.POSITIVE_INFINITY ? '' : figure(range.end);
  if (range.start === 0 && end !== '') return `${at}${end}`;
  return `${at}${start}:${end}`;
}

/**
 * Where the range alerts, in words a notification keeps (no `<`, `>`, `~` or `@`).
 *
 * @example
 * describeRange(parseRange('10:')) // 'below 10'
 * describeRange(parseRange('@10:20')) // 'between 10 and 20'
 */
function describeRange(range: NagiosRange): string {
  const { start, end } = range;
  const low = start === Number.NEGATIVE_INFINITY;
  const high = end === Number.POSITIVE_INFINITY;
  if (range.inside) {
    if (low && high) return 'any value';
    if (low) return `at or below ${figure(end)}`;
    if (high) return `at or above ${figure(start)}`;
    return `between ${figure(start)} and ${figure(end)}`;
  }
  if (low && high) return 'no value';
  if (low) return `above ${figure(end)}`;
  if (high) return `below ${figure(start)}`;
  return `outside ${figure(start)} to ${figure(end)}`;
}

export type { NagiosRange };
export { describeRange, formatRange, parseRange, RangeSyntaxError, rangeAlerts };
