/**
 * The slot table of a text dump, read as a stream of units (whitespace-separated tokens, or cells
 * of a tab-separated browser copy). Columns cannot be cut by position: `lynx -dump` at 80 columns
 * wraps rows and drops empty cells, links centres multi-line Request cells around the row line.
 */
import { isRequestTruncated, parseAprNumber } from './common.ts';
import type { Slot } from './types.ts';

const SRV = /^\d+-\d+$/;
const PID = /^(\d+|-)$/;
const ACC = /^(\d+)\/(\d+)\/(\d+)$/;
const PROTOCOL = /^(https?\/\d(\.\d)?|h2c?|HTTP\/\d(\.\d)?|spdy\/\S+)$/i;
const REQUEST_END = /^(HTTP|HTTPS|RTSP)\/\d+(\.\d+)?$/;
const METHOD = /^[A-Z][A-Z-]*$/;
const VHOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_][A-Za-z0-9_.-]*)(:\d+)?$/;

/** Columns before Client, in the order mod_status prints them; the header says which exist. */
const NUMERIC_COLUMNS = ['Srv', 'PID', 'Acc', 'M', 'CPU', 'SS', 'Req', 'Dur', 'Conn', 'Child', 'Slot'] as const;
const TEXT_COLUMNS = ['Client', 'Protocol', 'VHost', 'Request'] as const;
const KNOWN_COLUMNS: ReadonlySet<string> = new Set([...NUMERIC_COLUMNS, ...TEXT_COLUMNS]);

interface RowDraft {
  line: number;
  units: string[];
  /** Units of a links-style line printed above the row line (the start of a centred Request). */
  prefix: string[];
}

/** Split one line into units: tab-separated cells when it has tabs, else whitespace tokens. */
function unitsOf(line: string): string[] {
  if (line.includes('\t'))
    return line
      .split('\t')
      .map((c) => c.trim())
      .filter((c) => c !== '');
  const trimmed = line.trim();
  return trimmed === '' ? [] : trimmed.split(/\s+/);
}

function isHeader(units: readonly string[]): boolean {
  return units[0] === 'Srv' && units[1] === 'PID' && units[2] === 'Acc' && units[3] === 'M';
}

function isRowStart(units: readonly string[]): boolean {
  return (
    units.length >= 4 && SRV.test(units[0] as string) && PID.test(units[1] as string) && ACC.test(units[2] as string)
  );
}

/** A row's units already end with a complete request line (`... HTTP/1.1`). */
function endsWithRequest(units: readonly string[], minUnits: number): boolean {
  return units.length > minUnits && REQUEST_END.test(units[units.length - 1] as string);
}

/**
 * Read the rows after a header line. `lines[start]` is the header; reading stops at `isEnd`.
 * Returns the slots, the index of the first line after the table, and warnings for unread rows.
 */
function readTextTable(
  lines: readonly string[],
  start: number,
  isEnd: (line: string) => boolean,
  warnings: string[],
): { slots: Slot[]; next: number } {
  const columns = unitsOf(lines[start] as string);
  let i = start + 1;
  // lynx at 80 columns wraps the header: "Request" alone on the next line.
  const wrapped = unitsOf(lines[i] ?? '');
  if (wrapped.length > 0 && wrapped.every((u) => KNOWN_COLUMNS.has(u)) && !isRowStart(wrapped)) {
    columns.push(...wrapped);
    i++;
  }
  for (const column of columns) {
    if (!KNOWN_COLUMNS.has(column)) warnings.push(`slot table column "${column}" is not known; its values are ignored`);
  }
  const numeric = columns.slice(0, columns.indexOf('Client') < 0 ? columns.length : columns.indexOf('Client'));
  const hasProtocol = columns.includes('Protocol');

  const rows: RowDraft[] = [];
  let pending: string[] = [];
  for (; i < lines.length; i++) {
    const line = lines[i] as string;
    if (isEnd(line)) break;
    const units = unitsOf(line);
    if (units.length === 0) continue;
    if (isRowStart(units)) {
      rows.push({ line: i + 1, units, prefix: pending });
      pending = [];
      continue;
    }
    const current = rows[rows.length - 1];
    if (current === undefined || endsWithRequest(current.units, numeric.length + 1)) pending.push(...units);
    else current.units.push(...units);
  }
  const last = rows[rows.length - 1];
  if (pending.length > 0 && last !== undefined) last.units.push(...pending);

  const slots: Slot[] = [];
  for (const row of rows) {
    const slot = readRow(row, numeric, hasProtocol);
    if (slot === null) {
      warnings.push(
        `slot table row at line ${row.line} could not be read; skipped: ${JSON.stringify(row.units.join(' ').slice(0, 80))}`,
      );
    } else slots.push(slot);
  }
  return { slots, next: i };
}

function readRow(row: RowDraft, numeric: readonly string[], hasProtocol: boolean): Slot | null {
  const u = row.units;
  if (u.length < numeric.length) return null;
  const values: Record<string, string> = {};
  numeric.forEach((column, k) => {
    values[column] = u[k] as string;
  });
  const acc = ACC.exec(values.Acc ?? '');
  const num = (column: string): number | null => (values[column] === undefined ? null : parseAprNumber(values[column]));
  const required = [num('SS'), num('Req'), num('Conn'), num('Child'), num('Slot')];
  if (acc === null || required.some((v) => v === null) || values.M === undefined || values.M.length !== 1) return null;
  const cpu = num('CPU');
  const dur = num('Dur');
  if ((values.CPU !== undefined && cpu === null) || (values.Dur !== undefined && dur === null)) return null;

  const text = u.slice(numeric.length);
  let k = 0;
  let client = '';
  if (text[k] !== undefined && !(hasProtocol && PROTOCOL.test(text[k] as string))) client = text[k++] as string;
  let protocol: string | null = hasProtocol ? '' : null;
  if (hasProtocol && text[k] !== undefined && PROTOCOL.test(text[k] as string)) protocol = text[k++] as string;
  let vhost = '';
  const candidate = text[k];
  if (candidate !== undefined && VHOST.test(candidate) && !METHOD.test(candidate) && candidate !== 'NULL') {
    vhost = candidate;
    k++;
  }
  const request = [...row.prefix, ...text.slice(k)].join(' ');
  const [ss, reqMs, connKB, childMB, slotMB] = required as number[];
  return {
    srv: values.Srv as string,
    pid: values.PID === '-' ? null : Number(values.PID),
    acc: [Number(acc[1]), Number(acc[2]), Number(acc[3])],
    mode: values.M,
    cpu,
    ss: ss as number,
    reqMs: reqMs as number,
    durMs: dur,
    connKB: connKB as number,
    childMB: childMB as number,
    slotMB: slotMB as number,
    client,
    protocol,
    vhost,
    request,
    requestTruncated: isRequestTruncated(request),
  };
}

export { isHeader, KNOWN_COLUMNS, readTextTable, unitsOf };
