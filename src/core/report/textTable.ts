/**
 * The slot table of a text dump, read as a stream of units (whitespace-separated tokens, or cells
 * of a tab-separated browser copy). Columns cannot be cut by position: `lynx -dump` at 80 columns
 * wraps rows and drops empty cells, links centres multi-line Request cells around the row line.
 */
import { parseAprNumber } from './common.ts';
import { emptyDraft, SlotColumns, type SlotDraft } from './slotColumns.ts';
import { SLOT_COLUMN_SET } from './types.ts';

const SRV = /^\d+-\d+$/;
const PID = /^(\d+|-)$/;
const ACC = /^(\d+)\/(\d+)\/(\d+)$/;
const PROTOCOL = /^(https?\/\d(\.\d)?|h2c?|HTTP\/\d(\.\d)?|spdy\/\S+)$/i;
const REQUEST_END = /^(HTTP|HTTPS|RTSP)\/\d+(\.\d+)?$/;
const METHOD = /^[A-Z][A-Z-]*$/;
const VHOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_][A-Za-z0-9_.-]*)(:\d+)?$/;

/** Where each numeric column sits in a row's units (-1: not printed), from the header words. */
interface Layout {
  /** The header words before Client. */
  names: readonly string[];
  numeric: number;
  cpu: number;
  ss: number;
  req: number;
  dur: number;
  conn: number;
  child: number;
  slot: number;
  hasProtocol: boolean;
}

interface RowDraft {
  line: number;
  units: string[];
  /** Units of links-style lines printed above the row line (the start of a centred Request). */
  prefix: string[];
}

/** Split one line into units: tab-separated cells when it has tabs, else whitespace tokens. */
function unitsOf(line: string): string[] {
  if (line.includes('\t')) {
    const cells: string[] = [];
    for (const cell of line.split('\t')) {
      const trimmed = cell.trim();
      if (trimmed !== '') cells.push(trimmed);
    }
    return cells;
  }
  const trimmed = line.trim();
  return trimmed === '' ? [] : trimmed.split(/\s+/);
}

function indentOf(line: string): number {
  let n = 0;
  while (n < line.length && (line.charCodeAt(n) === 0x20 || line.charCodeAt(n) === 0x09)) n++;
  return n;
}

function isHeader(units: readonly string[]): boolean {
  return units[0] === 'Srv' && units[1] === 'PID' && units[2] === 'Acc' && units[3] === 'M';
}

function isRowStart(units: readonly string[]): boolean {
  return (
    units.length >= 4 && SRV.test(units[0] as string) && PID.test(units[1] as string) && ACC.test(units[2] as string)
  );
}

function layoutOf(columns: readonly string[]): Layout {
  const client = columns.indexOf('Client');
  const numeric = columns.slice(0, client < 0 ? columns.length : client);
  return {
    names: numeric,
    numeric: numeric.length,
    cpu: numeric.indexOf('CPU'),
    ss: numeric.indexOf('SS'),
    req: numeric.indexOf('Req'),
    dur: numeric.indexOf('Dur'),
    conn: numeric.indexOf('Conn'),
    child: numeric.indexOf('Child'),
    slot: numeric.indexOf('Slot'),
    hasProtocol: columns.includes('Protocol'),
  };
}

/** An APR-printed number (`.36`, `3.e+5`) at `index`; `null` when absent or not a number. */
function numberAt(units: readonly string[], index: number): number | null {
  const unit = units[index];
  return unit === undefined ? null : parseAprNumber(unit);
}

/**
 * Read the rows after a header line. `lines[start]` is the header; reading stops at `isEnd`;
 * `positions`: the scoreboard's, the rows to make room for.
 * Returns the rows (kept by column: `SlotColumns`), the index of the first line after the table,
 * and warnings for unread rows.
 */
function readTextTable(
  lines: readonly string[],
  start: number,
  isEnd: (line: string) => boolean,
  warnings: string[],
  positions: number,
): { rows: SlotColumns; next: number } {
  const columns = unitsOf(lines[start] as string);
  let i = start + 1;
  // lynx at 80 columns wraps the header: "Request" alone on the next line.
  const wrapped = unitsOf(lines[i] ?? '');
  if (wrapped.length > 0 && wrapped.every((u) => SLOT_COLUMN_SET.has(u)) && !isRowStart(wrapped)) {
    for (const name of wrapped) columns.push(name); // no spread: a hostile line may hold millions
    i++;
  }
  columns.forEach((column, k) => {
    if (!SLOT_COLUMN_SET.has(column))
      warnings.push(`slot table column ${k + 1} "${column}" is not a known column; ignored`);
  });
  const layout = layoutOf(columns);

  const rows = new SlotColumns(Math.min(positions, lines.length - start));
  const draft = emptyDraft();
  const finish = (row: RowDraft): void => {
    if (readRow(row, layout, draft)) rows.add(draft);
    else {
      const srv = JSON.stringify(row.units[0]);
      warnings.push(`slot table row at line ${row.line} (Srv ${srv}): ${problemOf(row.units, layout)}; row skipped`);
    }
  };
  let row: RowDraft | null = null;
  let rowIndent = 0;
  let pending: string[] = [];
  for (; i < lines.length; i++) {
    const line = lines[i] as string;
    if (isEnd(line)) break;
    const units = unitsOf(line);
    if (units.length === 0) continue;
    if (isRowStart(units)) {
      if (row !== null) finish(row);
      row = { line: i + 1, units, prefix: pending };
      rowIndent = indentOf(line);
      pending = [];
    } else if (row === null || belongsToNextRow(row, units, indentOf(line) > rowIndent + 2, layout)) {
      for (const unit of units) pending.push(unit);
    } else {
      for (const unit of units) row.units.push(unit);
    }
  }
  if (row !== null) {
    for (const unit of pending) row.units.push(unit);
    finish(row);
  }
  return { rows, next: i };
}

/**
 * Whether a continuation line starts the next row's Request (links centres a multi-line cell, so
 * its first lines come before the row line). A row whose request already ends with its protocol
 * is complete; in a column-aligned dump (continuation indented past the row) a line starting with
 * a method begins a new request, since the row line always holds part of its own.
 */
function belongsToNextRow(row: RowDraft, units: readonly string[], aligned: boolean, layout: Layout): boolean {
  const last = row.units.length - 1;
  if (last > layout.numeric && REQUEST_END.test(row.units[last] as string)) return true;
  return aligned && METHOD.test(units[0] as string) && units[0] !== 'NULL';
}

const REQUIRED = ['SS', 'Req', 'Conn', 'Child', 'Slot'] as const;

/** Why `readRow` refused a row, for its warning (off the hot path: only for refused rows). */
function problemOf(units: readonly string[], layout: Layout): string {
  const missing = REQUIRED.find((name) => !layout.names.includes(name));
  if (missing !== undefined) return `the header has no ${missing} column`;
  if (units.length < layout.numeric) return `it has ${units.length} cells, expected at least ${layout.numeric}`;
  if ((units[3] as string).length !== 1) return `M is ${JSON.stringify(units[3])}, expected one mode character`;
  for (let k = 4; k < layout.numeric; k++) {
    const name = layout.names[k] as string;
    if (SLOT_COLUMN_SET.has(name) && numberAt(units, k) === null) {
      return `${name} is ${JSON.stringify(units[k])}, expected a number`;
    }
  }
  return 'its cells do not fit the header';
}

/** Read `row` into `into` (a scratch draft, refilled per row: no object per row); false for a row to warn about. */
function readRow(row: RowDraft, layout: Layout, into: SlotDraft): boolean {
  const u = row.units;
  const acc = ACC.exec(u[2] as string);
  const mode = u[3];
  const ss = numberAt(u, layout.ss);
  const reqMs = numberAt(u, layout.req);
  const connKB = numberAt(u, layout.conn);
  const childMB = numberAt(u, layout.child);
  const slotMB = numberAt(u, layout.slot);
  if (u.length < layout.numeric || acc === null || mode === undefined || mode.length !== 1) return false;
  if (ss === null || reqMs === null || connKB === null || childMB === null || slotMB === null) return false;
  const cpu = layout.cpu < 0 ? null : numberAt(u, layout.cpu);
  const durMs = layout.dur < 0 ? null : numberAt(u, layout.dur);
  if ((layout.cpu >= 0 && cpu === null) || (layout.dur >= 0 && durMs === null)) return false;

  // Empty cells vanish: place Client, Protocol and VHost by their shape, the rest is Request.
  let k = layout.numeric;
  let client = '';
  if (k < u.length && !(layout.hasProtocol && PROTOCOL.test(u[k] as string))) client = u[k++] as string;
  let protocol: string | null = layout.hasProtocol ? '' : null;
  if (layout.hasProtocol && k < u.length && PROTOCOL.test(u[k] as string)) protocol = u[k++] as string;
  let vhost = '';
  const candidate = u[k];
  if (candidate !== undefined && VHOST.test(candidate) && !METHOD.test(candidate)) {
    vhost = candidate;
    k++;
  }
  into.srv = u[0] as string;
  into.pid = u[1] === '-' ? null : Number(u[1]);
  into.acc[0] = Number(acc[1]);
  into.acc[1] = Number(acc[2]);
  into.acc[2] = Number(acc[3]);
  into.mode = mode;
  into.cpu = cpu;
  into.ss = ss;
  into.reqMs = reqMs;
  into.durMs = durMs;
  into.connKB = connKB;
  into.childMB = childMB;
  into.slotMB = slotMB;
  into.client = client;
  into.protocol = protocol;
  into.vhost = vhost;
  // One join (the units are never empty): one flat string, not a chain of concatenations kept in the slot.
  const rest = u.slice(k).join(' ');
  into.request =
    row.prefix.length === 0 ? rest : rest === '' ? row.prefix.join(' ') : `${row.prefix.join(' ')} ${rest}`;
  return true;
}

export { indentOf, isHeader, readTextTable, unitsOf };
