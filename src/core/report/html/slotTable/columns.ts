/**
 * The slot table's columns: where each one is in a row, found by the header's names (never by
 * the version string: columns came and went across 2.2 and 2.4), and what each cell must hold.
 * Both row readers read a row through these, so they agree on which cell is which.
 */
import { SLOT_COLUMN_SET, SLOT_COLUMNS, type SlotColumn } from '../../types.ts';

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

/** The columns whose cells must read as numbers (PID may also be "-"). */
const NUMBER_COLUMNS = ['PID', 'CPU', 'SS', 'Req', 'Dur', 'Conn', 'Child', 'Slot'] as const;

/** What the fast row reader checks in each cell of a row, by its column. */
const CellKind = { Text: 0, Srv: 1, Mode: 2, Pid: 3, Acc: 4, Number: 5, Seconds: 6 } as const;

/** Each cell's kind for a table of `width` cells laid out as `columns`. */
function cellKinds(columns: ColumnMap, width: number): Uint8Array {
  const kinds = new Uint8Array(width); // CellKind.Text
  const set = (column: number, kind: number) => {
    if (column >= 0) kinds[column] = kind;
  };
  set(columns.Srv, CellKind.Srv);
  set(columns.M, CellKind.Mode);
  set(columns.PID, CellKind.Pid);
  set(columns.Acc, CellKind.Acc);
  for (const column of [columns.CPU, columns.Req, columns.Dur, columns.Conn, columns.Child, columns.Slot]) {
    set(column, CellKind.Number);
  }
  set(columns.SS, CellKind.Seconds);
  return kinds;
}

export type { ColumnMap };
export { CellKind, cellKinds, mapColumns, NUMBER_COLUMNS };
