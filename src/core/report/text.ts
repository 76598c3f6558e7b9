/**
 * Text dumps of the HTML page: `lynx -dump` (`apachectl fullstatus`) at 80 columns or wider,
 * links/w3m-style dumps and text copied from a browser (tabs). One pass over the lines, in the
 * page's order: header sentences, the event MPM's process table, scoreboard, slot table or
 * `?notable` list, legend, SSL block.
 */
import { describeInput, NotAStatusReportError } from '../errors.ts';
import {
  checkModesAgainstScoreboard,
  countModes,
  emptyServer,
  emptySslCacheDraft,
  finishSslCache,
  readHeaderSentence,
  readSslCacheText,
  SSL_HEADING,
} from './common.ts';
import { withLazySlots } from './lazySlots.ts';
import type { SlotColumns } from './slotColumns.ts';
import { readNotableText } from './textNotable.ts';
import { readProcessTableText } from './textProcesses.ts';
import { indentOf, isHeader, readTextTable, unitsOf } from './textTable.ts';
import {
  type LegendEntry,
  type ServerInfo,
  SLOT_COLUMN_SET,
  type Slot,
  type SslCache,
  type StatusReport,
} from './types.ts';

const EXPECTED = 'a text dump of an Apache server-status page (a scoreboard after the header lines)';
const SCOREBOARD_LINE = /^[_SRWKDCLGI.]+( +[_SRWKDCLGI.]+)*$/;
const RULE_LINE = /^\s*(_{10,}|-{10,})\s*$/;
const KEY_LINE = /^\s*Scoreboard Key:/;
const LEGEND_START = /^\s*Srv\s+Child Server number/;

/** Scoreboard lines stand at column 0 (lynx) or 1 (links); rules are indented further. */
function isScoreboardLine(line: string): boolean {
  return indentOf(line) <= 1 && SCOREBOARD_LINE.test(line.trim());
}

/**
 * The scoreboard: the run of mode-character lines just before "Scoreboard Key:" (a `<hr>` drawn
 * with `_` at column 0 would look like one), else the first such run (`apachectl status` style
 * dumps cut short). `start` is -1 when there is none.
 */
function findScoreboard(lines: readonly string[]): { start: number; end: number } {
  let first: { start: number; end: number } | null = null;
  let run: { start: number; end: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (isScoreboardLine(line)) {
      if (run === null || run.end !== i) run = { start: i, end: i };
      run.end = i + 1;
      first ??= run;
    } else if (run !== null && KEY_LINE.test(line)) {
      return run;
    }
  }
  return first ?? { start: -1, end: -1 };
}

/** Header sentences: a line indented deeper than the sentence it follows continues it. */
function readHeader(lines: readonly string[], end: number, server: ServerInfo): void {
  let sentence: string | null = null;
  let sentenceIndent = 0;
  for (let i = 0; i < end; i++) {
    const line = (lines[i] as string).replace(/\t/g, ' ');
    if (line.trim() === '' || RULE_LINE.test(line)) {
      if (sentence !== null) readHeaderSentence(sentence, server);
      sentence = null;
      continue;
    }
    const indent = indentOf(line);
    if (sentence !== null && indent > sentenceIndent + 1) {
      sentence += ` ${line.trim()}`;
      continue;
    }
    if (sentence !== null) readHeaderSentence(sentence, server);
    sentence = line.trim();
    sentenceIndent = indent;
  }
  if (sentence !== null) readHeaderSentence(sentence, server);
}

/**
 * `"  Srv  Child Server number - generation "` as `["Srv", "Child Server number - generation"]`;
 * null without a second word. (Not `(\S.*?)\s*$`: a lazy group retries the end at every blank.)
 */
function splitFirstWord(line: string): [string, string] | null {
  const trimmed = line.trim();
  let end = 0;
  while (end < trimmed.length && trimmed.charCodeAt(end) > 0x20) end++;
  const rest = trimmed.slice(end).trim();
  return end === 0 || rest === '' ? null : [trimmed.slice(0, end), rest];
}

function readLegend(lines: readonly string[], start: number): { legend: LegendEntry[]; next: number } {
  const legend: LegendEntry[] = [];
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i] as string;
    const cells = line.includes('\t') ? unitsOf(line) : null;
    const pair = cells === null ? splitFirstWord(line) : null;
    const abbreviation = cells?.[0] ?? pair?.[0];
    const meaning = cells ? cells.slice(1).join(' ') : pair?.[1];
    if (abbreviation === undefined || meaning === undefined || !SLOT_COLUMN_SET.has(abbreviation)) break;
    legend.push({ abbreviation, meaning });
  }
  return { legend, next: i };
}

/**
 * The lines after "SSL/TLS Session Cache Status:" up to a blank line or a rule, and the index of
 * that line (the caller goes on from there: re-reading the block at each heading line inside it
 * was quadratic on a page of repeated headings).
 */
function readSsl(
  lines: readonly string[],
  start: number,
  warnings: string[],
): { sslCache: SslCache | null; next: number } {
  const parts: string[] = [];
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '' || RULE_LINE.test(line)) break;
    parts.push(line.trim());
  }
  const draft = emptySslCacheDraft();
  readSslCacheText(parts.join(' '), draft);
  return { sslCache: finishSslCache(draft, warnings), next: i };
}

/**
 * Parse a text dump of the server-status page.
 *
 * @example
 * parseText(execSync('apachectl fullstatus').toString()).counts.W
 * @throws NotAStatusReportError when no scoreboard is found
 */
function parseText(text: string): StatusReport {
  const lines = text.split('\n'); // a trailing CR is whitespace to every reader below
  const warnings: string[] = [];
  const server = emptyServer();

  const { start: sbStart, end: sbEnd } = findScoreboard(lines);
  if (sbStart < 0) throw new NotAStatusReportError(EXPECTED, describeInput(text));
  let scoreboard = '';
  for (let k = sbStart; k < sbEnd; k++) scoreboard += (lines[k] as string).replace(/\s+/g, '');
  let i = sbEnd;
  readHeader(lines, sbStart, server);
  const processTable = readProcessTableText(lines, sbStart, isScoreboardLine, warnings);
  server.processes = processTable?.processCount ?? null;
  server.stoppingProcesses = processTable?.stoppingCount ?? null;

  let table: SlotColumns | null = null;
  let slots: Slot[] | null = null;
  let legend: LegendEntry[] | null = null;
  let sslCache: SslCache | null = null;
  for (; i < lines.length; i++) {
    const line = lines[i] as string;
    if (slots === null && table === null && isHeader(unitsOf(line))) {
      const end = (l: string) => RULE_LINE.test(l) || LEGEND_START.test(l);
      const read = readTextTable(lines, i, end, warnings, scoreboard.length);
      table = read.rows;
      i = read.next - 1;
    } else if (slots === null && table === null && line.trim() === 'Server Details') {
      const notable = readNotableText(lines, i + 1, (l) => RULE_LINE.test(l), warnings);
      slots = notable.slots;
      i = notable.next - 1;
    } else if (legend === null && LEGEND_START.test(line)) {
      const read = readLegend(lines, i);
      legend = read.legend;
      i = read.next - 1;
    } else if (sslCache === null && line.includes(SSL_HEADING)) {
      const read = readSsl(lines, i + 1, warnings);
      sslCache = read.sslCache;
      i = read.next - 1;
    }
  }

  // Rows every check keeps as they are stay by column until read; the others are built and checked.
  const pending = table?.fitsScoreboard(scoreboard, server.mpm === 'prefork') === true ? table : null;
  if (table !== null && pending === null) slots = table.build();
  if (slots !== null) checkModesAgainstScoreboard(slots, scoreboard, server.mpm, warnings);
  const report: StatusReport = {
    format: 'text',
    server,
    scoreboard,
    counts: countModes(scoreboard, warnings),
    slots,
    legend,
    sslCache,
    connections: processTable?.connections ?? null,
    processes: processTable?.processes ?? null,
    warnings,
  };
  return pending === null ? report : withLazySlots(report, pending);
}

export { parseText };
