import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseHtml } from '../../../src/core/report/html/page.ts';
import { parseReport } from '../../../src/core/report/parse.ts';
import { parseText } from '../../../src/core/report/text.ts';
import type { ConnectionTotals, ProcessRow } from '../../../src/core/report/types.ts';

const FIXTURES = new URL('../../fixtures/apache-2.4.71/event-closing/', import.meta.url);
const read = (file: string): string => readFileSync(new URL(file, FIXTURES), 'latin1');

/** A process row: the 12 cells in the order 2.4.63+ prints them. */
function row(
  slot: number | null,
  pid: number | null,
  stopping: string | null,
  connections: number,
  accepting: boolean,
  [busyThreads, gracefulThreads, idleThreads]: [number, number | null, number],
  [asyncWaitIo, asyncWriting, asyncKeepAlive, asyncClosing]: [number | null, number, number, number],
): ProcessRow {
  return {
    slot,
    pid,
    stopping,
    connections,
    accepting,
    busyThreads,
    gracefulThreads,
    idleThreads,
    asyncWaitIo,
    asyncWriting,
    asyncKeepAlive,
    asyncClosing,
  };
}

function totals(total: number, [waitIo, writing, keepAlive, closing]: [number | null, number, number, number]) {
  return {
    total,
    asyncWaitIo: waitIo,
    asyncWriting: writing,
    asyncKeepAlive: keepAlive,
    asyncClosing: closing,
  } satisfies ConnectionTotals;
}

// Read by hand from report.html ("Slot PID Stopping ..." table) and report.auto.txt.
const PILEUP = {
  processes: [
    row(0, 28474, 'no', 19, true, [3, 0, 13], [0, 0, 1, 16]),
    row(1, 28475, 'no', 35, true, [0, 0, 16], [0, 0, 1, 34]),
  ],
  connections: totals(54, [0, 0, 2, 50]),
  server: { processes: 2, stoppingProcesses: 0 },
  scoreboard: `W_W____W${'_'.repeat(24)}${'.'.repeat(32)}`,
};
const GRACEFUL = {
  processes: [
    row(0, 28474, 'yes (old gen)', 2, false, [0, 0, 0], [0, 0, 0, 0]),
    row(1, 28523, 'no', 3, true, [0, 0, 16], [0, 0, 2, 1]),
    row(2, 28559, 'no', 2, true, [1, 0, 15], [0, 0, 1, 1]),
  ],
  connections: totals(7, [0, 0, 3, 2]),
  server: { processes: 3, stoppingProcesses: 1 },
};

describe('the event MPM process table in every form (real 2.4.71 captures, event-closing)', () => {
  it.each([
    ['report.html', 'html'],
    ['report.lynx.txt', 'text'],
    ['report.lynx80.txt', 'text'],
    ['report.browser-copy.txt', 'text'],
  ])('%s: 50 connections in lingering close, none of them on the scoreboard', (file, format) => {
    // Act
    const report = parseReport(read(file));
    // Assess
    expect(report.format).toBe(format);
    expect(report.processes).toEqual(PILEUP.processes);
    expect(report.connections).toEqual(PILEUP.connections);
    expect(report.server).toMatchObject(PILEUP.server);
    expect(report.scoreboard).toBe(PILEUP.scoreboard);
    expect(report.counts.C).toBe(0);
    expect(report.warnings).toEqual([]);
  });

  it.each([
    ['report.graceful.html'],
    ['report.graceful.lynx.txt'],
    ['report.graceful.lynx80.txt'],
    ['report.graceful.browser-copy.txt'],
  ])('%s: the old generation stopping after a graceful restart', (file) => {
    // Act
    const report = parseReport(read(file));
    // Assess
    expect(report.processes).toEqual(GRACEFUL.processes);
    expect(report.connections).toEqual(GRACEFUL.connections);
    expect(report.server).toMatchObject(GRACEFUL.server);
    expect(report.counts.G).toBe(2);
    expect(report.warnings).toEqual([]);
  });

  it.each([
    ['report.auto.txt', PILEUP],
    ['report.graceful.auto.txt', GRACEFUL],
  ])('%s: the same totals from the Conns* keys, no per-process rows', (file, expected) => {
    // Act
    const report = parseReport(read(file));
    // Assess
    expect(report.format).toBe('auto');
    expect(report.processes).toBeNull();
    expect(report.connections).toEqual(expected.connections);
    expect(report.server).toMatchObject(expected.server);
  });

  it.each([
    'report.lynx.txt',
    'report.lynx80.txt',
    'report.browser-copy.txt',
    'report.graceful.lynx.txt',
    'report.graceful.lynx80.txt',
    'report.graceful.browser-copy.txt',
  ])('%s parses to the report of the HTML it was rendered from', (file) => {
    // Act
    const { format: _text, ...fromText } = parseText(read(file));
    const { format: _html, ...fromHtml } = parseHtml(read(file.replace(/\.(lynx80|lynx|browser-copy)\.txt$/, '.html')));
    // Assess
    expect(fromText).toEqual(fromHtml);
  });
});

/** An HTML page with `table` as its process table, a 4-slot scoreboard and nothing else. */
const page = (table: string): string =>
  '<html><head><title>Apache Status</title></head><body><dl><dt>Server MPM: event</dt></dl>\n\n' +
  `<table rules="all" cellpadding="1%">\n${table}</table>\n<pre>W___</pre>\n</body></html>\n`;

// The layouts of older 2.4 releases, per mod_status.c (shared docs, section 7).
const TABLE_2_4_4 =
  '<tr><th rowspan="2">PID</th><th colspan="2">Connections</th>\n' +
  '<th colspan="2">Threads</th><th colspan="4">Async connections</th></tr>\n' +
  '<tr><th>total</th><th>accepting</th><th>busy</th><th>idle</th><th>writing</th><th>keep-alive</th><th>closing</th></tr>\n' +
  '<tr><td>97976</td><td>183</td><td>yes</td><td>18</td><td>110</td><td>1</td><td>49</td><td>115</td></tr>\n' +
  '<tr><td>74945</td><td>2</td><td>no</td><td>0</td><td>0</td><td>0</td><td>0</td><td>0</td></tr>\n' +
  '<tr><td>Sum</td><td>185</td><td>&nbsp;</td><td>18</td><td>110</td><td>1</td><td>49</td><td>115</td></tr>\n';
const TABLE_2_4_25 =
  '<tr><th rowspan="2">Slot</th><th rowspan="2">PID</th><th rowspan="2">Stopping</th><th colspan="2">Connections</th>\n' +
  '<th colspan="2">Threads</th><th colspan="3">Async connections</th></tr>\n' +
  '<tr><th>total</th><th>accepting</th><th>busy</th><th>idle</th><th>writing</th><th>keep-alive</th><th>closing</th></tr>\n' +
  '<tr><td>0</td><td>4101</td><td>yes (old gen)</td><td>3</td><td>no</td><td>0</td><td>0</td><td>0</td><td>0</td><td>3</td></tr>\n' +
  '<tr><td>1</td><td>4102</td><td>no</td><td>7</td><td>yes</td><td>2</td><td>23</td><td>0</td><td>4</td><td>1</td></tr>\n' +
  '<tr><td>Sum</td><td>2</td><td>1</td><td>10</td><td>&nbsp;</td><td>2</td><td>23</td><td>0</td><td>4</td><td>4</td></tr>\n';
// 2.4.58-2.4.62: graceful added under Threads, whose colspan stayed 2.
const TABLE_2_4_58 =
  '<tr><th rowspan="2">Slot</th><th rowspan="2">PID</th><th rowspan="2">Stopping</th><th colspan="2">Connections</th>\n' +
  '<th colspan="2">Threads</th><th colspan="3">Async connections</th></tr>\n' +
  '<tr><th>total</th><th>accepting</th><th>busy</th><th>graceful</th><th>idle</th><th>writing</th><th>keep-alive</th><th>closing</th></tr>\n' +
  '<tr><td>0</td><td>4101</td><td>no</td><td>5</td><td>yes</td><td>1</td><td>2</td><td>22</td><td>0</td><td>2</td><td>2</td></tr>\n' +
  '<tr><td>Sum</td><td>1</td><td>0</td><td>5</td><td>&nbsp;</td><td>1</td><td>2</td><td>22</td><td>0</td><td>2</td><td>2</td></tr>\n';

describe('the event MPM process table of older 2.4 layouts: columns by header name', () => {
  it.each([
    [
      '2.4.0-2.4.24: PID only, no Slot, Stopping, graceful or wait-io',
      TABLE_2_4_4,
      [
        row(null, 97976, null, 183, true, [18, null, 110], [null, 1, 49, 115]),
        row(null, 74945, null, 2, false, [0, null, 0], [null, 0, 0, 0]),
      ],
      totals(185, [null, 1, 49, 115]),
      { processes: null, stoppingProcesses: null },
    ],
    [
      '2.4.25-2.4.57: Slot and Stopping, no graceful or wait-io',
      TABLE_2_4_25,
      [
        row(0, 4101, 'yes (old gen)', 3, false, [0, null, 0], [null, 0, 0, 3]),
        row(1, 4102, 'no', 7, true, [2, null, 23], [null, 0, 4, 1]),
      ],
      totals(10, [null, 0, 4, 4]),
      { processes: 2, stoppingProcesses: 1 },
    ],
    [
      '2.4.58-2.4.62: graceful under a Threads header whose colspan is wrong',
      TABLE_2_4_58,
      [row(0, 4101, 'no', 5, true, [1, 2, 22], [null, 0, 2, 2])],
      totals(5, [null, 0, 2, 2]),
      { processes: 1, stoppingProcesses: 0 },
    ],
  ])('%s', (_name, table, processes, connections, server) => {
    // Act
    const report = parseHtml(page(table));
    // Assess
    expect(report.processes).toEqual(processes);
    expect(report.connections).toEqual(connections);
    expect(report.server).toMatchObject(server);
    expect(report.warnings).toEqual([]);
  });

  it('reads the 2.4.25 layout from a lynx dump too (aligned, as lynx keeps narrow tables)', () => {
    // Prepare
    const dump = [
      '   Server MPM: event',
      '',
      '   Slot PID  Stopping      Connections  Threads    Async connections',
      '                          total accepting busy idle writing keep-alive closing',
      '   0    4101 yes (old gen) 3     no        0    0    0       0          3',
      '   1    4102 no            7     yes       2    23   0       4          1',
      '   Sum  2    1             10              2    23   0       4          4',
      '',
      'W___',
      '',
      '   Scoreboard Key:',
    ].join('\n');
    // Act
    const report = parseText(dump);
    // Assess
    expect(report.processes).toEqual(parseHtml(page(TABLE_2_4_25)).processes);
    expect(report.connections).toEqual(totals(10, [null, 0, 4, 4]));
    expect(report.server).toMatchObject({ processes: 2, stoppingProcesses: 1 });
  });
});

describe('the event MPM process table: what cannot be read is named, never invented', () => {
  const header =
    '<tr><th rowspan="2">Slot</th><th rowspan="2">PID</th><th rowspan="2">Stopping</th><th colspan="2">Connections</th>' +
    '<th colspan="3">Threads</th><th colspan="4">Async connections</th></tr>\n' +
    '<tr><th>total</th><th>accepting</th><th>busy</th><th>graceful</th><th>idle</th><th>wait-io</th><th>writing</th><th>keep-alive</th><th>closing</th></tr>\n';
  const good =
    '<tr><td>0</td><td>11</td><td>no</td><td>4</td><td>yes</td><td>1</td><td>0</td><td>24</td><td>0</td><td>0</td><td>1</td><td>3</td></tr>\n';
  const sum =
    '<tr><td>Sum</td><td>1</td><td>0</td><td>4</td><td>&nbsp;</td><td>1</td><td>0</td><td>24</td><td>0</td><td>0</td><td>1</td><td>3</td></tr>\n';

  it.each([
    [
      'a cell that is not a number',
      `${header}${good}<tr><td>1</td><td>12</td><td>no</td><td>many</td><td>yes</td><td>1</td><td>0</td><td>24</td><td>0</td><td>0</td><td>1</td><td>3</td></tr>\n${sum}`,
      1,
      totals(4, [0, 0, 1, 3]),
      ['process table row 2: connections is "many", expected a whole number; row skipped'],
    ],
    [
      'an accepting cell that is neither yes nor no',
      `${header}<tr><td>0</td><td>11</td><td>no</td><td>4</td><td>maybe</td><td>1</td><td>0</td><td>24</td><td>0</td><td>0</td><td>1</td><td>3</td></tr>\n${sum}`,
      0,
      totals(4, [0, 0, 1, 3]),
      ['process table row 1: accepting is "maybe", expected yes or no; row skipped'],
    ],
    [
      'a row with a cell missing',
      `${header}<tr><td>0</td><td>11</td><td>no</td><td>4</td><td>yes</td><td>1</td><td>0</td><td>24</td><td>0</td><td>1</td><td>3</td></tr>\n${sum}`,
      0,
      totals(4, [0, 0, 1, 3]),
      ['process table row 1: has 11 cells, expected 12; row skipped'],
    ],
    [
      'no Sum row (a page cut short)',
      `${header}${good}`,
      1,
      null,
      ['process table has no Sum row; connection totals not reported'],
    ],
    [
      'an unknown sub-column',
      header.replace('<th>closing</th>', '<th>suspended</th>') + good + sum,
      null,
      null,
      [
        'process table sub-column "suspended" belongs to none of Connections, Threads, Async connections; table not reported',
      ],
    ],
  ])('%s', (_name, table, rows, connections, warnings) => {
    // Act
    const report = parseHtml(page(table));
    // Assess
    expect(report.processes?.length ?? null).toBe(rows);
    expect(report.connections).toEqual(connections);
    expect(report.warnings).toEqual(warnings);
  });

  it('leaves every event field null on a prefork page', () => {
    // Act
    const report = parseHtml('<html><head><title>Apache Status</title></head><body><pre>W_..</pre></body></html>');
    // Assess
    expect(report.processes).toBeNull();
    expect(report.connections).toBeNull();
    expect(report.server).toMatchObject({ processes: null, stoppingProcesses: null });
  });
});
