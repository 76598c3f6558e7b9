import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NotAStatusReportError } from '../../../src/core/errors.ts';
import { parseText } from '../../../src/core/report/text.ts';

const FIXTURES = new URL('../../fixtures/', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, FIXTURES), 'utf8');
const expected = (path: string) => JSON.parse(read(`${path}.expected.json`));

const SLOT_17_WARNING = 'slot 17-0: column M is "W" but scoreboard position 17 is "K"';

describe('parseText on the real 2.4.71 lynx dumps', () => {
  it.each([
    // file, legend entries, warnings
    ['prefork-idle/report.lynx.txt', 11, []],
    ['prefork-idle/report.lynx80.txt', 11, []],
    ['prefork-busy/report.lynx.txt', 11, [SLOT_17_WARNING]],
    ['prefork-busy/report.lynx80.txt', 11, [SLOT_17_WARNING]],
    ['prefork-busy/report.refresh5.lynx.txt', 11, []],
    ['prefork-busy/report.refresh5.lynx80.txt', 11, []],
    ['event-busy/report.lynx.txt', 11, []],
    ['event-busy/report.lynx80.txt', 11, []],
    ['event-busy/report.late.lynx.txt', 11, []],
    ['event-busy/report.late.lynx80.txt', 11, []],
    ['noextended/report.lynx.txt', null, []],
    ['noextended/report.lynx80.txt', null, []],
  ])('%s equals its reference parse', (path, legendLength, warnings) => {
    // Prepare
    const { legend: _none, warnings: _empty, ...reference } = expected(`apache-2.4.71/${path}`);
    // Act
    const { legend, warnings: found, ...report } = parseText(read(`apache-2.4.71/${path}`));
    // Assess
    expect(report).toEqual(reference);
    expect(legend === null ? null : legend.length).toBe(legendLength);
    expect(found).toEqual(warnings);
  });

  it.each(['prefork-idle/report', 'prefork-busy/report', 'event-busy/report', 'event-busy/report.late'])(
    '%s: lynx at 80 and at 200 columns carry what the HTML carries',
    (moment) => {
      const html = expected(`apache-2.4.71/${moment}.html`);
      for (const dump of [`${moment}.lynx80.txt`, `${moment}.lynx.txt`]) {
        const report = parseText(read(`apache-2.4.71/${dump}`));
        expect(report.scoreboard).toBe(html.scoreboard);
        expect(report.server).toEqual(html.server);
        expect(report.slots).toEqual(html.slots);
        expect(report.sslCache).toEqual(html.sslCache);
      }
    },
  );

  it('reads the legend of a lynx dump', () => {
    const { legend } = parseText(read('apache-2.4.71/prefork-busy/report.lynx80.txt'));
    expect(legend?.slice(0, 3)).toEqual([
      { abbreviation: 'Srv', meaning: 'Child Server number - generation' },
      { abbreviation: 'PID', meaning: 'OS process ID' },
      { abbreviation: 'Acc', meaning: 'Number of accesses this connection / this child / this slot' },
    ]);
    expect(legend?.map((e) => e.abbreviation)).toEqual([
      'Srv',
      'PID',
      'Acc',
      'M',
      'CPU',
      'SS',
      'Req',
      'Dur',
      'Conn',
      'Child',
      'Slot',
    ]);
  });

  it.each(['report.notable.lynx.txt', 'report.notable.lynx80.txt'])('reads the ?notable list of %s', (file) => {
    const report = parseText(read(`apache-2.4.71/prefork-busy/${file}`));
    expect(report.slots).toHaveLength(33);
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
    // "Server 3-0 (16988): 65|13701|13701 [Keepalive] u.1 s.36 cu0 cs0 0 0 2994(1.3 MB|431.9 MB|431.9 MB)"
    expect(report.slots?.[3]).toMatchObject({ cpu: 0.46, durMs: 2994, connKB: 1.3 * 1024, childMB: 431.9 });
  });
});

describe('parseText on public dumps', () => {
  it('reads a links-style dump whose Request cells are centred over three lines', () => {
    const report = parseText(read('public/text-2.2.15-prefork-exton-links-style-dump.txt'));
    expect(report.scoreboard).toBe('.__.__W...');
    expect(report.server).toEqual({
      version: 'Apache/2.2.15 (Unix) DAV/2 PHP/5.3.3',
      mpm: null,
      currentTime: 'Tuesday, 14-Jan-2019 04:34:13 EST',
      restartTime: 'Tuesday, 14-Jan-2019 00:33:05 EST',
      uptimeSeconds: 4 * 3600 + 60 + 7,
      totalAccesses: 2748,
      busyWorkers: 1,
      idleWorkers: 4,
      gracefulWorkers: null,
    });
    expect(report.slots?.map((s) => [s.srv, s.mode, s.request])).toEqual([
      ['0-0', '.', 'OPTIONS * HTTP/1.0'],
      ['1-0', '_', 'GET /server-status?refresh=5 HTTP/1.1'],
      ['2-0', '_', 'GET /server-status?refresh=5 HTTP/1.1'],
      ['3-0', '.', 'OPTIONS * HTTP/1.0'],
      ['4-0', '_', 'GET /server-status?refresh=5 HTTP/1.1'],
      ['5-0', '_', 'GET /server-status?refresh=5 HTTP/1.1'],
      ['6-0', 'W', 'GET /server-status HTTP/1.1'],
      ['7-0', '.', 'OPTIONS * HTTP/1.0'],
    ]);
    expect(report.slots?.[5]).toMatchObject({ pid: 5708, acc: [0, 212, 213], cpu: 0.15, ss: 6, durMs: null });
    expect(report.slots?.[5]).toMatchObject({ client: '115.113.134.14', protocol: null, vhost: '5.175.142.66' });
    expect(report.legend).toHaveLength(10);
  });

  it('reads a lynx-style 2.2 dump with wrapped rows and a cut request', () => {
    const report = parseText(read('public/text-2.2.9-prefork-exton-lynx-style-dump.txt'));
    expect(report.scoreboard).toHaveLength(256);
    expect(report.counts).toMatchObject({ _: 2, W: 2, K: 1, '.': 251 });
    expect(report.server.version).toBe(
      'Apache/2.2.9 (Ubuntu) PHP/5.2.6-2ubuntu4.6 with Suhosin-Patch mod_perl/2.0.4 Perl/v5.10.0',
    );
    expect(report.slots).toHaveLength(8);
    expect(report.slots?.[0]).toEqual({
      srv: '0-0',
      pid: 18230,
      acc: [0, 16, 16],
      mode: '_',
      cpu: 0.22,
      ss: 4,
      reqMs: 2495,
      durMs: null,
      connKB: 0,
      childMB: 8.02,
      slotMB: 8.02,
      client: '89.34.13.149',
      protocol: null,
      vhost: 'rsr.linge-ma.ws',
      request: 'GET /url/imgcache.php?img=http%3A%2F%2Fen.wikipedia.org%2Fwiki%',
      requestTruncated: true,
    });
    expect(report.slots?.[7]).toMatchObject({ srv: '7-0', mode: 'W', request: 'GET /server-status HTTP/1.0' });
  });

  it('reads a tab-separated browser copy, skipping its extra empty cell', () => {
    const report = parseText(read('public/text-2.4.29-prefork-exton-browser-copy-tabs.txt'));
    expect(report.scoreboard).toHaveLength(150);
    expect(report.server).toMatchObject({
      version: 'Apache/2.4.29 (Ubuntu)',
      mpm: 'prefork',
      busyWorkers: 8,
      idleWorkers: 2,
    });
    expect(report.slots).toHaveLength(16);
    expect(report.slots?.[1]).toMatchObject({
      srv: '2-11',
      pid: 3147,
      mode: '_',
      slotMB: 42.91,
      client: '127.0.0.1',
      protocol: 'http/1.1',
      vhost: 'conet72gphb3524hwjshszuogongo5y',
      request: 'GET /server-status HTTP/1.1',
    });
    expect(report.legend).toHaveLength(10);
  });
});

describe('parseText on bad input', () => {
  const good = read('apache-2.4.71/prefork-busy/report.lynx80.txt');

  it.each([
    ['empty input', ''],
    ['a dump cut before the scoreboard', good.slice(0, good.indexOf('WKW_W_'))],
    ['a plain sentence', 'Service Unavailable\n'],
  ])('rejects %s', (_name, text) => {
    expect(() => parseText(text)).toThrow(NotAStatusReportError);
    expect(() => parseText(text)).toThrow(/expected a text dump of an Apache server-status page/);
  });

  it('skips a mangled row with a warning and keeps the others', () => {
    const mangled = good.replace('3-0 16988 0/11010/11010 _ 0.36 0 0 2584', '3-0 16988 0/11010/11010 _ zero 0 0 2584');
    const report = parseText(mangled);
    expect(report.slots).toHaveLength(32);
    expect(report.slots?.map((s) => s.srv)).not.toContain('3-0');
    expect(report.warnings).toContainEqual(
      expect.stringMatching(/^slot table row at line 41 could not be read; skipped: "3-0 16988/),
    );
  });
});
