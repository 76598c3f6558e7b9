import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NotAStatusReportError } from '../../../src/core/errors.ts';
import { parseText } from '../../../src/core/report/text.ts';
import type { LegendEntry } from '../../../src/core/report/types.ts';

const FIXTURES = new URL('../../fixtures/', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, FIXTURES), 'utf8');
const expected = (path: string) => JSON.parse(read(`${path}.expected.json`));

const SLOT_17_WARNING = 'slot 17-0: column M is "W" but scoreboard position 17 is "K"';

const LEGEND_2_2: LegendEntry[] = [
  { abbreviation: 'Srv', meaning: 'Child Server number - generation' },
  { abbreviation: 'PID', meaning: 'OS process ID' },
  { abbreviation: 'Acc', meaning: 'Number of accesses this connection / this child / this slot' },
  { abbreviation: 'M', meaning: 'Mode of operation' },
  { abbreviation: 'CPU', meaning: 'CPU usage, number of seconds' },
  { abbreviation: 'SS', meaning: 'Seconds since beginning of most recent request' },
  { abbreviation: 'Req', meaning: 'Milliseconds required to process most recent request' },
  { abbreviation: 'Conn', meaning: 'Kilobytes transferred this connection' },
  { abbreviation: 'Child', meaning: 'Megabytes transferred this child' },
  { abbreviation: 'Slot', meaning: 'Total megabytes transferred this slot' },
];
const LEGEND_2_4_71: LegendEntry[] = [
  ...LEGEND_2_2.slice(0, 7),
  { abbreviation: 'Dur', meaning: 'Sum of milliseconds required to process all requests' },
  ...LEGEND_2_2.slice(7),
];

describe('parseText on the real 2.4.71 lynx dumps', () => {
  it.each([
    // file, legend, warnings
    ['prefork-idle/report.lynx.txt', LEGEND_2_4_71, []],
    ['prefork-idle/report.lynx80.txt', LEGEND_2_4_71, []],
    ['prefork-busy/report.lynx.txt', LEGEND_2_4_71, [SLOT_17_WARNING]],
    ['prefork-busy/report.lynx80.txt', LEGEND_2_4_71, [SLOT_17_WARNING]],
    ['prefork-busy/report.refresh5.lynx.txt', LEGEND_2_4_71, []],
    ['prefork-busy/report.refresh5.lynx80.txt', LEGEND_2_4_71, []],
    ['event-busy/report.lynx.txt', LEGEND_2_4_71, []],
    ['event-busy/report.lynx80.txt', LEGEND_2_4_71, []],
    ['event-busy/report.late.lynx.txt', LEGEND_2_4_71, []],
    ['event-busy/report.late.lynx80.txt', LEGEND_2_4_71, []],
    ['noextended/report.lynx.txt', null, []],
    ['noextended/report.lynx80.txt', null, []],
  ])('%s equals its reference parse', (path, legendExpected, warnings) => {
    // Prepare
    const { legend: _none, warnings: _empty, ...reference } = expected(`apache-2.4.71/${path}`);
    // Act
    const { legend, warnings: found, ...report } = parseText(read(`apache-2.4.71/${path}`));
    // Assess
    expect(report).toEqual(reference);
    expect(legend).toEqual(legendExpected);
    expect(found).toEqual(warnings);
  });

  it.each([
    'prefork-idle/report',
    'prefork-busy/report',
    'prefork-busy/report.refresh5',
    'event-busy/report',
    'event-busy/report.late',
  ])('%s: lynx at 80 and at 200 columns carry what the HTML carries', (moment) => {
    // Prepare
    const html = expected(`apache-2.4.71/${moment}.html`);
    // Act
    const narrow = parseText(read(`apache-2.4.71/${moment}.lynx80.txt`));
    const wide = parseText(read(`apache-2.4.71/${moment}.lynx.txt`));
    // Assess
    for (const report of [narrow, wide]) {
      expect(report.scoreboard).toBe(html.scoreboard);
      expect(report.server).toEqual(html.server);
      expect(report.slots).toEqual(html.slots);
      expect(report.sslCache).toEqual(html.sslCache);
    }
  });

  it('reads CRLF line ends as it reads LF ones', () => {
    // Prepare
    const text = read('apache-2.4.71/prefork-busy/report.lynx80.txt');
    // Act
    const report = parseText(text.replace(/\n/g, '\r\n'));
    // Assess
    expect(report).toEqual(parseText(text));
  });
});

describe('parseText on the ?notable lynx dumps (no reference parse: values read by hand)', () => {
  it.each(['report.notable.lynx.txt', 'report.notable.lynx80.txt'])('%s', (file) => {
    // Act
    const report = parseText(read(`apache-2.4.71/prefork-busy/${file}`));
    // Assess
    expect(report.scoreboard).toBe(`WKWKW_CWCKKWWRW_WWWRKCKWWW_R__WKK${'.'.repeat(223)}`);
    expect(report.counts).toEqual({ _: 5, S: 0, R: 3, W: 14, K: 8, D: 0, C: 3, L: 0, G: 0, I: 0, '.': 223 });
    expect(report.server).toEqual({
      version: 'Apache/2.4.71 (Debian) OpenSSL/3.0.19',
      mpm: 'prefork',
      currentTime: 'Sunday, 22-Nov-2026 11:56:08 UTC',
      restartTime: 'Sunday, 22-Nov-2026 11:56:02 UTC',
      uptimeSeconds: 5,
      totalAccesses: 186753,
      totalKBytes: 5767168, // 5.5 GB
      busyWorkers: 28,
      idleWorkers: 5,
      gracefulWorkers: 0,
      processes: null,
      stoppingProcesses: null,
    });
    expect(report.slots?.map((s) => s.srv)).toEqual(Array.from({ length: 33 }, (_, n) => `${n}-0`));
    expect(report.legend).toBeNull();
    // "Server 1-0 (16986): 1|8|8 [Keepalive] u0 s0 cu0 cs0 5 0 0(410 B|3069 B|3069 B) 127.0.0.1
    //  {GET /css/site.css?keepalive=1 HTTP/1.1} (http/1.1) [static.example.test:18120]"
    expect(report.slots?.[1]).toEqual({
      srv: '1-0',
      pid: 16986,
      acc: [1, 8, 8],
      mode: 'K',
      cpu: 0,
      ss: 5,
      reqMs: 0,
      durMs: 0,
      connKB: 410 / 1024,
      childMB: 3069 / 1024 ** 2,
      slotMB: 3069 / 1024 ** 2,
      client: '127.0.0.1',
      protocol: 'http/1.1',
      vhost: 'static.example.test:18120',
      request: 'GET /css/site.css?keepalive=1 HTTP/1.1',
      requestTruncated: false,
    });
    // "Server 32-0 (17142): 46|11459|11459 [Keepalive] u.08 s.3 cu0 cs0 0 0 2694(0.9 MB|340.3 MB|340.3 MB)
    //  127.0.0.1 {GET /page20k.html HTTP/1.1} (http/1.1) [www.example.test:18120]"
    expect(report.slots?.[32]).toEqual({
      srv: '32-0',
      pid: 17142,
      acc: [46, 11459, 11459],
      mode: 'K',
      cpu: 0.38,
      ss: 0,
      reqMs: 0,
      durMs: 2694,
      connKB: 0.9 * 1024,
      childMB: 340.3,
      slotMB: 340.3,
      client: '127.0.0.1',
      protocol: 'http/1.1',
      vhost: 'www.example.test:18120',
      request: 'GET /page20k.html HTTP/1.1',
      requestTruncated: false,
    });
    // "Server 3-0 (16988): 65|13701|13701 [Keepalive] u.1 s.36 cu0 cs0 0 0 2994(1.3 MB|431.9 MB|431.9 MB)"
    expect(report.slots?.[3]).toMatchObject({ cpu: 0.46, durMs: 2994, connKB: 1.3 * 1024, childMB: 431.9 });
    expect(report.sslCache).toMatchObject({ type: 'SHMCB', currentEntries: 14, stored: 14, retrieveHits: 8 });
    expect(report.warnings).toEqual([
      'slot 23-0: column M is "K" but scoreboard position 23 is "W"',
      'slot 31-0: column M is "W" but scoreboard position 31 is "K"',
    ]);
  });

  it.each([
    {
      file: 'report.notable.lynx.txt',
      what: 'two access counts',
      from: '65|13701|13701',
      to: '65|13701',
      entry: 'Server 3-0 (16988): 65|13701 [Keepalive] u.1 s.36 cu0 cs0 0 0 2994(1.3 MB|431.9 ',
    },
    {
      file: 'report.notable.lynx80.txt',
      what: 'two access counts',
      from: '65|13701|13701',
      to: '65|13701',
      entry: 'Server 3-0 (16988): 65|13701 [Keepalive] u.1 s.36 cu0 cs0 0 0 2994(1.3 MB|431.9 ',
    },
    {
      file: 'report.notable.lynx.txt',
      what: 'a PID that is not a number',
      from: '(16988)',
      to: '(pid?)',
      entry: 'Server 3-0 (pid?): 65|13701|13701 [Keepalive] u.1 s.36 cu0 cs0 0 0 2994(1.3 MB|4',
    },
  ])('$file: skips an entry with $what', ({ file, from, to, entry }) => {
    // Prepare
    const text = read(`apache-2.4.71/prefork-busy/${file}`);
    const mangled = text.replace(from, to);
    // Act
    const report = parseText(mangled);
    // Assess
    expect(mangled).not.toBe(text);
    expect(report.slots).toEqual(parseText(text).slots?.filter((s) => s.srv !== '3-0'));
    expect(report.warnings[0]).toBe(`Server Details entry 4 (${JSON.stringify(entry)}) could not be read; skipped`);
  });
});

describe('parseText finds the scoreboard', () => {
  it('takes the scoreboard before the key, not a rule of underscores drawn at column 0', () => {
    // Prepare
    const text = read('apache-2.4.71/prefork-idle/report.lynx80.txt');
    const ruled = text.replace(/^ {5}(_{66})$/m, '$1');
    // Act
    const report = parseText(ruled);
    // Assess
    expect(ruled).not.toBe(text);
    expect(report).toEqual(parseText(text));
  });

  it('reads an `apachectl status` dump, which stops after the key', () => {
    // Prepare
    const full = read('apache-2.4.71/prefork-busy/report.lynx80.txt');
    const cut = full.slice(0, full.indexOf('process\n') + 'process\n'.length);
    // Act
    const report = parseText(cut);
    // Assess
    expect(report.scoreboard).toBe(parseText(full).scoreboard);
    expect(report.server).toEqual(parseText(full).server);
    expect([report.slots, report.legend, report.sslCache, report.warnings]).toEqual([null, null, null, []]);
  });
});

describe('parseText on bad input', () => {
  const good = read('apache-2.4.71/prefork-busy/report.lynx80.txt');

  it.each([
    ['empty input', ''],
    ['a dump cut before the scoreboard', good.slice(0, good.indexOf('WKW_W_'))],
    ['a plain sentence', 'Service Unavailable\n'],
    [
      'a 404 page as lynx prints it',
      '                                   Not Found\n\n   The requested URL was not found on this server.\n',
    ],
  ])('rejects %s', (_name, text) => {
    expect(() => parseText(text)).toThrow(NotAStatusReportError);
    expect(() => parseText(text)).toThrow(/^expected a text dump of an Apache server-status page .*, found /);
  });

  it.each([
    // name, file, what to change, into what, the warning
    [
      'a number that is a word (200 columns)',
      'report.lynx.txt',
      / 0\.36 0 {2}0 /,
      ' zero 0  0 ',
      'slot table row at line 34 (Srv "3-0"): CPU is "zero", expected a number; row skipped',
    ],
    [
      'a number that is a word (80 columns)',
      'report.lynx80.txt',
      / 0\.36 0 0 2584 /,
      ' 0.36 0 0 25x4 ',
      'slot table row at line 41 (Srv "3-0"): Dur is "25x4", expected a number; row skipped',
    ],
    [
      'a lost cell',
      'report.lynx80.txt',
      / _ 0\.36 0 0 2584 /,
      ' _ 0 0 2584 ',
      'slot table row at line 41 (Srv "3-0"): Slot is "127.0.0.1", expected a number; row skipped',
    ],
    [
      'a mode of two characters',
      'report.lynx80.txt',
      / _ 0\.36 /,
      ' __ 0.36 ',
      'slot table row at line 41 (Srv "3-0"): M is "__", expected one mode character; row skipped',
    ],
  ])('skips a row with %s, says which, and keeps the others', (_name, file, mangle, replacement, warning) => {
    // Prepare
    const text = read(`apache-2.4.71/prefork-busy/${file}`);
    const mangled = text.replace(mangle, replacement);
    // Act
    const report = parseText(mangled);
    // Assess
    expect(mangled).not.toBe(text);
    expect(report.slots).toEqual(parseText(text).slots?.filter((s) => s.srv !== '3-0'));
    expect(report.warnings).toEqual([warning, SLOT_17_WARNING]);
  });
});
