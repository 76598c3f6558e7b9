/**
 * The `parse` command's view for a person: scoreboard map, counts per mode, busiest clients and
 * vhosts, the event MPM's connection figures and process table, SSL cache figures. Pure: takes
 * the report, returns styled pieces (main.ts filters each and colours them on a colour terminal
 * only).
 */
import { SCOREBOARD_MAP_WIDTH } from '../core/constants.ts';
import { MODE_CHARS, type ModeChar, type ProcessRow, type Slot, type StatusReport } from '../core/report/types.ts';
import { BUSY_MODES, countsMode } from '../core/rules/metrics.ts';
import { cleanTerminalText } from '../core/text/terminalText.ts';
import type { Styled } from './command.ts';

const MODE_NAMES: Record<ModeChar, string> = {
  _: 'waiting for connection',
  S: 'starting up',
  R: 'reading request',
  W: 'sending reply',
  K: 'keepalive (read)',
  D: 'DNS lookup',
  C: 'closing connection',
  L: 'logging',
  G: 'gracefully finishing',
  I: 'idle cleanup',
  '.': 'open slot',
};

// ANSI SGR codes: idle green, busy states warm, trouble states red, empty dim.
const MODE_COLOURS: Record<ModeChar, string> = {
  _: '32',
  S: '36',
  R: '33',
  W: '33;1',
  K: '34',
  D: '35',
  C: '31',
  L: '35',
  G: '31;1',
  I: '36',
  '.': '2',
};

const TOP_N = 5;
/** 16,384 positions: more than any real server's; past that the map says how many were left out. */
const MAP_MAX_LINES = 256;

/** Report text on one line of the view, cut at `max` (the terminal filter runs on all output, main.ts). */
function printable(text: string, max = 80): string {
  const clean = cleanTerminalText(text).split('\n').join(' ');
  return clean.length > max ? `${clean.slice(0, max - 3)}...` : clean;
}

/** One line of the view: plain text, or pieces some of which are styled. */
type Line = string | Styled[];

function paint(text: string, sgr: string): Styled {
  return { text, sgr };
}

/** Appends the scoreboard map to `out`, at most `MAP_MAX_LINES` lines (no spread: it may be huge). */
function pushScoreboardMap(out: Line[], scoreboard: string): void {
  const shown = Math.min(scoreboard.length, SCOREBOARD_MAP_WIDTH * MAP_MAX_LINES);
  for (let start = 0; start < shown; start += SCOREBOARD_MAP_WIDTH) {
    const chunk = scoreboard.slice(start, Math.min(start + SCOREBOARD_MAP_WIDTH, shown));
    const line: Styled[] = [`  ${String(start).padStart(5)}  `];
    for (const c of chunk) line.push(paint(c, MODE_COLOURS[c as ModeChar] ?? '0'));
    out.push(line);
  }
  if (shown < scoreboard.length)
    out.push(`  ... ${scoreboard.length - shown} more positions (the counts below include them; --json has all)`);
}

/** More process rows than any real event server has (ServerLimit 16 by default); past it they are counted. */
const MAX_PROCESS_ROWS = 64;

const PROCESS_COLUMNS: Array<[string, (p: ProcessRow) => string]> = [
  ['slot', (p) => num(p.slot)],
  ['pid', (p) => num(p.pid)],
  ['stopping', (p) => (p.stopping === null ? 'n/a' : printable(p.stopping, 12))],
  ['conns', (p) => num(p.connections)],
  ['accepting', (p) => (p.accepting === null ? 'n/a' : p.accepting ? 'yes' : 'no')],
  ['busy', (p) => num(p.busyThreads)],
  ['graceful', (p) => num(p.gracefulThreads)],
  ['idle', (p) => num(p.idleThreads)],
  ['wait-io', (p) => num(p.asyncWaitIo)],
  ['writing', (p) => num(p.asyncWriting)],
  ['keep-alive', (p) => num(p.asyncKeepAlive)],
  ['closing', (p) => num(p.asyncClosing)],
];

/** The event MPM's connection figures and per-process table (listener-held connections are in no slot). */
function pushEventMpm(out: Line[], report: StatusReport): void {
  const c = report.connections;
  if (c !== null) {
    out.push('', [paint('Connections (event MPM, held by the listener in no worker slot)', '1')]);
    out.push(
      `  total ${num(c.total)}; async: closing ${num(c.asyncClosing)}, keep-alive ${num(c.asyncKeepAlive)}, writing ${num(c.asyncWriting)}, wait-io ${num(c.asyncWaitIo)}`,
    );
    const { processes, stoppingProcesses } = report.server;
    if (processes !== null || stoppingProcesses !== null)
      out.push(`  processes ${num(processes)}, stopping ${num(stoppingProcesses)}`);
  }
  const rows = report.processes;
  if (rows === null || rows.length === 0) return;
  out.push('', [paint(`Processes (${rows.length})`, '1')]);
  const cells = rows.slice(0, MAX_PROCESS_ROWS).map((r) => PROCESS_COLUMNS.map(([, cell]) => cell(r)));
  const widths = PROCESS_COLUMNS.map(([head], i) => Math.max(head.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (values: string[]) => `  ${values.map((v, i) => v.padStart(widths[i] ?? 0)).join('  ')}`;
  out.push(line(PROCESS_COLUMNS.map(([head]) => head)));
  for (const row of cells) out.push(line(row));
  if (rows.length > MAX_PROCESS_ROWS)
    out.push(`  ... ${rows.length - MAX_PROCESS_ROWS} more processes (--json has all)`);
}

function topBy(slots: readonly Slot[], key: (s: Slot) => string): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const slot of slots) {
    const k = key(slot);
    if (k !== '') counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, TOP_N);
}

function num(value: number | null): string {
  return value === null ? 'n/a' : String(value);
}

/**
 * Render a report for a terminal.
 *
 * @example
 * io.styled(renderSummary(parseReport(text)));
 */
function renderSummary(report: StatusReport): Styled[] {
  const { server, counts, slots, sslCache } = report;
  const out: Line[] = [];
  out.push([paint(`Apache server-status (${report.format})`, '1')]);
  out.push(`  version       ${printable(server.version ?? 'n/a', 200)}`);
  out.push(`  MPM           ${printable(server.mpm ?? 'n/a')}`);
  out.push(
    `  current time  ${printable(server.currentTime ?? 'n/a')}   (restarted ${printable(server.restartTime ?? 'n/a')})`,
  );
  out.push(`  uptime        ${num(server.uptimeSeconds)} s   total accesses ${num(server.totalAccesses)}`);
  out.push(
    `  workers       ${num(server.busyWorkers)} busy, ${num(server.idleWorkers)} idle, ${num(server.gracefulWorkers)} gracefully restarting`,
  );
  out.push('', [paint(`Scoreboard (${report.scoreboard.length} positions)`, '1')]);
  pushScoreboardMap(out, report.scoreboard);
  out.push('', [paint('Slots per mode', '1')]);
  for (const mode of MODE_CHARS) {
    if (counts[mode] === 0) continue;
    const share = report.scoreboard.length === 0 ? 0 : (100 * counts[mode]) / report.scoreboard.length;
    out.push([
      '  ',
      paint(mode, MODE_COLOURS[mode]),
      `  ${String(counts[mode]).padStart(6)}  ${share.toFixed(1).padStart(5)}%  ${MODE_NAMES[mode]}`,
    ]);
  }
  if (slots === null) {
    out.push('', 'No per-slot table in this report (?auto page or ExtendedStatus Off).');
  } else {
    const busy = slots.filter((s) => countsMode(BUSY_MODES, s.mode));
    out.push('', [paint(`Busiest clients (${busy.length} busy slots in the table)`, '1')]);
    for (const [client, n] of topBy(busy, (s) => s.client))
      out.push(`  ${String(n).padStart(6)}  ${printable(client)}`);
    out.push('', [paint('Busiest virtual hosts', '1')]);
    for (const [vhost, n] of topBy(busy, (s) => s.vhost)) out.push(`  ${String(n).padStart(6)}  ${printable(vhost)}`);
    const oldest = busy.filter((s) => s.mode === 'W').sort((a, b) => b.ss - a.ss)[0];
    if (oldest) {
      out.push(
        '',
        `Oldest request being sent: ${oldest.ss} s, ${printable(oldest.request)} (${printable(oldest.client)})`,
      );
    }
  }
  pushEventMpm(out, report);
  if (sslCache !== null) {
    const retrieves = sslCache.retrieveHits + sslCache.retrieveMisses;
    const missRatio = retrieves === 0 ? 'n/a' : `${((100 * sslCache.retrieveMisses) / retrieves).toFixed(1)}%`;
    out.push('', [paint(`SSL/TLS session cache (${printable(sslCache.type, 20)})`, '1')]);
    out.push(
      `  ${sslCache.currentEntries} entries, cache usage ${sslCache.cacheUsagePercent}%, index usage ${sslCache.indexUsagePercent}%`,
    );
    out.push(`  retrieves ${sslCache.retrieveHits} hit / ${sslCache.retrieveMisses} miss (miss ratio ${missRatio})`);
    out.push(
      `  stored ${sslCache.stored}, expired ${sslCache.expired}, scrolled out ${sslCache.discarded}, replaced ${num(sslCache.replaced)}`,
    );
  }
  if (report.warnings.length > 0) {
    out.push('', [paint(`Warnings (${report.warnings.length})`, '1')]);
    for (const w of report.warnings) out.push(`  - ${printable(w, 200)}`);
  }
  const parts: Styled[] = [];
  for (const line of out) {
    if (typeof line === 'string') parts.push(line);
    else parts.push(...line);
    parts.push('\n');
  }
  return parts;
}

/** Styled pieces as plain text (what a pipe or NO_COLOR shows). */
function plainText(parts: readonly Styled[]): string {
  return parts.map((p) => (typeof p === 'string' ? p : p.text)).join('');
}

export { plainText, renderSummary };
