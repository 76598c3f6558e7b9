/**
 * Text dumps of a generated report, as `lynx -dump` (Lynx 2.9) prints the 2.4.71 HTML page:
 * width 200 aligns the tables (one slot row per line, `<th>` centred, trailing empty cells gone);
 * width 80 (`apachectl fullstatus`) flows them, cells joined by one space, empty cells vanishing,
 * rows wrapped so no line passes column 74 (measured on the `report.lynx80.txt` captures).
 */
import {
  COLUMNS,
  cacheLines,
  headerSentences,
  LEGEND,
  processRows,
  type ReportModel,
  scoreboardLines,
  slotCells,
} from './generate.ts';

const INDENT = '   ';
const WRAP_AT = 74; // the longest line lynx -dump printed at its default width
const KEY_LINES = [
  '   Scoreboard Key:',
  '   "_" Waiting for Connection, "S" Starting up, "R" Reading Request,',
  '   "W" Sending Reply, "K" Keepalive (read), "D" DNS Lookup,',
  '   "C" Closing connection, "L" Logging, "G" Gracefully finishing,',
  '   "I" Idle cleanup of worker, "." Open slot with no current process',
];
const PROCESS_HEADER = [
  ['Slot', 'PID', 'Stopping', 'Connections', 'Threads', 'Async connections'],
  ['total', 'accepting', 'busy', 'graceful', 'idle', 'wait-io', 'writing', 'keep-alive', 'closing'],
];

/** Word-wrap `words` into lines of at most WRAP_AT columns; lines after the first get `next`. */
function flow(words: readonly string[], first: string, next: string): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of words) {
    if (!empty && line.length + 1 + word.length > WRAP_AT) {
      lines.push(line);
      line = next;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  if (!empty) lines.push(line);
  return lines;
}

const words = (cells: readonly string[]): string[] =>
  cells
    .join(' ')
    .split(/\s+/)
    .filter((w) => w !== '');

/** Columns padded to their widest cell, `<th>` cells centred; trailing blanks trimmed. */
function alignedTable(header: readonly string[], rows: readonly string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const centre = (t: string, w: number): string => {
    const left = Math.floor((w - t.length) / 2);
    return ' '.repeat(left) + t + ' '.repeat(w - t.length - left);
  };
  const lines = [INDENT + header.map((h, i) => centre(h, widths[i] as number)).join(' ')];
  for (const row of rows) lines.push(INDENT + row.map((c, i) => c.padEnd(widths[i] as number)).join(' '));
  return lines.map((l) => l.trimEnd());
}

function rule(width: number): string {
  return `     ${'_'.repeat(width === 80 ? 66 : 186)}`;
}

/**
 * The page as `lynx -dump -width=<width>` prints it (200: aligned tables; 80: flowed, wrapped).
 *
 * @example
 * renderLynx(modelOf(generateSlots(256)), 80).includes('   Request\n') // true
 */
function renderLynx(model: ReportModel, width: 80 | 200): string {
  const narrow = width === 80;
  const title = `Apache Server Status for ${model.host} (via ${model.host})`;
  const out: string[] = [' '.repeat(Math.floor((width - title.length) / 2)) + title, ''];
  const sentence = (text: string): void => {
    const line = text.replace(/\s+/g, ' ').trim();
    const lines = narrow ? flow(line.split(' '), INDENT, '          ') : [INDENT + line];
    out.push(...lines);
    if (lines.length > 1) out.push(''); // lynx leaves a blank line after a wrapped <dt>
  };
  sentence(`Server Version: ${model.server.version}`);
  sentence(`Server MPM: ${model.server.mpm}`);
  sentence('Server Built: 2026-11-12T08:58:41');
  out.push(rule(width), '');
  for (const text of headerSentences(model)) if (text !== '') sentence(text);
  if (out[out.length - 1] !== '') out.push('');
  if (model.server.mpm === 'event') {
    const rows = processRows(model).map((r) => r.map((c) => (c === '\u00a0' ? '' : c)));
    if (narrow) for (const row of [...PROCESS_HEADER, ...rows]) out.push(...flow(words(row), INDENT, INDENT));
    else
      out.push(
        ...PROCESS_HEADER.map((h) => INDENT + h.join('  ')),
        ...alignedTable(PROCESS_HEADER[1] as string[], rows).slice(1),
      );
    out.push('');
  }
  out.push(...scoreboardLines(model.scoreboard), '', ...KEY_LINES, '');
  const rows = model.slots.map(slotCells);
  if (narrow) {
    out.push(...flow(COLUMNS, INDENT, INDENT));
    for (const row of rows) out.push(...flow(words(row), INDENT, INDENT));
  } else {
    out.push(...alignedTable(COLUMNS, rows));
  }
  out.push(rule(width), '');
  const abbreviationWidth = Math.max(...LEGEND.map((e) => e.abbreviation.length));
  for (const e of LEGEND) out.push(legendLine(e.abbreviation, e.meaning, abbreviationWidth));
  for (const [heading, cache] of [
    ['SSL/TLS Session Cache Status:', model.sslCache],
    ['mod_cache_socache Status:', model.socache],
  ] as const) {
    if (cache === null) continue;
    out.push(rule(width), '', INDENT + heading);
    for (const line of cacheLines(cache, String))
      out.push(...(narrow ? flow(line.split(' '), INDENT, INDENT) : [INDENT + line]));
  }
  return `${out.join('\n')}\n`;
}

/** A legend row: the `<th>` centred in the widest abbreviation's width, then the meaning. */
function legendLine(abbreviation: string, meaning: string, width: number): string {
  const left = Math.floor((width - abbreviation.length) / 2);
  const cell = ' '.repeat(left) + abbreviation + ' '.repeat(width - abbreviation.length - left);
  return `${INDENT}${cell} ${meaning}`;
}

export { flow, renderLynx };
