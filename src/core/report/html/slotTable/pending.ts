/**
 * The HTML page's slot table recorded row by row during the one pass, for `withLazySlots`: where
 * each row lies in the page (a row of the plain shape; its cells are read again from there when
 * the slots are built) or its cells' ranges (a row from the scanner's cells), and what the checks
 * and the metrics need (M, SS, the scoreboard position, the client's and vhost's ranges, whether
 * every number is possible). Only rows the reference finds clean (`checkRow`) are recorded
 * (`add` says false for any other: the parser then builds the slots as it reads them); a row of
 * the plain shape is read and recorded from the page's bytes (`readRow`) before the scanner sees
 * it, other rows reach `add` as cells; `fitsScoreboard` tells, once the page is read, whether the
 * table-wide checks would warn. The slots are built by the eager build's own `readSlotRow`, so
 * they are the same.
 */
import { allGood, fitsScoreboard } from '../../check.ts';
import { decodeEntities, positionIn, positionOf } from '../../common.ts';
import { ipv4Key } from '../../ipv4.ts';
import type { PendingSlots } from '../../lazySlots.ts';
import type { Slot } from '../../types.ts';
import { type ColumnMap, cellKinds } from './columns.ts';
import { asciiWindow, nextPlainRow, PER_CELL, PlainRowFigures, ROW_ROOM, readPlainRow } from './fastRow.ts';
import { checkRow, MAX_CELLS, RowCells, RowNumbers, RowVerdict, readSlotRow } from './referenceRow.ts';

/** The scoreboard position Srv names (`positionOf`), or -1 when it names none. */
function srvPositionOf(text: string, cells: RowCells, i: number): number {
  const position =
    cells.runs[i] === 1
      ? positionIn(text, cells.start[i] as number, cells.end[i] as number)
      : positionOf(cells.raw(text, i));
  return position ?? -1;
}

/** Per row in `SlotRows.keyCells`: the client's start, end, runs, then the vhost's. */
const KEY_CELLS = 2 * PER_CELL;

/** The fewest characters of a row (`<tr></tr>`) and of a cell (`<td></td>`). */
const MIN_ROW_CHARS = '<tr></tr>'.length;
const MIN_CELL_CHARS = '<td></td>'.length;

class SlotRows implements PendingSlots {
  count = 0;
  /** False once a recorded row holds an impossible number (the report check would null or drop it). */
  numbersGood = true;
  /**
   * Per row read from bytes, where it lies in the page (`[start, end)`: just after its `<tr>` to
   * just after its `</tr>`); its cells are read again from there when the slots are built, so a
   * steady run keeps about 45 bytes a row, not each cell's range (a third of the parse's time went
   * to allocating, filling and collecting those). A row from the scanner's cells is in `added` instead.
   */
  private spans: Int32Array;
  /** Per row, the client's and then the vhost's range and runs, for the metrics' counts. */
  private keyCells: Int32Array;
  /** The cells' ranges of the rows from the scanner's cells (rare: a row not of the plain shape). */
  private readonly added = new Map<number, Int32Array>();
  /** One row's cells as `readPlainRow` writes them. */
  private readonly rowRanges: Int32Array;
  private modes: Uint8Array;
  private sss: Float64Array;
  private positions: Int32Array;
  /** Each cell's kind, for `readRow`. */
  private readonly kinds: Uint8Array;
  /** The window of the page `readRow` reads, as bytes from `base` on; null before the first row. */
  private bytes: Uint8Array | null = null;
  private base = 0;
  /** False once the table met a character outside ASCII: `readRow` leaves every row after it. */
  private plain = true;
  private readonly figures = new PlainRowFigures();
  private readonly cells = new RowCells();
  private readonly numbers = new RowNumbers();
  private readonly text: string;
  private readonly columns: ColumnMap;
  private readonly width: number;
  private readonly maxRows: number;

  /** Whether a table `width` cells wide can be recorded (cells past `MAX_CELLS` are not kept). */
  static fits(width: number): boolean {
    return width <= MAX_CELLS;
  }

  /**
   * `maxRows`: the scoreboard's positions when it came before the table (a table with more rows
   * warns: `add` says false past them, so a hostile table of repeated rows is not recorded twice).
   */
  constructor(text: string, columns: ColumnMap, width: number, maxRows = Number.POSITIVE_INFINITY) {
    this.text = text;
    this.columns = columns;
    this.width = width;
    this.maxRows = maxRows;
    this.kinds = cellKinds(columns, width);
    // Room for a row per position at once, not doubled up to it (a 20,000-slot table grew three
    // times, copying its ranges each time), but no more rows than the page can hold: a row of
    // `width` cells takes at least `<tr>`, `</tr>` and `<td></td>` each.
    const rowsThePageHolds = Math.floor(text.length / (MIN_ROW_CHARS + MIN_CELL_CHARS * width)) + 1;
    const capacity = Math.max(Math.min(maxRows, rowsThePageHolds), 64);
    this.spans = new Int32Array(capacity * 2);
    this.keyCells = new Int32Array(capacity * KEY_CELLS);
    this.rowRanges = new Int32Array(width * PER_CELL);
    this.modes = new Uint8Array(capacity);
    this.sss = new Float64Array(capacity);
    this.positions = new Int32Array(capacity);
  }

  /** Record the row when the eager build takes it without a warning; false (nothing recorded) otherwise. */
  add(cells: RowCells, numbers: RowNumbers): boolean {
    const { text, columns, width } = this;
    if (this.count === this.maxRows) return false;
    if (checkRow(text, cells, columns, width, numbers) !== RowVerdict.Clean) return false;
    const mode = numbers.modeCode;
    const row = this.count++;
    if (row === this.modes.length) this.grow();
    const ranges = new Int32Array(width * PER_CELL);
    for (let i = 0, at = 0; i < width; i++, at += PER_CELL) {
      ranges[at] = cells.start[i] as number;
      ranges[at + 1] = cells.end[i] as number;
      ranges[at + 2] = cells.runs[i] as number;
    }
    this.added.set(row, ranges);
    this.keepKeyCells(row, ranges);
    this.modes[row] = mode;
    this.sss[row] = numbers.ss;
    this.positions[row] = srvPositionOf(text, cells, columns.Srv);
    if (this.numbersGood && !allGood(numbers)) this.numbersGood = false;
    return true;
  }

  /**
   * Read and record one row of the plain shape (`readPlainRow`), from just after its `<tr>`: the
   * row `add` would record from the cells the scanner gives, checked as `add` checks them. Returns
   * where the row ends (just after `</tr>`), or -1, nothing recorded, for a row to read the usual way.
   */
  readRow(from: number): number {
    if (this.count === this.maxRows || !this.plain) return -1;
    let bytes = this.bytes;
    if (bytes === null || (from + ROW_ROOM > this.base + bytes.length && this.base + bytes.length < this.text.length)) {
      bytes = asciiWindow(this.text, from);
      this.base = from;
      this.bytes = bytes;
      // Outside ASCII the bytes' offsets are not the text's: the rest of the table is read the usual way.
      if (bytes === null) {
        this.plain = false;
        return -1;
      }
    }
    const row = this.count;
    if (row === this.modes.length) this.grow();
    const figures = this.figures;
    const end = readPlainRow(this.text, bytes, this.base, from - this.base, this.kinds, this.rowRanges, 0, figures);
    if (end < 0) return -1;
    this.count++;
    this.spans[row * 2] = from;
    this.spans[row * 2 + 1] = this.base + end;
    this.keepKeyCells(row, this.rowRanges);
    this.modes[row] = figures.mode;
    this.sss[row] = figures.ss;
    this.positions[row] = figures.position;
    return this.base + end;
  }

  /**
   * Just after the `<tr>` that follows `from` (the end of a row `readRow` read) with only blank
   * text between, or -1: the rows go on with no trip through the scanner.
   */
  nextRow(from: number): number {
    const bytes = this.bytes;
    if (bytes === null) return -1;
    const next = nextPlainRow(bytes, from - this.base);
    return next < 0 ? -1 : this.base + next;
  }

  /** The client's and the vhost's range and runs from a row's cells `ranges`. */
  private keepKeyCells(row: number, ranges: Int32Array): void {
    const keyCells = this.keyCells;
    const to = row * KEY_CELLS;
    const client = this.columns.Client * PER_CELL;
    const vhost = this.columns.VHost * PER_CELL;
    for (let k = 0; k < PER_CELL; k++) {
      keyCells[to + k] = ranges[client + k] as number;
      keyCells[to + PER_CELL + k] = ranges[vhost + k] as number;
    }
  }

  private grow(): void {
    const capacity = this.modes.length * 2;
    const spans = new Int32Array(capacity * 2);
    spans.set(this.spans);
    this.spans = spans;
    const keyCells = new Int32Array(capacity * KEY_CELLS);
    keyCells.set(this.keyCells);
    this.keyCells = keyCells;
    const modes = new Uint8Array(capacity);
    modes.set(this.modes);
    this.modes = modes;
    const sss = new Float64Array(capacity);
    sss.set(this.sss);
    this.sss = sss;
    const positions = new Int32Array(capacity);
    positions.set(this.positions);
    this.positions = positions;
  }

  /**
   * Whether the report check and the M-against-scoreboard check keep every row as it is, without
   * a warning: every number possible, no more rows than positions, and under prefork each Srv a
   * distinct position on the scoreboard whose character is the row's M.
   */
  fitsScoreboard(scoreboard: string, prefork: boolean): boolean {
    return this.numbersGood && fitsScoreboard(this.count, this.positions, this.modes, scoreboard, prefork);
  }

  modeCode(row: number): number {
    return this.modes[row] as number;
  }

  ss(row: number): number {
    return this.sss[row] as number;
  }

  client(row: number): string {
    return this.keyCellText(row, 0, this.columns.Client);
  }

  vhost(row: number): string {
    return this.keyCellText(row, 1, this.columns.VHost);
  }

  /** The client read from the page when it is one run (a "&" in it is no address: -1, read as text). */
  clientAddress(row: number): number {
    const at = row * KEY_CELLS;
    const keyCells = this.keyCells;
    return keyCells[at + 2] === 1 ? ipv4Key(this.text, keyCells[at] as number, keyCells[at + 1] as number) : -1;
  }

  /** The row's client (`k` 0) or vhost (1), cell `i`, as `RowCells.text` reads it. */
  private keyCellText(row: number, k: number, i: number): string {
    const at = row * KEY_CELLS + k * PER_CELL;
    const keyCells = this.keyCells;
    const runs = keyCells[at + 2];
    if (runs === 0) return '';
    // One run, the usual cell: its text as is, decoded only where it holds an entity.
    if (runs === 1) return decodeEntities(this.text.slice(keyCells[at], keyCells[at + 1]));
    this.load(row);
    return this.cells.text(this.text, i);
  }

  /** Every cell of `row` into the scratch `cells`: kept for a row from the scanner, read again from the page otherwise. */
  private load(row: number): void {
    const ranges = this.added.get(row) ?? this.readAgain(row);
    const cells = this.cells;
    for (let i = 0, at = 0; i < this.width; i++, at += PER_CELL) {
      cells.start[i] = ranges[at] as number;
      cells.end[i] = ranges[at + 1] as number;
      cells.runs[i] = ranges[at + 2] as number;
      cells.header[i] = false;
    }
    cells.count = this.width;
  }

  /** A row read from bytes, read again from its stretch of the page: the same cells (the reader is a function of those bytes). */
  private readAgain(row: number): Int32Array {
    const start = this.spans[row * 2] as number;
    const end = this.spans[row * 2 + 1] as number;
    // The row was read from a window of at most the window's size, all ASCII: it fits one again.
    const bytes = asciiWindow(this.text, start, end);
    const read =
      bytes === null ? -1 : readPlainRow(this.text, bytes, start, 0, this.kinds, this.rowRanges, 0, this.figures);
    if (read !== end - start) throw new Error(`expected slot row ${row + 1} to read again as it read, found ${read}`);
    return this.rowRanges;
  }

  /** Every recorded row as the eager build makes it. */
  build(): Slot[] {
    const slots: Slot[] = [];
    const unused: string[] = []; // recorded rows give no warning
    for (let row = 0; row < this.count; row++) {
      this.load(row);
      const slot = readSlotRow(this.text, this.cells, this.columns, this.width, row + 1, unused, this.numbers);
      if (slot !== null) slots.push(slot);
    }
    return slots;
  }
}

export { SlotRows };
