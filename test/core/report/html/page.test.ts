import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NotAStatusReportError } from '../../../../src/core/errors.ts';
import { parseHtml } from '../../../../src/core/report/html/page.ts';
import type { Slot, SslCache, StatusReport } from '../../../../src/core/report/types.ts';

const FIXTURES = new URL('../../../fixtures/', import.meta.url);
const fixture = (path: string): string => readFileSync(new URL(path, FIXTURES), 'latin1');

/** The report without the two keys the reference parser's `*.expected.json` files lack or leave empty. */
function withoutLegendAndWarnings(report: StatusReport): Omit<StatusReport, 'legend' | 'warnings'> {
  const { legend: _legend, warnings: _warnings, ...rest } = report;
  return rest;
}

function slot(fields: Partial<Slot>): Slot {
  return {
    srv: '0-0',
    pid: null,
    acc: [0, 0, 0],
    mode: '_',
    cpu: null,
    ss: 0,
    reqMs: 0,
    durMs: null,
    connKB: 0,
    childMB: 0,
    slotMB: 0,
    client: '',
    protocol: null,
    vhost: '',
    request: '',
    requestTruncated: false,
    ...fields,
  };
}

const LEGEND_2_4_71 = [
  { abbreviation: 'Srv', meaning: 'Child Server number - generation' },
  { abbreviation: 'PID', meaning: 'OS process ID' },
  { abbreviation: 'Acc', meaning: 'Number of accesses this connection / this child / this slot' },
  { abbreviation: 'M', meaning: 'Mode of operation' },
  { abbreviation: 'CPU', meaning: 'CPU usage, number of seconds' },
  { abbreviation: 'SS', meaning: 'Seconds since beginning of most recent request' },
  { abbreviation: 'Req', meaning: 'Milliseconds required to process most recent request' },
  { abbreviation: 'Dur', meaning: 'Sum of milliseconds required to process all requests' },
  { abbreviation: 'Conn', meaning: 'Kilobytes transferred this connection' },
  { abbreviation: 'Child', meaning: 'Megabytes transferred this child' },
  { abbreviation: 'Slot', meaning: 'Total megabytes transferred this slot' },
];

describe('parseHtml: Apache 2.4.71 captures against the reference parse', () => {
  // [file, legend length (null = no legend table), warnings]
  const cases: Array<[string, number | null, string[]]> = [
    ['event-busy/report.html', 11, []],
    ['event-busy/report.late.html', 11, []],
    ['noextended/report.html', null, []],
    ['prefork-busy/report.html', 11, ['slot 17-0: column M is "W" but scoreboard position 17 is "K"']],
    ['prefork-busy/report.refresh5.html', 11, []],
    ['prefork-idle/report.html', 11, []],
  ];

  it('covers every HTML capture that has an expected parse', () => {
    const withExpected = readdirSync(new URL('apache-2.4.71/', FIXTURES), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.html.expected.json'))
      .map((f) => f.replace(/\.expected\.json$/, ''))
      .sort();
    expect(withExpected).toEqual(cases.map(([file]) => file));
  });

  it.each(cases)('%s', (file, legendLength, warnings) => {
    const expected = JSON.parse(fixture(`apache-2.4.71/${file}.expected.json`)) as StatusReport;
    const report = parseHtml(fixture(`apache-2.4.71/${file}`));
    expect(withoutLegendAndWarnings(report)).toEqual(withoutLegendAndWarnings(expected));
    expect(report.legend?.length ?? null).toBe(legendLength);
    expect(report.warnings).toEqual(warnings);
  });

  it('reads the legend table after the slot table', () => {
    expect(parseHtml(fixture('apache-2.4.71/prefork-busy/report.html')).legend).toEqual(LEGEND_2_4_71);
  });
});

describe('parseHtml: ?notable page (Server Details list)', () => {
  const report = parseHtml(fixture('apache-2.4.71/prefork-busy/report.notable.html'));

  it('reads the header, scoreboard and SSL block like the full page', () => {
    expect(report.server.totalAccesses).toBe(186753);
    expect(report.server.totalKBytes).toBe(5767168); // 5.5 GB
    expect(report.scoreboard).toBe(`WKWKW_CWCKKWWRW_WWWRKCKWWW_R__WKK${'.'.repeat(223)}`);
    expect(report.counts).toEqual({ _: 5, S: 0, R: 3, W: 14, K: 8, D: 0, C: 3, L: 0, G: 0, I: 0, '.': 223 });
    expect(report.legend).toBeNull();
    expect(report.sslCache?.retrieveHits).toBe(8);
    expect(report.slots?.length).toBe(33);
    expect(report.warnings).toEqual([
      'slot 23-0: column M is "K" but scoreboard position 23 is "W"',
      'slot 31-0: column M is "W" but scoreboard position 31 is "K"',
    ]);
  });

  const common = { client: '127.0.0.1', protocol: 'http/1.1' };
  it.each<[number, Slot]>([
    [
      0, // 0|118|118 [<b>Write</b>] u0 s0 cu0 cs0 / 5 0 6(0 B|6.3 MB|6.3 MB)
      slot({
        ...common,
        srv: '0-0',
        pid: 16985,
        acc: [0, 118, 118],
        mode: 'W',
        cpu: 0,
        ss: 5,
        reqMs: 0,
        durMs: 6,
        connKB: 0,
        childMB: 6.3,
        slotMB: 6.3,
        vhost: 'api.example.test:18120',
        request: 'GET /cgi-bin/sleep.cgi?12 HTTP/1.1',
      }),
    ],
    [
      1, // 1|8|8 [<b>Keepalive</b>] / 5 0 0(410 B|3069 B|3069 B)
      slot({
        ...common,
        srv: '1-0',
        pid: 16986,
        acc: [1, 8, 8],
        mode: 'K',
        cpu: 0,
        ss: 5,
        durMs: 0,
        connKB: 410 / 1024,
        childMB: 3069 / 1024 ** 2,
        slotMB: 3069 / 1024 ** 2,
        vhost: 'static.example.test:18120',
        request: 'GET /css/site.css?keepalive=1 HTTP/1.1',
      }),
    ],
    [
      3, // 65|13701|13701 [<b>Keepalive</b>] u.1 s.36 cu0 cs0 / 0 0 2994(1.3 MB|431.9 MB|431.9 MB)
      slot({
        ...common,
        srv: '3-0',
        pid: 16988,
        acc: [65, 13701, 13701],
        mode: 'K',
        cpu: 0.46,
        durMs: 2994,
        connKB: 1331.2,
        childMB: 431.9,
        slotMB: 431.9,
        vhost: 'www.example.test:18120',
        request: 'GET /page20k.html HTTP/1.1',
      }),
    ],
    [
      13, // 0|3|3 [<b>Read</b>] / 5 0 0(0 B|1146 B|1146 B) / {} [] : nothing read yet
      slot({
        ...common,
        srv: '13-0',
        pid: 16998,
        acc: [0, 3, 3],
        mode: 'R',
        cpu: 0,
        ss: 5,
        durMs: 0,
        childMB: 1146 / 1024 ** 2,
        slotMB: 1146 / 1024 ** 2,
      }),
    ],
    [
      30, // 18|13257|13257 [<b>Write</b>] u.1 s.34 / 0 0 3259(356.9 kB|405.7 MB|405.7 MB)
      slot({
        ...common,
        srv: '30-0',
        pid: 17015,
        acc: [18, 13257, 13257],
        mode: 'W',
        cpu: 0.44,
        durMs: 3259,
        connKB: 356.9,
        childMB: 405.7,
        slotMB: 405.7,
        vhost: 'www.example.test:18120',
        request: 'GET /page20k.html HTTP/1.1',
      }),
    ],
  ])('entry %i', (index, expected) => {
    expect(report.slots?.[index]).toEqual(expected);
  });
});

const SSL_2_4_ZERO: SslCache = {
  type: 'SHMCB',
  sharedMemoryBytes: 512000,
  currentEntries: 0,
  subcaches: 32,
  indexesPerSubcache: 88,
  indexUsagePercent: 0,
  cacheUsagePercent: 0,
  stored: 0,
  replaced: 0,
  expired: 0,
  discarded: 0,
  retrieveHits: 0,
  retrieveMisses: 0,
  removeHits: 0,
  removeMisses: 0,
};

describe('parseHtml: public captures', () => {
  // Values read off each file: scoreboard length and counts, rows, legend rows, header, SSL block.
  it.each<[string, Partial<StatusReport> & { slotCount: number | null; legendLength: number | null }]>([
    [
      'html-2.2.9-worker-exton-ssl-browsersaved.html',
      {
        server: {
          version: 'Apache/2.2.9 (Debian) mod_ssl/2.2.9 OpenSSL/0.9.8g',
          mpm: null,
          currentTime: 'Tuesday, 11-Nov-2008 14:05:49 CET',
          restartTime: 'Tuesday, 11-Nov-2008 08:45:45 CET',
          uptimeSeconds: 5 * 3600 + 20 * 60 + 4,
          totalAccesses: 522647,
          totalKBytes: 28365, // 27.7 MB
          busyWorkers: 3,
          idleWorkers: 49,
          gracefulWorkers: null,
          processes: null,
          stoppingProcesses: null,
        },
        counts: { _: 49, S: 2, R: 3, W: 1, K: 4, D: 5, C: 6, L: 7, G: 8, I: 9, '.': 930 },
        slotCount: 150,
        legendLength: 10,
        // 2.2.0-2.2.9 wording ("sessions", "sub-caches") and no "replaced" line.
        sslCache: { ...SSL_2_4_ZERO, indexesPerSubcache: 133, replaced: null },
        warnings: [],
      },
    ],
    [
      'html-2.4.52-prefork-exton.html',
      {
        server: {
          version: 'Apache/2.4.52 (Ubuntu)',
          mpm: 'prefork',
          currentTime: 'Sunday, 27-Aug-2023 02:24:04 UTC',
          restartTime: 'Tuesday, 22-Aug-2023 13:47:28 UTC',
          uptimeSeconds: 4 * 86400 + 12 * 3600 + 36 * 60 + 35,
          totalAccesses: 47179,
          totalKBytes: 1258291, // 1.2 GB, give or take 0.05 GB
          busyWorkers: 1,
          idleWorkers: 9,
          gracefulWorkers: null,
          processes: null,
          stoppingProcesses: null,
        },
        counts: { _: 9, S: 0, R: 0, W: 1, K: 0, D: 0, C: 0, L: 0, G: 0, I: 0, '.': 140 },
        slotCount: 73,
        legendLength: 11,
        sslCache: null,
        warnings: [],
      },
    ],
    [
      'html-2.4.x-win-exton-ssl-edited-version-string.html',
      {
        server: {
          version: 'Apache/2.2.9 (Ubuntu) PHP/5.2.6-2ubuntu4.6 with Suhosin-Patch mod_perl/2.0.4 Perl/v5.10.0',
          mpm: null,
          currentTime: 'Monday, 22-Mar-2022 16:45:44 EET',
          restartTime: 'Monday, 22-Mar-2022 16:40:18 EET',
          uptimeSeconds: 10 * 3600 + 32 * 60 + 23,
          totalAccesses: 254,
          totalKBytes: 32768, // 32.0 MB
          busyWorkers: 1,
          idleWorkers: 149,
          gracefulWorkers: null,
          processes: null,
          stoppingProcesses: null,
        },
        counts: { _: 149, S: 0, R: 0, W: 1, K: 0, D: 0, C: 0, L: 0, G: 0, I: 0, '.': 0 },
        slotCount: 7,
        legendLength: 10,
        sslCache: SSL_2_4_ZERO,
        warnings: [],
      },
    ],
    [
      'html-notable-2.4.10-prefork-anonymized.html',
      {
        server: {
          version: 'Apache/2.4.10 (Debian)',
          mpm: 'prefork',
          currentTime: 'Monday, 30-Jan-2017 20:22:47 CET',
          restartTime: 'Monday, 30-Jan-2017 15:12:12 CET',
          uptimeSeconds: 5 * 3600 + 10 * 60 + 35,
          totalAccesses: 5279,
          totalKBytes: 30310, // 29.6 MB
          busyWorkers: 10,
          idleWorkers: 4,
          gracefulWorkers: null,
          processes: null,
          stoppingProcesses: null,
        },
        counts: { _: 4, S: 0, R: 0, W: 9, K: 1, D: 0, C: 0, L: 0, G: 0, I: 0, '.': 136 },
        slotCount: 20,
        legendLength: null,
        sslCache: null,
        warnings: [],
      },
    ],
  ])('%s', (file, expected) => {
    const report = parseHtml(fixture(`public/${file}`));
    const { slotCount, legendLength, ...fields } = expected;
    expect(report.format).toBe('html');
    expect(report.scoreboard.length).toBe(Object.values(expected.counts ?? {}).reduce((a, b) => a + b, 0));
    expect(report).toMatchObject(fields);
    expect(report.slots?.length ?? null).toBe(slotCount);
    expect(report.legend?.length ?? null).toBe(legendLength);
  });

  it.each<[string, number, Slot]>([
    [
      'html-2.2.9-worker-exton-ssl-browsersaved.html', // 13 columns, nowrap="nowrap", <tbody>
      0,
      slot({
        srv: '0-3',
        pid: 9229,
        acc: [0, 7, 7485],
        mode: '_',
        cpu: 0,
        ss: 10196,
        reqMs: 1,
        connKB: 0,
        childMB: 0.24,
        slotMB: 0.57,
        client: '127.0.0.1',
        vhost: 'ant.local',
        request: 'GET /server-status HTTP/1.1',
      }),
    ],
    [
      'html-2.2.9-worker-exton-ssl-browsersaved.html',
      149,
      slot({
        srv: '5-3',
        pid: null,
        acc: [0, 0, 784],
        mode: '.',
        cpu: 0.15,
        ss: 10238,
        slotMB: 0.03,
        client: '127.0.0.1',
        vhost: 'ant.local',
        request: 'GET / HTTP/1.0',
      }),
    ],
    [
      'html-2.4.52-prefork-exton.html',
      72,
      slot({
        srv: '72-3',
        acc: [0, 0, 52],
        mode: '.',
        cpu: 0,
        ss: 65174,
        durMs: 56583,
        slotMB: 2.21,
        client: '::1',
        protocol: 'http/1.1',
        vhost: 'server1.bitescrow.online:8088',
        request: 'OPTIONS * HTTP/1.0',
      }),
    ],
    [
      'html-2.4.x-win-exton-ssl-edited-version-string.html', // no CPU column
      4,
      slot({
        srv: '0-0',
        pid: 10776,
        acc: [0, 30, 30],
        mode: 'W',
        durMs: 397,
        childMB: 8.54,
        slotMB: 8.54,
        client: '127.0.0.1',
        protocol: 'http/1.1',
        vhost: 'localhost:80',
        request: 'GET /server-status HTTP/1.1',
      }),
    ],
    [
      'html-2.4.x-win-exton-ssl-edited-version-string.html', // empty VHost and Request cells
      6,
      slot({
        srv: '0-0',
        pid: 10776,
        acc: [0, 57, 57],
        ss: 1264,
        reqMs: 6,
        durMs: 605,
        childMB: 4.83,
        slotMB: 4.83,
        client: '127.0.0.1',
        protocol: 'http/1.1',
      }),
    ],
    [
      'html-notable-2.4.10-prefork-anonymized.html', // before 2.4.19/2.4.35: no protocol, no Dur; raw "&"
      9,
      slot({
        srv: '9-0',
        pid: 23019,
        acc: [2, 21, 374],
        mode: 'K',
        cpu: 57.09,
        reqMs: 1794,
        connKB: 66.8,
        childMB: 134.7 / 1024,
        slotMB: 496.7 / 1024,
        client: '123.45.67.121',
        vhost: 'first.example.host.o',
        request: 'GET /bad.php?some=old&and=very&long=get&string=with',
        requestTruncated: true,
      }),
    ],
    [
      'html-notable-2.4.10-prefork-anonymized.html', // a dead slot: "(-)" and [Dead]
      12,
      slot({
        srv: '12-0',
        acc: [0, 0, 120],
        mode: '.',
        cpu: 0,
        ss: 111,
        slotMB: 1.4,
        client: '::1',
        vhost: 'example.host.org:80',
        request: 'OPTIONS * HTTP/1.0',
      }),
    ],
  ])('%s row %i', (file, index, expected) => {
    expect(parseHtml(fixture(`public/${file}`)).slots?.[index]).toEqual(expected);
  });
});

describe('parseHtml: input that is not a status report', () => {
  const expectedScoreboard = 'an Apache server-status HTML page with a scoreboard of mode characters in a <pre> block';
  const truncated = fixture('apache-2.4.71/prefork-busy/report.html').slice(0, 1200); // inside the <pre>
  it.each<[string, string, string, string]>([
    [
      'a 404 page',
      fixture('public/http404-2.4.62-status-not-configured.html'),
      expectedScoreboard,
      '"<!DOCTYPE HTML PUBLIC \\"-//IETF//DTD HTML 2.0//EN\\">\\n<html><he"... (196 characters)',
    ],
    ['an empty body', '', expectedScoreboard, 'an empty body'],
    [
      'a code block, not a scoreboard',
      '<html><pre>Error: 42</pre></html>',
      expectedScoreboard,
      '"<html><pre>Error: 42</pre></html>" (33 characters)',
    ],
    [
      'a page cut before </pre>',
      truncated,
      'an Apache server-status HTML page whose scoreboard <pre> block is closed by </pre>',
      '"<!DOCTYPE HTML PUBLIC \\"-//W3C//DTD HTML 4.01//EN\\" \\"http://ww"... (1200 characters)',
    ],
  ])('%s', (_name, text, expected, found) => {
    const error = (() => {
      try {
        parseHtml(text);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(NotAStatusReportError);
    expect(error).toMatchObject({
      name: 'NotAStatusReportError',
      expected,
      found,
      message: `expected ${expected}, found ${found}`,
    });
  });
});

describe('parseHtml: tolerance and warnings', () => {
  const HEAD = '<html><head><title>Apache Status</title></head><body>\n<dl><dt>Server MPM: prefork</dt>\n</dl>';
  const HEADER_CELLS = ['Srv', 'PID', 'Acc', 'M', 'CPU\n', 'SS', 'Req', 'Dur', 'Conn', 'Child', 'Slot', 'Client'];
  const HEADER = `<table border="0"><tr>${[...HEADER_CELLS, 'Protocol', 'VHost', 'Request'].map((h) => `<th>${h}</th>`).join('')}</tr>\n\n`;
  const CELLS =
    '<td><b>0-0</b></td><td>101</td><td>0/5/9</td><td><b>W</b>\n</td><td>.5</td><td>2</td><td>3</td><td>4</td><td>0.5</td><td>1.25</td><td>2.50\n</td><td>10.0.0.1</td><td>http/1.1</td>';
  const TAIL = '<td nowrap>a.test:80</td><td nowrap>GET /?a=1&amp;b=2 HTTP/1.1</td>';
  const ROW = `<tr>${CELLS}${TAIL}</tr>\n\n`;
  const SLOT = slot({
    srv: '0-0',
    pid: 101,
    acc: [0, 5, 9],
    mode: 'W',
    cpu: 0.5,
    ss: 2,
    reqMs: 3,
    durMs: 4,
    connKB: 0.5,
    childMB: 1.25,
    slotMB: 2.5,
    client: '10.0.0.1',
    protocol: 'http/1.1',
    vhost: 'a.test:80',
    request: 'GET /?a=1&b=2 HTTP/1.1',
  });
  const page = (pre: string, table: string): string => `${HEAD}<pre>${pre}</pre>\n${table}`;
  const upper = (html: string): string =>
    html.replace(/<(\/?)([a-z]+)/g, (_, slash: string, name: string) => `<${slash}${name.toUpperCase()}`);

  it.each<[string, string, Slot[] | null, string[]]>([
    ['the plain table', page('W_', `${HEADER}${ROW}</table>`), [SLOT], []],
    [
      'a browser-saved copy: upper-case tags, <tbody>, quoted attributes, comments, <meta>, <script>',
      `<!--[if IE]><p>old</p><![endif]--><META charset="x"><script>var p = "<pre>"; if (1<2) {}</script>${upper(page('W_\n', `${HEADER.replace('<tr>', '<tbody><tr>')}${ROW.replaceAll('nowrap', 'nowrap="nowrap"')}</tbody></table>`))}`,
      [SLOT],
      [],
    ],
    [
      'an unknown column',
      page('W_', `${HEADER.replace('</tr>', '<th>Extra</th></tr>')}${ROW.replace('</tr>', '<td>x</td></tr>')}</table>`),
      [SLOT],
      ['slot table column 16 "Extra" is not a known column; ignored'],
    ],
    [
      'an unreadable Acc cell',
      page('W_', `${HEADER}${ROW.replace('0/5/9', '0/5')}</table>`),
      [],
      ['slot table row 1 (Srv "0-0"): Acc is "0/5", expected three numbers separated by "/"; row skipped'],
    ],
    [
      'an unreadable number',
      page('W_', `${HEADER}${ROW.replace('1.25', '1,25')}</table>`),
      [],
      ['slot table row 1 (Srv "0-0"): Child is "1,25", expected a number; row skipped'],
    ],
    [
      'a row with a cell missing',
      page('W_', `${HEADER}${ROW.replace('<td>http/1.1</td>', '')}</table>`),
      [],
      ['slot table row 1 (Srv "0-0") has 14 cells, expected 15; row skipped'],
    ],
    [
      'an unknown mode character in column M and on the scoreboard',
      page('W?_', `${HEADER}${ROW.replace('<b>W</b>', '?')}</table>`),
      [{ ...SLOT, mode: '?' }],
      [
        'scoreboard has characters outside the 11 modes: "?"',
        'slot table row 1 (Srv "0-0"): M is "?", not one of the 11 mode characters',
        'slot 0-0: column M is "?" but scoreboard position 0 is "W"',
      ],
    ],
    [
      'a page cut inside the slot table',
      page('W_', `${HEADER}${ROW}${ROW.slice(0, 60)}`),
      [SLOT],
      ['the page ends inside the slot table; its last row (2) was skipped'],
    ],
  ])('%s', (_name, html, slots, warnings) => {
    const report = parseHtml(html);
    expect(report.slots).toEqual(slots);
    expect(report.warnings).toEqual(warnings);
  });

  it('reads a legend row cut as "</td</tr>"', () => {
    const legend =
      ' <hr /> <table>\n <tr><th>Srv</th><td>Child Server number</td</tr>\n <tr><th>PID</th><td>OS process ID</td></tr>\n </table>';
    expect(parseHtml(page('W_', `${HEADER}${ROW}</table>\n${legend}`)).legend).toEqual([
      { abbreviation: 'Srv', meaning: 'Child Server number' },
      { abbreviation: 'PID', meaning: 'OS process ID' },
    ]);
  });

  const cacheBlock = (heading: string, entries: number): string =>
    `<hr>\n<table cellspacing=0 cellpadding=0>\n<tr><td bgcolor="#000000">\n<b><font color="#ffffff">${heading}</font></b>\r</td></tr>\n<tr><td bgcolor="#ffffff">\ncache type: <b>SHMCB</b>, shared memory: <b>512000</b> bytes, current entries: <b>${entries}</b><br>subcaches: <b>32</b>, indexes per subcache: <b>88</b><br>index usage: <b>0%</b>, cache usage: <b>0%</b><br>total entries stored since starting: <b>${entries}</b><br>total entries replaced since starting: <b>0</b><br>total entries expired since starting: <b>0</b><br>total (pre-expiry) entries scrolled out of the cache: <b>0</b><br>total retrieves since starting: <b>0</b> hit, <b>0</b> miss<br>total removes since starting: <b>0</b> hit, <b>0</b> miss<br></td></tr>\n</table>\n`;
  const ssl = cacheBlock('SSL/TLS Session Cache Status:', 7);
  const socache = cacheBlock('mod_cache_socache Status:', 99);

  it.each<[string, string, SslCache | null]>([
    ['SSL block, then mod_cache_socache', `${ssl}${socache}`, { ...SSL_2_4_ZERO, currentEntries: 7, stored: 7 }],
    ['mod_cache_socache, then SSL block', `${socache}${ssl}`, { ...SSL_2_4_ZERO, currentEntries: 7, stored: 7 }],
    ['mod_cache_socache only', socache, null],
  ])('keeps the mod_cache_socache block out of sslCache: %s', (_name, blocks, expected) => {
    const report = parseHtml(page('W_', `${HEADER}${ROW}</table>\n${blocks}</body></html>`));
    expect(report.sslCache).toEqual(expected);
    expect(report.warnings).toEqual([]);
  });
});
