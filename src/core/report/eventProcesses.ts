/**
 * The event MPM's per-process table (HTML page and text dumps) and its `Processes`, `Stopping` and
 * `Conns*` keys (`?auto`). Connections waiting in keep-alive, writing or lingering close belong to
 * the listener thread, in no worker slot: only these show them.
 *
 * The table's columns are found by their header names. 2.4.0-2.4.24 print PID | Connections
 * (total, accepting) | Threads (busy, idle) | Async connections (writing, keep-alive, closing);
 * 2.4.25 adds Slot and Stopping, 2.4.58 graceful, 2.4.63 wait-io. The group headers' colspans are
 * not trusted (2.4.58 left Threads at 2): each sub-column belongs to the group that names it.
 */
import type { ConnectionTotals, ProcessRow, ServerInfo } from './types.ts';

/** Header name -> field of `ProcessRow`. */
const PROCESS_COLUMNS = {
  Slot: 'slot',
  PID: 'pid',
  Stopping: 'stopping',
  total: 'connections',
  accepting: 'accepting',
  busy: 'busyThreads',
  graceful: 'gracefulThreads',
  idle: 'idleThreads',
  'wait-io': 'asyncWaitIo',
  writing: 'asyncWriting',
  'keep-alive': 'asyncKeepAlive',
  closing: 'asyncClosing',
} as const satisfies Record<string, keyof ProcessRow>;
type ProcessColumn = keyof typeof PROCESS_COLUMNS;
type ProcessField = (typeof PROCESS_COLUMNS)[ProcessColumn];

/** Columns printed under no group header (rowspan 2). */
const UNGROUPED: ReadonlySet<string> = new Set(['Slot', 'PID', 'Stopping']);

/** The group headers of the first header row and the sub-columns each may hold. */
const PROCESS_GROUPS: Readonly<Record<string, readonly string[]>> = {
  Connections: ['total', 'accepting'],
  Threads: ['busy', 'graceful', 'idle'],
  'Async connections': ['wait-io', 'writing', 'keep-alive', 'closing'],
};

/** The `Sum` row's label, in the first column. */
const SUM_LABEL = 'Sum';

/** `?auto` keys of the connection totals. */
const AUTO_CONNECTION_KEYS: Readonly<Record<string, keyof ConnectionTotals>> = {
  ConnsTotal: 'total',
  ConnsAsyncWaitIO: 'asyncWaitIo',
  ConnsAsyncWriting: 'asyncWriting',
  ConnsAsyncKeepAlive: 'asyncKeepAlive',
  ConnsAsyncClosing: 'asyncClosing',
};

/** `?auto` keys of the process counts. */
const AUTO_PROCESS_KEYS: Readonly<Record<string, 'processes' | 'stoppingProcesses'>> = {
  Processes: 'processes',
  Stopping: 'stoppingProcesses',
};

/** What the table gives the report. */
interface ProcessTable {
  processes: ProcessRow[];
  connections: ConnectionTotals | null;
  /** The `Sum` row's process count (2.4.25+, where it stands in the PID column). */
  processCount: number | null;
  stoppingCount: number | null;
}

function emptyConnections(): ConnectionTotals {
  return { total: null, asyncWaitIo: null, asyncWriting: null, asyncKeepAlive: null, asyncClosing: null };
}

/** Whether a header row (cells, or a text line's units) opens the per-process table. */
function isProcessTableHeader(names: readonly string[]): boolean {
  return (names[0] === 'Slot' || names[0] === 'PID') && names.includes('Async connections');
}

/** A whole non-negative number of digits only; `null` otherwise. */
function wholeNumber(text: string): number | null {
  if (text.length === 0 || text.length > 15) return null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return null;
  }
  return Number(text);
}

/** The fields of the data cells in order, from the two header rows; `null` when they do not fit. */
function processColumns(top: readonly string[], sub: readonly string[], warnings: string[]): ProcessField[] | null {
  const fields: ProcessField[] = [];
  let next = 0;
  for (const name of top) {
    const group = PROCESS_GROUPS[name];
    if (group !== undefined) {
      while (next < sub.length && group.includes(sub[next] as string)) {
        fields.push(PROCESS_COLUMNS[sub[next] as ProcessColumn]);
        next++;
      }
    } else if (UNGROUPED.has(name)) {
      fields.push(PROCESS_COLUMNS[name as ProcessColumn]);
    } else {
      warnings.push(`process table column "${name}" is not a known column; table not reported`);
      return null;
    }
  }
  if (next < sub.length) {
    warnings.push(
      `process table sub-column "${sub[next]}" belongs to none of ${Object.keys(PROCESS_GROUPS).join(', ')}; table not reported`,
    );
    return null;
  }
  return fields;
}

/**
 * Reads the table row by row (header rows first), in any form: the caller hands over each row's
 * cells as text, without the empty ones or with them (the `Sum` row's accepting cell is empty).
 */
class ProcessTableReader {
  private readonly warnings: string[];
  private top: readonly string[] | null = null;
  private fields: ProcessField[] | null = null;
  private broken = false;
  private row = 0;
  private readonly rows: ProcessRow[] = [];
  private sum: Partial<Record<ProcessField, number | null>> | null = null;

  constructor(warnings: string[]) {
    this.warnings = warnings;
  }

  /** One row: `headers` when every cell is a header cell (`<th>`, or a text dump's header line). */
  addRow(cells: readonly string[], headers: boolean): void {
    if (this.broken) return;
    if (headers) {
      if (this.top === null) this.top = cells;
      else if (this.fields === null) {
        this.fields = processColumns(this.top, cells, this.warnings);
        this.broken = this.fields === null;
      }
      return;
    }
    const fields = this.fields;
    if (fields === null) {
      this.warnings.push('process table has no row of sub-column headers (total, accepting, ...); table not reported');
      this.broken = true;
      return;
    }
    this.row++;
    if (cells[0] === SUM_LABEL) this.readSum(fields, cells);
    else this.readProcess(fields, cells);
  }

  private skip(why: string): void {
    this.warnings.push(`process table row ${this.row}: ${why}; row skipped`);
  }

  private readProcess(fields: readonly ProcessField[], cells: readonly string[]): void {
    if (cells.length !== fields.length) {
      this.skip(`has ${cells.length} cells, expected ${fields.length}`);
      return;
    }
    const entry: ProcessRow = {
      slot: null,
      pid: null,
      stopping: null,
      connections: null,
      accepting: null,
      busyThreads: null,
      gracefulThreads: null,
      idleThreads: null,
      asyncWaitIo: null,
      asyncWriting: null,
      asyncKeepAlive: null,
      asyncClosing: null,
    };
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i] as ProcessField;
      const cell = cells[i] as string;
      if (field === 'stopping') {
        entry.stopping = cell;
      } else if (field === 'accepting') {
        if (cell !== 'yes' && cell !== 'no') {
          this.skip(`accepting is ${JSON.stringify(cell)}, expected yes or no`);
          return;
        }
        entry.accepting = cell === 'yes';
      } else {
        const n = wholeNumber(cell);
        if (n === null) {
          this.skip(`${field} is ${JSON.stringify(cell.slice(0, 40))}, expected a whole number`);
          return;
        }
        entry[field] = n;
      }
    }
    this.rows.push(entry);
  }

  /** `Sum | processes | stopping | connections | (empty) | busy ...`: the empty accepting cell dropped. */
  private readSum(fields: readonly ProcessField[], cells: readonly string[]): void {
    const values = cells.slice(1).filter((c) => c !== '');
    const sumFields = fields.slice(1).filter((f) => f !== 'accepting');
    if (values.length !== sumFields.length) {
      this.skip(`is a Sum row of ${values.length} numbers, expected ${sumFields.length}`);
      return;
    }
    const sum: Partial<Record<ProcessField, number | null>> = {};
    for (let i = 0; i < sumFields.length; i++) {
      const n = wholeNumber(values[i] as string);
      if (n === null) {
        this.skip(`Sum row cell ${JSON.stringify(values[i])} is not a whole number`);
        return;
      }
      sum[sumFields[i] as ProcessField] = n;
    }
    this.sum = sum;
  }

  /** What was read, or `null` when no table was (or it could not be read). */
  finish(): ProcessTable | null {
    if (this.top === null || this.broken) return null;
    const sum = this.sum;
    if (sum === null) this.warnings.push('process table has no Sum row; connection totals not reported');
    const connections =
      sum === null
        ? null
        : {
            total: sum.connections ?? null,
            asyncWaitIo: sum.asyncWaitIo ?? null,
            asyncWriting: sum.asyncWriting ?? null,
            asyncKeepAlive: sum.asyncKeepAlive ?? null,
            asyncClosing: sum.asyncClosing ?? null,
          };
    // Before 2.4.25 "Sum" stands in the PID column and no process count is printed.
    const counted = this.fields?.[0] === 'slot';
    return {
      processes: this.rows,
      connections,
      processCount: counted ? (sum?.pid ?? null) : null,
      stoppingCount: sum?.stopping ?? null,
    };
  }
}

/**
 * Read one `?auto` key of the event MPM into `server` or `draft.connections`. Returns whether the
 * key was one of them; `value()` reads the key's number (`null`, with a warning, when it is not one).
 */
function readEventAutoKey(
  key: string,
  value: () => number | null,
  server: ServerInfo,
  draft: { connections: ConnectionTotals | null },
): boolean {
  const processField = AUTO_PROCESS_KEYS[key];
  if (processField !== undefined) {
    server[processField] = value();
    return true;
  }
  const connectionField = AUTO_CONNECTION_KEYS[key];
  if (connectionField === undefined) return false;
  draft.connections ??= emptyConnections();
  draft.connections[connectionField] = value();
  return true;
}

export type { ProcessTable };
export { isProcessTableHeader, ProcessTableReader, readEventAutoKey };
