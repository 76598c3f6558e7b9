/**
 * Text a monitoring console shows as printed. Nagios strips its `illegal_macro_output_chars`
 * (by default `` ` ~ $ & | ' " < > ``) from the output it hands to notifications, so `28 >= 20`
 * would arrive as `28 = 20`: conditions are written in words, and whatever a report carries
 * (a request line, a vhost) has those characters replaced before it is printed.
 */
import { formatValue } from '../core/notify/format.ts';
import { describeRange, type NagiosRange } from '../core/rules/range.ts';

/** Nagios's default `illegal_macro_output_chars`, each with what a console shows instead. */
const ILLEGAL_MACRO_CHARS: Readonly<Record<string, string>> = {
  '`': '',
  '~': '-',
  $: '',
  '&': '+',
  '|': '/',
  "'": '',
  '"': '',
  '<': '(',
  '>': ')',
};

/**
 * `text` with none of the illegal macro characters.
 *
 * @example
 * consoleText('GET /a?x=1&y=<2> "q"') // 'GET /a?x=1+y=(2) q'
 */
function consoleText(text: string): string {
  let out = '';
  for (const char of text) out += ILLEGAL_MACRO_CHARS[char] ?? char;
  return out;
}

const OP_WORDS: Readonly<Record<string, string>> = {
  '<': 'below',
  '<=': 'at or below',
  '>': 'above',
  '>=': 'at or above',
  '==': 'equal to',
  '!=': 'not equal to',
};

/**
 * A condition's figures in words: `28 at or above 20`, `5 below 20`, `3 outside 0 to 2`.
 *
 * @example
 * conditionWords(28, '>=', 20) // '28 at or above 20'
 */
function conditionWords(value: number | null, op: string, threshold: number, range?: NagiosRange): string {
  const shown = formatValue(value);
  if (range !== undefined) return `${shown} ${describeRange(range)}`;
  return `${shown} ${OP_WORDS[op] ?? consoleText(op)} ${formatValue(threshold)}`;
}

export { conditionWords, consoleText, ILLEGAL_MACRO_CHARS };
