import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseText } from '../../../src/core/report/text.ts';
import type { LegendEntry } from '../../../src/core/report/types.ts';

// The public dumps of test/fixtures/public (provenance and quirks in SOURCES.md); values read by hand.
const read = (path: string) => readFileSync(new URL(`../../fixtures/public/${path}`, import.meta.url), 'utf8');

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

describe('parseText on public dumps', () => {
  it('reads a links-style dump whose Request cells are centred over three lines', () => {
    // Act
    const report = parseText(read('text-2.2.15-prefork-exton-links-style-dump.txt'));
    // Assess
    expect(report.scoreboard).toBe('.__.__W...');
    expect(report.counts).toEqual({ _: 4, S: 0, R: 0, W: 1, K: 0, D: 0, C: 0, L: 0, G: 0, I: 0, '.': 5 });
    expect(report.server).toEqual({
      version: 'Apache/2.2.15 (Unix) DAV/2 PHP/5.3.3',
      mpm: null,
      currentTime: 'Tuesday, 14-Jan-2019 04:34:13 EST',
      restartTime: 'Tuesday, 14-Jan-2019 00:33:05 EST',
      uptimeSeconds: 4 * 3600 + 60 + 7,
      totalAccesses: 2748,
      totalKBytes: 9830, // 9.6 MB
      busyWorkers: 1,
      idleWorkers: 4,
      gracefulWorkers: null,
      processes: null,
      stoppingProcesses: null,
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
    // "5-0 5708 0/212/213 _ 0.15 6    0   0.0  0.85  0.85 115.113.134.14 5.175.142.66 /server-status?refresh=5"
    expect(report.slots?.[5]).toEqual({
      srv: '5-0',
      pid: 5708,
      acc: [0, 212, 213],
      mode: '_',
      cpu: 0.15,
      ss: 6,
      reqMs: 0,
      durMs: null,
      connKB: 0,
      childMB: 0.85,
      slotMB: 0.85,
      client: '115.113.134.14',
      protocol: null,
      vhost: '5.175.142.66',
      request: 'GET /server-status?refresh=5 HTTP/1.1',
      requestTruncated: false,
    });
    // "0-0 -    0/0/428   . 0.30 5572 0   0.0  0.00  1.34 127.0.0.1      5.175.142.66 OPTIONS * HTTP/1.0"
    expect(report.slots?.[0]).toMatchObject({ pid: null, acc: [0, 0, 428], cpu: 0.3, ss: 5572, slotMB: 1.34 });
    expect(report.legend).toEqual(LEGEND_2_2);
    expect(report.sslCache).toBeNull();
    expect(report.warnings).toEqual([]);
  });

  it('reads a lynx-style 2.2 dump with wrapped rows and a cut request', () => {
    // Act
    const report = parseText(read('text-2.2.9-prefork-exton-lynx-style-dump.txt'));
    // Assess
    expect(report.scoreboard).toBe(`_W._.K.W${'.'.repeat(248)}`);
    expect(report.counts).toEqual({ _: 2, S: 0, R: 0, W: 2, K: 1, D: 0, C: 0, L: 0, G: 0, I: 0, '.': 251 });
    expect(report.server).toEqual({
      version: 'Apache/2.2.9 (Ubuntu) PHP/5.2.6-2ubuntu4.6 with Suhosin-Patch mod_perl/2.0.4 Perl/v5.10.0',
      mpm: null,
      currentTime: 'Monday, 22-Mar-2022 16:45:44 EET',
      restartTime: 'Monday, 22-Mar-2022 16:40:18 EET',
      uptimeSeconds: 325,
      totalAccesses: 103,
      totalKBytes: 18842, // 18.4 MB
      busyWorkers: 3,
      idleWorkers: 2,
      gracefulWorkers: null,
      processes: null,
      stoppingProcesses: null,
    });
    expect(report.slots?.map((s) => [s.srv, s.mode, s.vhost])).toEqual([
      ['0-0', '_', 'rsr.linge-ma.ws'],
      ['1-0', 'W', 'www.probar.ro'],
      ['2-0', '.', 'vpn.baracademy.ro'],
      ['3-0', '_', 'rsr.linge-ma.ws'],
      ['4-0', '.', 'vpn.baracademy.ro'],
      ['5-0', 'K', 'rsr.linge-ma.ws'],
      ['6-0', '.', 'vpn.baracademy.ro'],
      ['7-0', 'W', 'vpn.baracademy.ro'],
    ]);
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
    // "5-0 18237 1/15/15 K 0.05 4 2 30.7 2.77 2.77 89.34.13.149" / "rsr.linge-ma.ws GET" / "/url/..."
    expect(report.slots?.[5]).toEqual({
      srv: '5-0',
      pid: 18237,
      acc: [1, 15, 15],
      mode: 'K',
      cpu: 0.05,
      ss: 4,
      reqMs: 2,
      durMs: null,
      connKB: 30.7,
      childMB: 2.77,
      slotMB: 2.77,
      client: '89.34.13.149',
      protocol: null,
      vhost: 'rsr.linge-ma.ws',
      request: 'GET /url/imgcache.php?img=http%3A%2F%2Fphotos-f.ak.fbcdn.net%2F',
      requestTruncated: true,
    });
    expect(report.slots?.[7]).toMatchObject({ srv: '7-0', mode: 'W', request: 'GET /server-status HTTP/1.0' });
    expect(report.legend).toEqual(LEGEND_2_2);
    expect(report.warnings).toEqual([]);
  });

  it('reads a tab-separated browser copy, skipping its extra empty cell', () => {
    // Act
    const report = parseText(read('text-2.4.29-prefork-exton-browser-copy-tabs.txt'));
    // Assess
    expect(report.scoreboard).toBe(`KK._..KWKKK......K._${'.'.repeat(130)}`);
    expect(report.counts).toEqual({ _: 2, S: 0, R: 0, W: 1, K: 7, D: 0, C: 0, L: 0, G: 0, I: 0, '.': 140 });
    expect(report.server).toEqual({
      version: 'Apache/2.4.29 (Ubuntu)',
      mpm: 'prefork',
      currentTime: 'Saturday, 01-Jan-2022 13:53:54 EST',
      restartTime: 'Wednesday, 22-Dec-2021 14:58:54 EST',
      uptimeSeconds: 9 * 86400 + 22 * 3600 + 54 * 60 + 59,
      totalAccesses: 237127,
      totalKBytes: 15204352, // 14.5 GB
      busyWorkers: 8,
      idleWorkers: 2,
      gracefulWorkers: null,
      processes: null,
      stoppingProcesses: null,
    });
    expect(report.slots?.map((s) => s.srv)).toEqual([
      ...Array.from({ length: 10 }, (_, n) => `${n + 1}-11`),
      ...Array.from({ length: 6 }, (_, n) => `${n + 11}-6`),
    ]);
    // "2-11\t3147\t0/12/827\t_ \t0.01\t41\t1\t0.0\t0.33\t42.91 \t127.0.0.1\thttp/1.1\t\tconet72gphb...\tGET /server-status HTTP/1.1"
    expect(report.slots?.[1]).toEqual({
      srv: '2-11',
      pid: 3147,
      acc: [0, 12, 827],
      mode: '_',
      cpu: 0.01,
      ss: 41,
      reqMs: 1,
      durMs: null,
      connKB: 0,
      childMB: 0.33,
      slotMB: 42.91,
      client: '127.0.0.1',
      protocol: 'http/1.1',
      vhost: 'conet72gphb3524hwjshszuogongo5y',
      request: 'GET /server-status HTTP/1.1',
      requestTruncated: false,
    });
    // "16-6\t-\t0/0/1\t. \t0.00\t445637\t0\t0.0\t0.00\t0.00 \t::1\thttp/1.1\t127.0.1.1:80\tOPTIONS * HTTP/1.0"
    expect(report.slots?.[15]).toEqual({
      srv: '16-6',
      pid: null,
      acc: [0, 0, 1],
      mode: '.',
      cpu: 0,
      ss: 445637,
      reqMs: 0,
      durMs: null,
      connKB: 0,
      childMB: 0,
      slotMB: 0,
      client: '::1',
      protocol: 'http/1.1',
      vhost: '127.0.1.1:80',
      request: 'OPTIONS * HTTP/1.0',
      requestTruncated: false,
    });
    expect(report.legend).toEqual(LEGEND_2_2);
    // The copied table does not match its scoreboard (SOURCES.md: probably edited); each clash is named.
    expect(report.warnings).toEqual([
      'slot 1-11: column M is "_" but scoreboard position 1 is "K"',
      'slot 2-11: column M is "_" but scoreboard position 2 is "."',
      'slot 3-11: column M is "." but scoreboard position 3 is "_"',
      'slot 6-11: column M is "." but scoreboard position 6 is "K"',
      'slot 7-11: column M is "." but scoreboard position 7 is "W"',
      'slot 8-11: column M is "." but scoreboard position 8 is "K"',
      'slot 9-11: column M is "." but scoreboard position 9 is "K"',
      'slot 10-11: column M is "." but scoreboard position 10 is "K"',
    ]);
  });
});
