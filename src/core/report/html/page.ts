/**
 * `parseHtml`: the HTML `server-status` page (also `?notable`, also browser-saved copies) into a
 * `StatusReport`. One pass of `scanHtml`; this file turns its tokens into the page's parts: header
 * `<dt>` sentences, the event MPM's process table, the scoreboard `<pre>`, the slot table and its
 * legend (found by their header cells), the "Server Details" list and the SSL/TLS session cache
 * block. Everything is detected from the page itself, never from the version string.
 */
import { describeInput, NotAStatusReportError } from '../../errors.ts';
import { CharCodes } from '../charCodes.ts';
import {
  checkModesAgainstScoreboard,
  countModes,
  decodeEntities,
  emptyServer,
  emptySslCacheDraft,
  finishSslCache,
  modeIndexOf,
  readHeaderSentence,
  readSslCacheText,
  SSL_HEADING,
} from '../common.ts';
import { isProcessTableHeader, ProcessTableReader } from '../eventProcesses.ts';
import { withLazySlots } from '../lazySlots.ts';
import type { LegendEntry, ModeCounts, ServerInfo, Slot, SslCache, StatusReport } from '../types.ts';
import { readNotableSlots } from './notable.ts';
import { type ScanHandler, scanHtml, tagId } from './scanner.ts';
import { type ColumnMap, mapColumns } from './slotTable/columns.ts';
import { SlotRows } from './slotTable/pending.ts';
import { RowCells, RowNumbers, readSlotRow } from './slotTable/referenceRow.ts';

const Char = CharCodes; // a module-local binding: see charCodes.ts

const EXPECTED = 'an Apache server-status HTML page with a scoreboard of mode characters in a <pre> block';
const EXPECTED_CLOSED = 'an Apache server-status HTML page whose scoreboard <pre> block is closed by </pre>';

const Tag = {
  body: tagId('body'),
  dl: tagId('dl'),
  dt: tagId('dt'),
  h2: tagId('h2'),
  hr: tagId('hr'),
  html: tagId('html'),
  pre: tagId('pre'),
  table: tagId('table'),
  td: tagId('td'),
  th: tagId('th'),
  tr: tagId('tr'),
} as const;

const TableKind = { None: 0, Unknown: 1, Slots: 2, Legend: 3, Other: 4, Processes: 5 } as const;
type TableKind = (typeof TableKind)[keyof typeof TableKind];

const SOCACHE_HEADING = 'mod_cache_socache Status:';

/** Text of `[start, end)` with tags removed (`<br>` kept as a line break) and entities decoded. */
function plainText(text: string, start: number, end: number): string {
  const slice = text.slice(start, end);
  // `[^<>]*`, not `[^>]*`: a tag attempt stops at the next "<", so a run of unclosed "<" stays linear.
  return decodeEntities(slice.includes('<') ? slice.replace(/<(br\b)?[^<>]*>/gi, (_, br) => (br ? '\n' : '')) : slice);
}

/** Whether the first `<pre>`'s characters are mostly mode characters (a code block is not). */
function looksLikeScoreboard(chars: string): boolean {
  let known = 0;
  for (let i = 0; i < chars.length; i++) if (modeIndexOf(chars.charCodeAt(i)) >= 0) known++;
  return chars.length > 0 && known * 2 > chars.length;
}

/** Collects the page's parts from the scanner's tokens; `finish()` makes the report. */
class HtmlReportBuilder implements ScanHandler {
  readonly text: string;
  readonly server: ServerInfo = emptyServer();
  readonly warnings: string[] = [];
  scoreboard: string | null = null;
  counts: ModeCounts | null = null;
  preStart = -1; // >= 0 inside the scoreboard candidate <pre>
  dtStart = -1;
  h2Start = -1;
  notableStart = -1;
  notableEnd = -1;
  sslStart = -1; // >= 0 inside the SSL/TLS session cache block
  sslDepth = 0; // table depth of its heading
  sslCache: SslCache | null = null;
  tableDepth = 0;
  tableKind: TableKind = TableKind.None;
  rowOpen = false;
  cellOpen = false;
  readonly cells = new RowCells();
  readonly numbers = new RowNumbers();
  slotTableSeen = false;
  columns: ColumnMap | null = null;
  width = 0;
  row = 0;
  slots: Slot[] | null = null;
  /** The slot table's rows while every one is clean: `slots` stays empty, built on first read. */
  rows: SlotRows | null = null;
  legend: LegendEntry[] | null = null;
  processTable: ProcessTableReader | null = null; // the event MPM's, before the scoreboard

  constructor(text: string) {
    this.text = text;
  }

  onText(start: number, end: number): void {
    if (this.cellOpen) this.cells.addRun(this.text, start, end);
    if (this.tableKind !== TableKind.Slots && this.scoreboard !== null) this.checkHeading(start, end);
  }

  onOpenTag(tag: number, start: number, end: number): number {
    if (this.preStart >= 0) return end; // the scoreboard holds no tags
    if (tag === Tag.td || tag === Tag.th) {
      if (this.tableDepth !== 1 || this.tableKind === TableKind.Other) return end;
      if (!this.rowOpen) this.openRow();
      this.cells.open(tag === Tag.th);
      this.cellOpen = true;
    } else if (tag === Tag.tr) {
      this.flushRow();
      if (this.tableDepth === 1 && this.tableKind !== TableKind.Other) {
        this.openRow();
        // A "<tr" cut by "<" has no ">" before `end`: the scanner goes on from `end` whatever we say.
        if (this.tableKind === TableKind.Slots && this.rows !== null && this.text.charCodeAt(end - 1) === Char.Gt) {
          return this.readRecordedRows(end);
        }
      }
    } else if (tag === Tag.table) {
      this.flushRow();
      if (++this.tableDepth === 1) this.tableKind = TableKind.Unknown;
    } else if (tag === Tag.dt) {
      this.flushDt(start);
      this.dtStart = end;
    } else if (tag === Tag.pre) {
      if (this.scoreboard === null) this.preStart = end;
    } else if (tag === Tag.h2) {
      this.h2Start = end;
    } else if (tag === Tag.hr) {
      this.endNotable(start);
      if (this.sslStart >= 0 && this.sslDepth === 0) this.finishSsl(start);
    }
    return end;
  }

  /**
   * Slot table rows recorded straight from the page's bytes while they keep the plain shape and
   * pass every check (`SlotRows.readRow`), from just after a `<tr>` (the row open) on through the rows
   * that follow it with only blank text between. The first row it leaves is read as usual.
   * Returns where the scanner goes on.
   */
  private readRecordedRows(from: number): number {
    const rows = this.rows as SlotRows;
    let at = from;
    for (;;) {
      const after = rows.readRow(at);
      if (after < 0) return at; // the scanner reads this row, open
      // As the row's `</tr>` would have it flushed and counted.
      this.rowOpen = false;
      this.row++;
      at = rows.nextRow(after);
      if (at < 0) return after;
      // As the scanner would open the next row, with the blank text between left unread.
      this.openRow();
    }
  }

  onCloseTag(tag: number, start: number, end: number): void {
    if (tag === Tag.pre) {
      if (this.preStart >= 0) this.readScoreboard(start);
    } else if (this.preStart >= 0) {
      return;
    } else if (tag === Tag.td || tag === Tag.th) {
      this.cellOpen = false;
    } else if (tag === Tag.tr) {
      this.flushRow();
    } else if (tag === Tag.table) {
      this.flushRow();
      if (this.sslStart >= 0 && this.sslDepth === this.tableDepth) this.finishSsl(start);
      if (this.tableDepth > 0 && --this.tableDepth === 0) this.tableKind = TableKind.None;
    } else if (tag === Tag.dt || tag === Tag.dl) {
      this.flushDt(start);
    } else if (tag === Tag.h2) {
      if (this.h2Start >= 0 && plainText(this.text, this.h2Start, start).trim() === 'Server Details') {
        this.notableStart = end;
      }
      this.h2Start = -1;
    } else if (tag === Tag.body || tag === Tag.html) {
      this.endNotable(start);
    }
  }

  private readScoreboard(end: number): void {
    const chars = plainText(this.text, this.preStart, end).replace(/\s+/g, '');
    this.preStart = -1;
    if (!looksLikeScoreboard(chars)) return;
    this.scoreboard = chars;
    this.counts = countModes(chars, this.warnings); // its warnings come first, as the page prints it first
  }

  private flushDt(end: number): void {
    if (this.dtStart < 0) return;
    readHeaderSentence(plainText(this.text, this.dtStart, end), this.server);
    this.dtStart = -1;
  }

  private checkHeading(start: number, end: number): void {
    const text = this.text;
    let i = start;
    while (i < end && text.charCodeAt(i) <= Char.Space) i++;
    const c = text.charCodeAt(i);
    if (c === Char.UpperS && text.startsWith(SSL_HEADING, i)) {
      if (this.sslStart >= 0) this.finishSsl(start);
      this.sslStart = i + SSL_HEADING.length;
      this.sslDepth = this.tableDepth;
    } else if (c === Char.LowerM && text.startsWith(SOCACHE_HEADING, i)) {
      // mod_cache_socache prints the same prose: it must not reach sslCache.
      if (this.sslStart >= 0) this.finishSsl(start);
    }
  }

  private finishSsl(end: number): void {
    const draft = emptySslCacheDraft();
    readSslCacheText(plainText(this.text, this.sslStart, end), draft);
    this.sslCache = finishSslCache(draft, this.warnings);
    this.sslStart = -1;
  }

  private endNotable(at: number): void {
    if (this.notableStart >= 0 && this.notableEnd < 0) this.notableEnd = at;
  }

  private openRow(): void {
    this.rowOpen = true;
    this.cellOpen = false;
    this.cells.count = 0;
  }

  private flushRow(): void {
    if (!this.rowOpen) return;
    this.rowOpen = false;
    this.cellOpen = false;
    const cells = this.cells;
    if (cells.count === 0) return;
    if (this.tableKind === TableKind.Unknown) this.tableKind = this.classifyTable();
    if (this.tableKind === TableKind.Slots) {
      if (cells.allHeaders()) return;
      this.row++;
      if (this.columns === null || this.slots === null) return;
      if (this.rows !== null) {
        if (this.rows.add(cells, this.numbers)) return;
        this.buildRows(); // this row warns: the slots so far are built, the rest as they are read
      }
      const slot = readSlotRow(this.text, cells, this.columns, this.width, this.row, this.warnings, this.numbers);
      if (slot !== null) this.slots.push(slot);
    } else if (this.tableKind === TableKind.Processes) {
      const texts = Array.from({ length: cells.count }, (_, i) => cells.text(this.text, i).trim());
      this.processTable?.addRow(texts, cells.allHeaders());
    } else if (this.tableKind === TableKind.Legend) {
      if (cells.count === 2 && cells.header[0] === true && cells.header[1] === false) {
        this.legend?.push({ abbreviation: cells.text(this.text, 0), meaning: cells.text(this.text, 1) });
      }
    }
  }

  /** The recorded rows as slots, from now on read eagerly. */
  private buildRows(): void {
    this.slots = this.rows?.build() ?? this.slots;
    this.rows = null;
  }

  /** Decide from a table's first row what it is: the slot table, its legend, or something else. */
  private classifyTable(): TableKind {
    const cells = this.cells;
    const text = this.text;
    const first = cells.raw(text, 0);
    if (!this.slotTableSeen && cells.allHeaders() && first === 'Srv' && cells.raw(text, 1) === 'PID') {
      this.slotTableSeen = true;
      const names = Array.from({ length: cells.count }, (_, i) => cells.text(text, i));
      this.width = names.length;
      this.columns = mapColumns(names, this.warnings);
      if (this.columns !== null) this.slots = [];
      if (this.columns !== null && SlotRows.fits(this.width)) {
        this.rows = new SlotRows(text, this.columns, this.width, this.scoreboard?.length);
      }
      return TableKind.Slots;
    }
    if (this.processTable === null && this.scoreboard === null && cells.allHeaders()) {
      const names = Array.from({ length: cells.count }, (_, i) => cells.text(text, i));
      if (isProcessTableHeader(names)) {
        this.processTable = new ProcessTableReader(this.warnings);
        return TableKind.Processes;
      }
    }
    if (this.slotTableSeen && this.legend === null && cells.header[0] === true && cells.header[1] === false) {
      this.legend = [];
      return TableKind.Legend;
    }
    return TableKind.Other;
  }

  /** The report, or `NotAStatusReportError` when the page has no complete scoreboard. */
  finish(): StatusReport {
    if (this.preStart >= 0) throw new NotAStatusReportError(EXPECTED_CLOSED, describeInput(this.text));
    const { scoreboard, counts } = this;
    if (scoreboard === null || counts === null) throw new NotAStatusReportError(EXPECTED, describeInput(this.text));
    const warnings = this.warnings;
    if (this.tableKind === TableKind.Slots) {
      const lost = this.rowOpen ? `; its last row (${this.row + 1}) was skipped` : '';
      warnings.push(`the page ends inside the slot table${lost}`);
    }
    if (this.sslStart >= 0) this.finishSsl(this.text.length);
    if (this.rows?.fitsScoreboard(scoreboard, this.server.mpm === 'prefork') === false) this.buildRows();
    let slots = this.slots;
    if (slots === null && this.notableStart >= 0) {
      const end = this.notableEnd < 0 ? this.text.length : this.notableEnd;
      slots = readNotableSlots(this.text.slice(this.notableStart, end), warnings);
    }
    if (slots !== null) checkModesAgainstScoreboard(slots, scoreboard, this.server.mpm, warnings);
    const processTable = this.processTable?.finish() ?? null;
    this.server.processes = processTable?.processCount ?? null;
    this.server.stoppingProcesses = processTable?.stoppingCount ?? null;
    const report: StatusReport = {
      format: 'html',
      server: this.server,
      scoreboard,
      counts,
      slots,
      legend: this.legend,
      sslCache: this.sslCache,
      connections: processTable?.connections ?? null,
      processes: processTable?.processes ?? null,
      warnings,
    };
    return this.rows === null ? report : withLazySlots(report, this.rows);
  }
}

/**
 * Parse the HTML `server-status` page (Apache 2.2 to 2.4, any MPM, `?notable` too, browser-saved
 * copies too) into a `StatusReport`. Odd but survivable things go to `warnings`.
 *
 * @example
 * const report = parseHtml(await readFile('server-status.html', 'latin1'));
 * report.slots?.filter((s) => s.mode === 'W').length // slots sending a reply
 * @throws NotAStatusReportError when the page has no scoreboard (a 404 page, empty, cut short)
 */
function parseHtml(text: string): StatusReport {
  const builder = new HtmlReportBuilder(text);
  scanHtml(text, builder);
  return builder.finish();
}

export { parseHtml };
