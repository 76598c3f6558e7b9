/**
 * The event MPM's listener-held connections as one line of a page: connections waiting in
 * lingering close, keep-alive, writing or wait-io are in no worker slot, so the scoreboard map and
 * the slot lists beside this line cannot show them.
 */
import type { StatusReport } from '../report/types.ts';

/**
 * `Async connections (event MPM, in no worker slot): closing 50, keep-alive 2, writing 0,
 * wait-io 0; 54 connections in 2 processes`, or `null` when the report has no connection counts
 * (prefork, worker). Only numbers: nothing from the report's text reaches the page.
 *
 * @example
 * asyncConnectionsLine(parseReport(eventPage)) // 'Async connections (event MPM, in no worker slot): closing 5, ...'
 */
function asyncConnectionsLine(report: StatusReport): string | null {
  const c = report.connections;
  if (c === null) return null;
  const counts: Array<[string, number | null]> = [
    ['closing', c.asyncClosing],
    ['keep-alive', c.asyncKeepAlive],
    ['writing', c.asyncWriting],
    ['wait-io', c.asyncWaitIo],
  ];
  const parts = counts.filter(([, n]) => n !== null).map(([name, n]) => `${name} ${n}`);
  const { processes, stoppingProcesses } = report.server;
  let where = c.total === null ? '' : `; ${c.total} connections`;
  if (processes !== null) where += ` in ${processes} processes`;
  if (stoppingProcesses !== null && stoppingProcesses > 0) where += `, ${stoppingProcesses} of them stopping`;
  return `Async connections (event MPM, in no worker slot): ${parts.join(', ') || 'none printed'}${where}`;
}

export { asyncConnectionsLine };
