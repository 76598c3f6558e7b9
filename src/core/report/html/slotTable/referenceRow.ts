/**
 * The per-slot table of the HTML page: cells as index ranges, columns found by their header names,
 * and rows turned into `Slot`s. Numbers are read straight from the ranges (no slicing) because a
 * busy server prints a thousand rows of them.
 */
import { CharCodes, isWhitespace } from '../../charCodes.ts';
import { decodeEntities, isRequestTruncated, parseAprNumber } from '../../common.ts';
import { MODE_SET, SLOT_COLUMN_SET, SLOT_COLUMNS, type Slot, type SlotColumn } from '../../types.ts';

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

// Absent in some versions or builds: CPU (no times(), e.g. Windows), Protocol (< 2.4.19), Dur (< 2.4.35).
const OPTIONAL_COLUMNS: ReadonlySet<SlotColumn> = new Set(['CPU', 'Protocol', 'Dur']);

/** Cell index of each column in the table's rows, -1 where the header lacks it. */
type ColumnMap = Record<SlotColumn, number>;

/**
 * Map the header names (`Srv`, `PID`, ...) to cell positions. Unknown names are warned about and
 * ignored; a header that lacks a column every version prints gives `null` (rows unreadable).
 */
function mapColumns(names: readonly string[], warnings: string[]): ColumnMap | null {
  const map = Object.fromEntries(SLOT_COLUMNS.map((c) => [c, -1])) as ColumnMap;
  names.forEach((name, i) => {
    if (SLOT_COLUMN_SET.has(name)) map[name as SlotColumn] = i;
    else warnings.push(`slot table column ${i + 1} "${name}" is not a known column; ignored`);
  });
  const missing = SLOT_COLUMNS.filter((c) => map[c] < 0 && !OPTIONAL_COLUMNS.has(c));
  if (missing.length === 0) return map;
  warnings.push(`slot table header lacks ${missing.join(', ')} (found ${names.join(' ')}); slots not reported`);
  return null;
}

const NUMBER_COLUMNS = ['PID', 'CPU', 'SS', 'Req', 'Dur', 'Conn', 'Child', 'Slot'] as const;

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
 * One row of the slot table as a `Slot`, or `null` (with a warning naming the row) when a cell
 * cannot be read. `row` counts the table's data rows from 1.
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
  if (cells.count !== width) {
    warnings.push(
      `slot table row ${row} (Srv ${JSON.stringify(srv)}) has ${cells.count} cells, expected ${width}; row skipped`,
    );
    return null;
  }
  if (!numbers.read(text, cells, columns)) {
    warnings.push(
      `slot table row ${row} (Srv ${JSON.stringify(srv)}): ${badNumber(text, cells, columns)}; row skipped`,
    );
    return null;
  }
  const mode = cells.raw(text, columns.M);
  if (!MODE_SET.has(mode)) {
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

export type { ColumnMap };
export { MAX_CELLS, mapColumns, RowCells, RowNumbers, readSlotRow };
