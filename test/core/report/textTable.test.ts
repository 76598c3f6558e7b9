import { describe, expect, it } from 'vitest';
import { parseText } from '../../../src/core/report/text.ts';
import type { Slot } from '../../../src/core/report/types.ts';

// Slot table layouts the real captures do not show, as small hand-written dumps.

/** A small lynx-style dump around the given slot table lines. */
function dump(table: readonly string[], scoreboard = 'W_R.'): string {
  return [
    '              Apache Server Status for example.test (via 10.0.0.1)',
    '',
    '   Server Version: Apache/2.4.62 (Win64)',
    '   Server MPM: WinNT',
    '',
    scoreboard,
    '',
    '   Scoreboard Key:',
    '   "_" Waiting for Connection, "S" Starting up, "R" Reading Request,',
    '   "I" Idle cleanup of worker, "." Open slot with no current process',
    '',
    ...table,
    '     __________________________________________________________________',
    '',
  ].join('\n');
}

const HEADER_15 = '   Srv PID Acc M CPU SS Req Dur Conn Child Slot Client Protocol VHost Request';
const NUMBERS_15 = '0-0 100 0/1/1 W 0.00 0 0 0 0.0 0.00 0.00';

describe('parseText places the text cells by shape (empty cells vanish)', () => {
  it.each([
    // name, cells after Slot, [client, protocol, vhost, request, requestTruncated]
    [
      'every cell',
      '127.0.0.1 http/1.1 www.example.test:80 GET / HTTP/1.1',
      ['127.0.0.1', 'http/1.1', 'www.example.test:80', 'GET / HTTP/1.1', false],
    ],
    ['a reading row, ending after Protocol', '127.0.0.1 http/1.1', ['127.0.0.1', 'http/1.1', '', '', false]],
    ['no cell at all', '', ['', '', '', '', false]],
    [
      'no Client',
      'h2 www.example.test:443 GET /x HTTP/2.0',
      ['', 'h2', 'www.example.test:443', 'GET /x HTTP/2.0', false],
    ],
    ['no VHost', '127.0.0.1 http/1.1 NULL', ['127.0.0.1', 'http/1.1', '', 'NULL', false]],
    [
      'no VHost before a method',
      '::1 http/1.1 OPTIONS * HTTP/1.0',
      ['::1', 'http/1.1', '', 'OPTIONS * HTTP/1.0', false],
    ],
    [
      'a log-escaped TLS hello',
      '10.0.0.9 http/1.1 www.example.test:80 \\x16\\x03\\x01\\x02\\x00\\x01',
      ['10.0.0.9', 'http/1.1', 'www.example.test:80', '\\x16\\x03\\x01\\x02\\x00\\x01', true],
    ],
    [
      'a request with a decoded ampersand',
      '127.0.0.1 http/1.1 www.example.test:80 GET /a?b=1&c=2 HTTP/1.1',
      ['127.0.0.1', 'http/1.1', 'www.example.test:80', 'GET /a?b=1&c=2 HTTP/1.1', false],
    ],
  ])('%s', (_name, cells, [client, protocol, vhost, request, requestTruncated]) => {
    // Act
    const report = parseText(dump([HEADER_15, `   ${NUMBERS_15} ${cells}`]));
    // Assess
    expect(report.slots).toHaveLength(1);
    expect(report.slots?.[0]).toMatchObject({ client, protocol, vhost, request, requestTruncated });
    expect(report.warnings).toEqual([]);
  });
});

describe('parseText on layouts the captures do not cover', () => {
  const windowsRow: Slot = {
    srv: '0-0',
    pid: 4242,
    acc: [1, 57, 57],
    mode: 'W',
    cpu: null,
    ss: 0,
    reqMs: 0,
    durMs: 3,
    connKB: 0.5,
    childMB: 0.12,
    slotMB: 0.12,
    client: '10.0.0.2',
    protocol: 'http/1.1',
    vhost: 'www.example.test:80',
    request: 'GET /server-status HTTP/1.1',
    requestTruncated: false,
  };

  it.each([
    [
      'no CPU column (Windows), one row per line',
      [
        '   Srv  PID   Acc      M SS Req Dur Conn Child Slot Client   Protocol VHost               Request',
        '   0-0  4242  1/57/57  W 0  0   3   0.5  0.12  0.12 10.0.0.2 http/1.1 www.example.test:80 GET /server-status HTTP/1.1',
      ],
    ],
    [
      'no CPU column (Windows), wrapped at 80 columns',
      [
        '   Srv PID Acc M SS Req Dur Conn Child Slot Client Protocol VHost Request',
        '   0-0 4242 1/57/57 W 0 0 3 0.5 0.12 0.12 10.0.0.2 http/1.1 www.example.test:80',
        '   GET /server-status HTTP/1.1',
      ],
    ],
  ])('%s', (_name, table) => {
    // Act
    const report = parseText(dump(table));
    // Assess
    expect(report.slots).toEqual([windowsRow]);
    expect(report.warnings).toEqual([]);
  });

  it('gives a links-style centred request back to its own row after a cut one', () => {
    // Prepare: row 0-0's cut request spans two lines (row line first), 1-0's three (one above).
    const table = [
      'Srv PID  Acc     M CPU  SS Req Conn Child Slot Client   VHost            Request',
      '0-0 5606 0/9/9   _ 0.46 4  0   0.0  2.18  2.18 10.0.0.1 www.example.test GET',
      '                                                                         /url/imgcache.php?img=http%3A%2F%2Fen.wikipedia.org%2Fwiki%',
      '                                                                         GET',
      '1-0 5607 0/6/6   _ 0.43 0  0   0.0  2.09  2.09 10.0.0.2 www.example.test /server-status?refresh=5',
      '                                                                         HTTP/1.1',
    ];
    // Act
    const report = parseText(dump(table, ' __'));
    // Assess
    expect(report.slots?.map((s) => [s.srv, s.request, s.requestTruncated])).toEqual([
      ['0-0', 'GET /url/imgcache.php?img=http%3A%2F%2Fen.wikipedia.org%2Fwiki%', true],
      ['1-0', 'GET /server-status?refresh=5 HTTP/1.1', false],
    ]);
  });

  it.each([
    ['a 2.2-era scoreboard grouped with spaces', '_W__ K... ....', '_W__K.......'],
    [
      'a scoreboard over several lines',
      `${'_'.repeat(64)}\n${'.'.repeat(64)}\nW_`,
      `${'_'.repeat(64)}${'.'.repeat(64)}W_`,
    ],
  ])('reads %s', (_name, printed, scoreboard) => {
    // Act
    const report = parseText(dump([], printed));
    // Assess
    expect(report.scoreboard).toBe(scoreboard);
    expect(report.slots).toBeNull();
  });

  it('names a column it does not know and still reads the others', () => {
    // Prepare
    const table = [
      '   Srv PID Acc M CPU SS Req Foo Conn Child Slot Client VHost Request',
      '   0-0 7 0/1/1 _ 0.10 3 4 xyz 0.0 0.01 0.02 ::1 a.test GET / HTTP/1.0',
    ];
    // Act
    const report = parseText(dump(table));
    // Assess
    expect(report.slots?.[0]).toMatchObject({
      cpu: 0.1,
      ss: 3,
      reqMs: 4,
      connKB: 0,
      childMB: 0.01,
      slotMB: 0.02,
      vhost: 'a.test',
    });
    expect(report.warnings).toEqual(['slot table column 8 "Foo" is not a known column; ignored']);
  });
});
