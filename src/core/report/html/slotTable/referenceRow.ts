/**
 * The reference reader of a slot table row, the definition of what a row means: its cells as the
 * scanner's tokens give them (index ranges), checked (`checkRow`) and turned into a `Slot`
 * (`readSlotRow`) with a warning for anything odd. Numbers are read straight from the ranges (no
 * slicing) because a busy server prints a thousand rows of them. The fast reader (`fastRow.ts`)
 * must agree with it wherever it answers.
 */
import { CharCodes, isWhitespace } from '../../charCodes.ts';
import { decodeEntities, isRequestTruncated, modeIndexOf, parseAprNumber } from '../../common.ts';
import { MODE_SET, type Slot } from '../../types.ts';
import { type ColumnMap, NUMBER_COLUMNS } from './columns.ts';

const Char = CharCodes; // a module-local binding: see charCodes.ts

/** Cells kept per row: the tables read here have 2 to 15; a row of thousands is only counted. */
const MAX_CELLS = 64;

/**
 * The cells of the current row. Each cell keeps the span from its first to its last non-blank
 * text run and how many runs there were: one run (the usual case, `<b>W</b>\n` included) is
 * sliced as is, several (`a<b>b</b>`) are sliced across and stripped of tags.
 */
class RowCells {
  /** Cells counted in the row; only the first `MAX_CELLS` are kept. */
  count = 0;
  // Start and end are read only where runs > 0 (`addRun` sets them), so `open` leaves them be.
  readonly start: number[] = new Array<number>(MAX_CELLS).fill(0);
  readonly end: number[] = new Array<number>(MAX_CELLS).fill(0);
  readonly runs: number[] = new Array<number>(MAX_CELLS).fill(0);
  readonly header: boolean[] = new Array<boolean>(MAX_CELLS).fill(false);

  /** Start a new cell (`<td>` or `<th>`). */
  open(header: boolean): void {
    const i = this.count++;
    if (i >= MAX_CELLS) return;
    this.runs[i] = 0;
    this.header[i] = header;
  }

  /** Add a text run `[start, end)` of `text` to the last cell, ignoring blank runs. */
  addRun(text: string, start: number, end: number): void {
    let s = start;
    let e = end;
    while (s < e && isWhitespace(text.charCodeAt(s))) s++;
    while (e > s && isWhitespace(text.charCodeAt(e - 1))) e--;
    const i = this.count - 1;
    if (s === e || i >= MAX_CELLS) return;
    if (this.runs[i] === 0) this.start[i] = s;
    this.end[i] = e;
    this.runs[i] = (this.runs[i] as number) + 1;
  }

  /** The cell's text as printed: tags stripped, entities NOT decoded, ends trimmed. */
  raw(text: string, i: number): string {
    const runs = this.runs[i] ?? 0;
    if (runs === 0) return '';
    const slice = text.slice(this.start[i], this.end[i]);
    // `[^<>]*`: an attempt stops at the next "<", so unclosed "<" runs stay linear.
    return runs === 1 ? slice : slice.replace(/<[^<>]*>/g, '').trim();
  }

  /** The cell's text, entities decoded. */
  text(text: string, i: number): string {
    return decodeEntities(this.raw(text, i));
  }

  /** The cell read as an APR number; `NaN` when it is not one. */
  number(text: string, i: number): number {
    if (this.runs[i] === 1) return rangeNumber(text, this.start[i] as number, this.end[i] as number);
    return parseAprNumber(this.raw(text, i)) ?? Number.NaN;
  }

  /** The cell as `a/b/c` (Acc) into `out`; false (`out` unspecified) unless it is three numbers. */
  accInto(text: string, i: number, out: [number, number, number]): boolean {
    if (this.runs[i] !== 1) return false;
    const start = this.start[i] as number;
    const end = this.end[i] as number;
    const slash1 = text.indexOf('/', start);
    const slash2 = slash1 < 0 ? -1 : text.indexOf('/', slash1 + 1);
    if (slash2 < 0 || slash2 >= end) return false;
    out[0] = rangeNumber(text, start, slash1);
    out[1] = rangeNumber(text, slash1 + 1, slash2);
    out[2] = rangeNumber(text, slash2 + 1, end);
    return !Number.isNaN(out[0] + out[1] + out[2]);
  }

  /** Whether every cell is a `<th>`. */
  allHeaders(): boolean {
    for (let i = 0; i < Math.min(this.count, MAX_CELLS); i++) if (!this.header[i]) return false;
    return true;
  }
}

/**
 * `[start, end)` of `text` as a number without slicing: `-?digits[.digits]`, or APR's other forms
 * through `parseAprNumber`. Dividing the exact digit integer by an exact power of ten rounds once,
 * so the result equals `Number()` of the same text.
 */
function rangeNumber(text: string, start: number, end: number): number {
  if (start >= end) return Number.NaN;
  let i = start;
  const negative = text.charCodeAt(i) === Char.Dash;
  if (negative) i++;
  let mantissa = 0;
  let scale = 1;
  let digits = 0;
  let dot = false;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= Char.Zero && c <= Char.Nine) {
      mantissa = mantissa * 10 + (c - Char.Zero);
      digits++;
      if (dot) scale *= 10;
    } else if (c === Char.Dot && !dot) {
      dot = true;
    } else {
      return parseAprNumber(text.slice(start, end)) ?? Number.NaN;
    }
  }
  if (digits === 0) return Number.NaN;
  if (digits > 15) return Number(text.slice(start, end));
  const value = scale === 1 ? mantissa : mantissa / scale;
  return negative && value !== 0 ? -value : value;
}

/** The first cell of a row that should hold a number and does not, described for a warning. */
function badNumber(text: string, cells: RowCells, columns: ColumnMap): string {
  for (const column of NUMBER_COLUMNS) {
    const i = columns[column];
    if (i < 0) continue;
    const raw = cells.raw(text, i);
    if (Number.isNaN(cells.number(text, i)) && !(column === 'PID' && raw === '-')) {
      return `${column} is ${JSON.stringify(raw)}, expected ${column === 'PID' ? 'a process id or "-"' : 'a number'}`;
    }
  }
  return `Acc is ${JSON.stringify(cells.raw(text, columns.Acc))}, expected three numbers separated by "/"`;
}

/**
 * A row's numbers, read into reused fields: the eager build (`readSlotRow`) and the row check of
 * the lazy table (`pending.ts`) read them the same way. `acc` is overwritten by the next row.
 */
class RowNumbers {
  pid: number | null = null;
  readonly acc: [number, number, number] = [0, 0, 0];
  cpu: number | null = null;
  ss = 0;
  reqMs = 0;
  durMs: number | null = null;
  connKB = 0;
  childMB = 0;
  slotMB = 0;
  /** M's character code, once `checkRow` has read it (-1: none of the 11 modes). */
  modeCode = -1;

  /** Read the row's numbers; false when one is not a number (`readSlotRow` warns and skips the row). */
  read(text: string, cells: RowCells, columns: ColumnMap): boolean {
    let pid: number | null = cells.number(text, columns.PID);
    if (Number.isNaN(pid) && cells.raw(text, columns.PID) === '-') pid = null;
    this.pid = pid;
    const accOk = cells.accInto(text, columns.Acc, this.acc);
    this.cpu = columns.CPU < 0 ? null : cells.number(text, columns.CPU);
    this.ss = cells.number(text, columns.SS);
    this.reqMs = cells.number(text, columns.Req);
    this.durMs = columns.Dur < 0 ? null : cells.number(text, columns.Dur);
    this.connKB = cells.number(text, columns.Conn);
    this.childMB = cells.number(text, columns.Child);
    this.slotMB = cells.number(text, columns.Slot);
    // One sum tells whether any number failed; the slow path (`badNumber`) finds which, for the warning.
    const sum =
      (pid ?? 0) +
      (this.cpu ?? 0) +
      this.ss +
      this.reqMs +
      (this.durMs ?? 0) +
      this.connKB +
      this.childMB +
      this.slotMB;
    return accOk && !Number.isNaN(sum);
  }
}

/**
 * What the reference makes of a row: a slot with no warning (`Clean`), or the first thing it
 * warns about. `Width` and `Number` skip the row; `Mode` keeps it with an unknown mode. The lazy
 * table records only `Clean` rows, and the fast reader answers -1 for any other.
 */
const RowVerdict = { Clean: 0, Width: 1, Number: 2, Mode: 3 } as const;
type RowVerdict = (typeof RowVerdict)[keyof typeof RowVerdict];

/** The mode character code of the row's M cell, or -1 when it is none of the 11. */
function modeCodeOf(text: string, cells: RowCells, i: number): number {
  const start = cells.start[i] as number;
  // The usual cell, one character in one run: no string sliced.
  if (cells.runs[i] === 1 && cells.end[i] === start + 1) {
    const code = text.charCodeAt(start);
    return modeIndexOf(code) >= 0 ? code : -1;
  }
  const raw = cells.raw(text, i);
  return MODE_SET.has(raw) ? raw.charCodeAt(0) : -1;
}

/**
 * Check one row of a table `width` cells wide, reading its numbers into `numbers` (and its M's
 * code into `numbers.modeCode` once the numbers read). The one definition of a good row: the
 * eager build warns by it, the lazy table records by it, the fast reader is tested against it.
 */
function checkRow(text: string, cells: RowCells, columns: ColumnMap, width: number, numbers: RowNumbers): RowVerdict {
  if (cells.count !== width) return RowVerdict.Width;
  if (!numbers.read(text, cells, columns)) return RowVerdict.Number;
  numbers.modeCode = modeCodeOf(text, cells, columns.M);
  return numbers.modeCode < 0 ? RowVerdict.Mode : RowVerdict.Clean;
}

/**
 * One row of the slot table as a `Slot`, or `null` (with a warning naming the row) when a cell
 * cannot be read (`checkRow`). `row` counts the table's data rows from 1.
 */
function readSlotRow(
  text: string,
  cells: RowCells,
  columns: ColumnMap,
  width: number,
  row: number,
  warnings: string[],
  numbers = new RowNumbers(),
): Slot | null {
  const srv = cells.raw(text, columns.Srv);
  const verdict = checkRow(text, cells, columns, width, numbers);
  if (verdict === RowVerdict.Width) {
    warnings.push(
      `slot table row ${row} (Srv ${JSON.stringify(srv)}) has ${cells.count} cells, expected ${width}; row skipped`,
    );
    return null;
  }
  if (verdict === RowVerdict.Number) {
    warnings.push(
      `slot table row ${row} (Srv ${JSON.stringify(srv)}): ${badNumber(text, cells, columns)}; row skipped`,
    );
    return null;
  }
  const mode = cells.raw(text, columns.M);
  if (verdict === RowVerdict.Mode) {
    warnings.push(
      `slot table row ${row} (Srv ${JSON.stringify(srv)}): M is ${JSON.stringify(mode)}, not one of the 11 mode characters`,
    );
  }
  const request = cells.text(text, columns.Request);
  const { acc } = numbers;
  return {
    srv,
    pid: numbers.pid,
    acc: [acc[0], acc[1], acc[2]],
    mode,
    cpu: numbers.cpu,
    ss: numbers.ss,
    reqMs: numbers.reqMs,
    durMs: numbers.durMs,
    connKB: numbers.connKB,
    childMB: numbers.childMB,
    slotMB: numbers.slotMB,
    client: cells.text(text, columns.Client),
    protocol: columns.Protocol < 0 ? null : cells.text(text, columns.Protocol),
    vhost: cells.text(text, columns.VHost),
    request,
    requestTruncated: isRequestTruncated(request),
  };
}

export { checkRow, MAX_CELLS, RowCells, RowNumbers, RowVerdict, readSlotRow };
