/**
 * Reports crafted to mislead: impossible numbers, slot tables that repeat or overrun the
 * scoreboard, a forced form that is not the input's, huge lines. Each through `parseReport`, the
 * way the monitor and the CLI call it, with exact expected values.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NotAStatusReportError } from '../../../src/core/errors.ts';
import { checkReport, MAX_WARNINGS } from '../../../src/core/report/check.ts';
import { parseReport } from '../../../src/core/report/parse.ts';
import type { ReportFormat } from '../../../src/core/report/types.ts';

const FIXTURES = new URL('../../fixtures/apache-2.4.71/', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, FIXTURES), 'latin1');

/** `text` with `from` replaced by `to`, failing loudly when `from` is not there. */
function edit(text: string, from: string, to: string): string {
  expect(text).toContain(from);
  return text.replace(from, to);
}

/** The slot table's data rows of an HTML page repeated `times` times inside the table. */
function repeatSlotRows(html: string, times: number): string {
  const start = html.indexOf('<tr><td><b>');
  const end = html.indexOf('</table>', start);
  return html.slice(0, start) + html.slice(start, end).repeat(times) + html.slice(end);
}

const INFINITE = '9'.repeat(400); // read as Infinity: no digit limit in the page

describe('parseReport: a --format that is not the input form is rejected in one line', () => {
  it.each([
    [
      'prefork-busy/report.html',
      'text',
      'a text dump of the HTML server-status page (format "text")',
      'the HTML server-status page',
    ],
    ['prefork-busy/report.html', 'auto', 'the ?auto server-status page (format "auto")', 'the HTML server-status page'],
    [
      'prefork-busy/report.auto.txt',
      'html',
      'the HTML server-status page (format "html")',
      'the ?auto server-status page',
    ],
    [
      'prefork-busy/report.lynx.txt',
      'html',
      'the HTML server-status page (format "html")',
      'a text dump of the HTML server-status page',
    ],
    [
      'prefork-busy/report.notable.html',
      'text',
      'a text dump of the HTML server-status page (format "text")',
      'the HTML server-status page',
    ],
  ] as const)('%s forced to %s', (path, format, expected, found) => {
    // Prepare
    const text = read(path);
    // Act
    const act = (): unknown => parseReport(text, { format });
    // Assess
    expect(act).toThrow(NotAStatusReportError);
    try {
      act();
    } catch (error) {
      const e = error as NotAStatusReportError;
      expect(e.expected).toBe(expected);
      expect(e.found.startsWith(`${found}: "`)).toBe(true);
      expect(e.message).not.toContain('\n');
    }
  });

  it.each([
    ['prefork-busy/report.html', 'html'],
    ['prefork-busy/report.auto.txt', 'auto'],
    ['prefork-busy/report.lynx80.txt', 'text'],
  ] as const)('%s forced to its own form %s is read', (path, format) => {
    expect(parseReport(read(path), { format }).format).toBe(format);
  });
});

describe('parseReport: numbers that cannot be true become null with a warning naming the field', () => {
  const auto = read('prefork-busy/report.auto.txt');
  const html = read('prefork-busy/report.html');
  const lynx = read('prefork-busy/report.lynx.txt');

  it.each([
    // name, form, input, field, warning
    [
      '?auto Total Accesses: 1e+999',
      'auto',
      edit(auto, 'Total Accesses: 149680', 'Total Accesses: 1e+999'),
      'totalAccesses',
      'server.totalAccesses is Infinity, expected a finite number >= 0; reported as null',
    ],
    [
      '?auto Total Accesses: -5',
      'auto',
      edit(auto, 'Total Accesses: 149680', 'Total Accesses: -5'),
      'totalAccesses',
      'server.totalAccesses is -5, expected a finite number >= 0; reported as null',
    ],
    [
      '?auto Total Accesses: NaN',
      'auto',
      edit(auto, 'Total Accesses: 149680', 'Total Accesses: NaN'),
      'totalAccesses',
      'Total Accesses: expected a number, found "NaN"',
    ],
    [
      '?auto Total kBytes: -5',
      'auto',
      edit(auto, 'Total kBytes: 4606169', 'Total kBytes: -5'),
      'totalKBytes',
      'server.totalKBytes is -5, expected a finite number >= 0; reported as null',
    ],
    [
      '?auto Total kBytes: 1e+999',
      'auto',
      edit(auto, 'Total kBytes: 4606169', 'Total kBytes: 1e+999'),
      'totalKBytes',
      'server.totalKBytes is Infinity, expected a finite number >= 0; reported as null',
    ],
    [
      '?auto ServerUptimeSeconds: -1',
      'auto',
      edit(auto, 'ServerUptimeSeconds: 4', 'ServerUptimeSeconds: -1'),
      'uptimeSeconds',
      'server.uptimeSeconds is -1, expected a finite number >= 0; reported as null',
    ],
    [
      '?auto BusyWorkers: 1e+999',
      'auto',
      edit(auto, 'BusyWorkers: 29', 'BusyWorkers: 1e+999'),
      'busyWorkers',
      'server.busyWorkers is Infinity, expected a finite number >= 0; reported as null',
    ],
    [
      'HTML Total accesses of 400 digits',
      'html',
      edit(html, 'Total accesses: 149651', `Total accesses: ${INFINITE}`),
      'totalAccesses',
      'server.totalAccesses is Infinity, expected a finite number >= 0; reported as null',
    ],
    [
      'HTML uptime of 400-digit days',
      'html',
      edit(html, 'Server uptime:  4 seconds', `Server uptime:  ${INFINITE} days`),
      'uptimeSeconds',
      'server.uptimeSeconds is Infinity, expected a finite number >= 0; reported as null',
    ],
    [
      'HTML busy workers of 400 digits',
      'html',
      edit(html, '<dt>28 requests currently', `<dt>${INFINITE} requests currently`),
      'busyWorkers',
      'server.busyWorkers is Infinity, expected a finite number >= 0; reported as null',
    ],
    [
      'lynx Total accesses of 400 digits',
      'text',
      edit(lynx, 'Total accesses: 149651', `Total accesses: ${INFINITE}`),
      'totalAccesses',
      'server.totalAccesses is Infinity, expected a finite number >= 0; reported as null',
    ],
    [
      'lynx busy workers of 400 digits',
      'text',
      edit(lynx, '   28 requests currently', `   ${INFINITE} requests currently`),
      'busyWorkers',
      'server.busyWorkers is Infinity, expected a finite number >= 0; reported as null',
    ],
  ] as const)('%s', (_name, format, text, field, warning) => {
    // Act
    const report = parseReport(text);
    // Assess
    expect(report.format).toBe(format);
    expect(report.server[field]).toBeNull();
    expect(report.warnings).toContain(warning);
    expect(JSON.parse(JSON.stringify(report))).toEqual(report); // nothing JSON would turn into null silently
  });

  it.each([
    [
      'a hit counter of 1e+999: the block goes (retrieveHits has no null in the contract)',
      edit(auto, 'CacheRetrieveHitCount: 8', 'CacheRetrieveHitCount: 1e+999'),
      null,
      'sslCache.retrieveHits is Infinity, expected a finite number >= 0; the SSL/TLS session cache block is not reported',
    ],
    [
      'a negative replace count: replaced alone becomes null',
      edit(auto, 'CacheReplaceCount: 0', 'CacheReplaceCount: -3'),
      { replaced: null, retrieveHits: 8 },
      'sslCache.replaced is -3, expected a finite number >= 0; reported as null',
    ],
  ])('?auto SSL/TLS cache with %s', (_name, text, cache, warning) => {
    const report = parseReport(text);
    if (cache === null) expect(report.sslCache).toBeNull();
    else expect(report.sslCache).toMatchObject(cache);
    expect(report.warnings).toContain(warning);
  });

  it('HTML SSL/TLS cache with a hit counter past every float: the block goes', () => {
    const page = edit(
      html,
      'total retrieves since starting: <b>8</b> hit',
      `total retrieves since starting: <b>${INFINITE}</b> hit`,
    );
    const report = parseReport(page);
    expect(report.sslCache).toBeNull();
    expect(report.warnings).toContain(
      'sslCache.retrieveHits is Infinity, expected a finite number >= 0; the SSL/TLS session cache block is not reported',
    );
  });

  it.each([
    [
      'html',
      edit(
        html,
        '<td>0.00</td><td>4</td><td>0</td><td>1</td><td>0.0</td><td>0.01</td><td>0.01',
        '<td>0.00</td><td>1e+999</td><td>0</td><td>1</td><td>0.0</td><td>0.01</td><td>0.01',
      ),
      '1 slot rows have an impossible number (row 3, Srv "2-0": ss is Infinity, expected a finite number >= 0); those rows are skipped',
    ],
    [
      'text',
      edit(lynx, '   0-0  16985 0/118/118      W 0.00 4 ', '   0-0  16985 0/118/118      W 0.00 -4 '),
      '1 slot rows have an impossible number (row 1, Srv "0-0": ss is -4, expected a finite number >= 0); those rows are skipped',
    ],
  ] as const)('%s slot row with an impossible SS is skipped, the others kept', (format, text, warning) => {
    const clean = parseReport(format === 'html' ? html : lynx);
    const report = parseReport(text);
    expect(report.slots).toHaveLength((clean.slots?.length ?? 0) - 1);
    expect(report.warnings).toContain(warning);
  });

  it('HTML slot row with a CPU of 1e+999: CPU becomes null, the row stays', () => {
    const text = edit(
      html,
      '<td>0.36</td><td>0</td><td>0</td><td>2584</td>',
      '<td>1e+999</td><td>0</td><td>0</td><td>2584</td>',
    );
    const report = parseReport(text);
    expect(report.slots?.find((s) => s.srv === '3-0')?.cpu).toBeNull();
    expect(report.warnings).toContain(
      '1 slot values are impossible (row 4, Srv "3-0": cpu is Infinity, expected a finite number >= 0); reported as null',
    );
  });

  it('?notable lynx dump with a negative SS: the entry is skipped', () => {
    const notable = read('prefork-busy/report.notable.lynx.txt');
    const text = edit(
      notable,
      '[Write] u0 s0 cu0 cs0 5 0 0(0 B|359 B|359 B)',
      '[Write] u0 s0 cu0 cs0 -5 0 0(0 B|359 B|359 B)',
    );
    const report = parseReport(text);
    expect(report.slots?.some((s) => s.srv === '4-0')).toBe(false);
    expect(report.warnings).toContain(
      '1 slot rows have an impossible number (row 5, Srv "4-0": ss is -5, expected a finite number >= 0); those rows are skipped',
    );
  });
});

describe('checkReport: the event MPM connection totals and process rows (fields of the contract)', () => {
  it('nulls an impossible connection total and process count, naming each', () => {
    // Prepare: a report as the event-MPM reader makes it, with two impossible numbers
    const report = Object.assign(parseReport(read('event-busy/report.auto.txt')), {
      connections: {
        total: Number.POSITIVE_INFINITY,
        asyncWaitIo: null,
        asyncWriting: 0,
        asyncKeepAlive: 11,
        asyncClosing: 5,
      },
      processes: [{ slot: 0, pid: 18693, connections: -2, busyThreads: 6 }],
    });
    // Act
    checkReport(report);
    // Assess
    expect(report.connections).toEqual({
      total: null,
      asyncWaitIo: null,
      asyncWriting: 0,
      asyncKeepAlive: 11,
      asyncClosing: 5,
    });
    expect(report.processes).toEqual([{ slot: 0, pid: 18693, connections: null, busyThreads: 6 }]);
    expect(report.warnings.slice(-2)).toEqual([
      'connections.total is Infinity, expected a finite number >= 0; reported as null',
      'processes[0].connections is -2, expected a finite number >= 0; reported as null',
    ]);
  });
});

describe('parseReport: a slot table cannot claim more slots than the scoreboard has', () => {
  it('prefork: rows repeated 3,000 times are kept once each, with one warning', () => {
    // Prepare
    const html = read('prefork-busy/report.html');
    const clean = parseReport(html);
    // Act
    const report = parseReport(repeatSlotRows(html, 3000));
    // Assess
    expect(report.slots).toEqual(clean.slots);
    expect(report.warnings).toEqual([
      'slot 17-0: column M is "W" but scoreboard position 17 is "K"',
      `98967 slot rows repeat a scoreboard position (Srv) already printed (row 34, Srv "0-0"; row 35, Srv "1-0"; row 36, Srv "2-0", and 98964 more); the first printing of each slot is kept`,
      '2999 repeated warnings not shown again',
    ]);
  });

  it('event (Srv shared by threads): rows repeated 3,000 times stop at the 150 positions', () => {
    const html = read('event-busy/report.html');
    const report = parseReport(repeatSlotRows(html, 3000));
    expect(report.scoreboard).toHaveLength(150);
    expect(report.slots).toHaveLength(150);
    const busy = report.slots?.filter((s) => 'SRWKDCLI'.includes(s.mode)).length ?? 0;
    expect(busy).toBeLessThanOrEqual(150);
    expect(report.warnings.at(-1)).toMatch(/^224850 slot rows lie beyond the scoreboard's 150 positions \(row 151, /);
  });

  it('prefork: a row for position 300 of a 256-position scoreboard is dropped with a warning', () => {
    const html = read('prefork-busy/report.html');
    const text = edit(html, '<tr><td><b>1-0</b>', '<tr><td><b>300-0</b>');
    const report = parseReport(text);
    expect(report.slots?.some((s) => s.srv === '300-0')).toBe(false);
    expect(report.warnings).toContain(
      `1 slot rows lie beyond the scoreboard's 256 positions (row 2, Srv "300-0"); dropped, so the table counts no more slots than the scoreboard has`,
    );
  });

  it('?notable: an entry printed twice is kept once', () => {
    const notable = read('prefork-busy/report.notable.html');
    const entry = notable.slice(notable.indexOf('<b>Server 4-0</b>'), notable.indexOf('<b>Server 5-0</b>'));
    const report = parseReport(edit(notable, '<b>Server 5-0</b>', `${entry}<b>Server 5-0</b>`));
    expect(report.slots?.filter((s) => s.srv === '4-0')).toHaveLength(1);
    expect(report.warnings).toContain(
      '1 slot rows repeat a scoreboard position (Srv) already printed (row 6, Srv "4-0"); the first printing of each slot is kept',
    );
  });
});

describe('parseReport: warnings are capped', () => {
  it(`keeps ${MAX_WARNINGS} warnings, the last counting the others`, () => {
    const auto = read('prefork-busy/report.auto.txt');
    const junk = Array.from({ length: 500 }, (_, i) => `junk line ${i}`).join('\n');
    const report = parseReport(`${auto}\n${junk}\n`);
    expect(report.warnings).toHaveLength(MAX_WARNINGS);
    expect(report.warnings.at(-1)).toBe('401 more warnings not shown');
  });
});

describe('parseReport: a 20 MB scoreboard in every form, no stack overflow', () => {
  const SIZE = 20 * 1024 * 1024;
  const board = 'W'.repeat(SIZE / 2) + '_'.repeat(SIZE / 2);
  const cases: Array<[ReportFormat, string]> = [
    ['auto', `Total Accesses: 1\nBusyWorkers: 1\nIdleWorkers: 1\nScoreboard: ${board}\n`],
    [
      'html',
      `<html><head><title>Apache Status</title></head><body><dl><dt>Server MPM: prefork</dt></dl><pre>${board}</pre></body></html>`,
    ],
    ['text', `Apache Server Status for localhost\n\n${board}\n\nScoreboard Key:\n`],
  ];
  it.each(cases)('%s', { timeout: 120_000 }, (format, text) => {
    const report = parseReport(text);
    expect(report.format).toBe(format);
    expect(report.counts.W).toBe(SIZE / 2);
    expect(report.counts._).toBe(SIZE / 2);
  });

  it('a text dump whose wrapped slot-table header line holds a million column names', { timeout: 60_000 }, () => {
    const lynx = read('prefork-busy/report.lynx80.txt');
    const text = edit(lynx, '\n   Request\n', `\n   ${'Request '.repeat(1_000_000)}\n`);
    const report = parseReport(text);
    expect(report.format).toBe('text');
    expect(report.warnings.length).toBeLessThanOrEqual(MAX_WARNINGS);
  });

  it('a scoreboard of 40,000 distinct unknown characters (CJK, no whitespace among them) gives one short warning', () => {
    const chars = Array.from({ length: 40_000 }, (_, i) => String.fromCharCode(0x4e00 + i)).join('');
    const report = parseReport(`Scoreboard: ${chars}\n`);
    expect(report.warnings).toHaveLength(1);
    expect(report.warnings[0]).toMatch(/^scoreboard has characters outside the 11 modes: ".{32}" and 39968 more$/u);
  });
});
