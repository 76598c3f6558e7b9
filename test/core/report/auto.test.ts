import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NotAStatusReportError } from '../../../src/core/errors.ts';
import { parseAuto } from '../../../src/core/report/auto.ts';

const FIXTURES = new URL('../../fixtures/', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, FIXTURES), 'utf8');

describe('parseAuto on the real 2.4.71 captures', () => {
  it.each([
    'prefork-idle/report.auto.txt',
    'prefork-busy/report.auto.txt',
    'prefork-busy/report.notable.auto.txt',
    'event-busy/report.auto.txt',
    'event-busy/report.late.auto.txt',
    'noextended/report.auto.txt',
  ])('%s equals its reference parse', (path) => {
    // Prepare
    const expected = JSON.parse(read(`apache-2.4.71/${path}.expected.json`));
    // Act
    const report = parseAuto(read(`apache-2.4.71/${path}`));
    // Assess
    expect(report).toEqual({ ...expected, legend: null, warnings: [] });
  });
});

describe('parseAuto on public captures', () => {
  it.each([
    // file, version, mpm, uptime, accesses, busy, idle, graceful, scoreboard length, counts subset
    ['auto-2.2.15-prefork-extoff.txt', null, null, null, null, 1, 7, null, 256, { _: 7, W: 1, '.': 248 }],
    ['auto-2.2.15-prefork-exton.txt', null, null, 3, 40, 1, 7, null, 256, { _: 7, W: 1 }],
    ['auto-2.4.6-prefork-exton.txt', null, null, 495, 49, 1, 7, null, 256, { _: 7, W: 1 }],
    ['auto-2.4.10-event-exton.txt', null, null, 3, 40, 1, 49, null, 150, { W: 1, _: 49 }],
    ['auto-2.4.25-event-exton.txt', 'Apache/2.4.25 (Debian)', 'event', 3, 40, 1, 49, null, 150, { W: 1, _: 49 }],
    [
      'auto-2.4.37rhel8-event-exton-gracefulworkers-backport.txt',
      'Apache/2.4.37 (Red Hat Enterprise Linux)',
      'event',
      2,
      25,
      1,
      74,
      0,
      400,
      { W: 1, _: 74 },
    ],
    [
      'auto-2.4.48-event-exton-duplicate-busyidle-modqos.txt',
      'Apache/2.4.48 (Fedora) OpenSSL/1.1.1k mod_qos/11.66',
      'event',
      19,
      110,
      1,
      74,
      null,
      400,
      { W: 1, _: 74 },
    ],
    [
      'auto-2.4.62-prefork-exton-no-cpuload.txt',
      'Apache/2.4.62 (Rocky Linux)',
      'prefork',
      2,
      30,
      1,
      4,
      0,
      256,
      { W: 1, _: 4 },
    ],
    ['auto-2.4.66-event-extoff.txt', 'Apache/2.4.66 (Debian)', 'event', 2, null, 1, 49, 0, 150, { W: 1, _: 49 }],
    ['auto-2.4.66-event-exton-waitio.txt', 'Apache/2.4.66 (Debian)', 'event', 2, 25, 1, 49, 0, 150, { W: 1, _: 49 }],
  ])('%s', (file, version, mpm, uptime, accesses, busy, idle, graceful, length, counts) => {
    const text = read(`public/${file}`);
    const report = parseAuto(text);
    const scoreboardLine = /^Scoreboard: (.*)$/m.exec(text)?.[1] as string;
    expect(report.format).toBe('auto');
    expect(report.server).toMatchObject({
      version,
      mpm,
      uptimeSeconds: uptime,
      totalAccesses: accesses,
      busyWorkers: busy,
      idleWorkers: idle,
      gracefulWorkers: graceful,
    });
    expect(report.scoreboard).toBe(scoreboardLine);
    expect(report.scoreboard).toHaveLength(length as number);
    expect(report.counts).toMatchObject(counts as object);
    expect(Object.values(report.counts).reduce((a, b) => a + b, 0)).toBe(length);
    expect(report.slots).toBeNull();
    expect(report.warnings).toEqual([]);
  });

  it('reads the G slots of a graceful restart', () => {
    const report = parseAuto(read('public/auto-2.4.62-event-exton-graceful-restart.txt'));
    expect(report.scoreboard).toHaveLength(400);
    expect(report.counts.G).toBe(20);
  });

  it('fills sslCache from the TLSSessionCacheStatus section only', () => {
    const report = parseAuto(read('public/auto-2.4.48-worker-exton-tls-modqos.txt'));
    expect(report.sslCache).toMatchObject({ type: 'SHMCB', subcaches: 32, indexesPerSubcache: 88 });
  });
});

describe('parseAuto edge cases', () => {
  const base = 'localhost\nBusyWorkers: 2\nIdleWorkers: 3\nScoreboard: WK___\n';
  const tls = [
    'TLSSessionCacheStatus',
    'CacheType: SHMCB',
    'CacheSharedMemory: 512000',
    'CacheCurrentEntries: 3',
    'CacheSubcaches: 32',
    'CacheIndexesPerSubcaches: 88',
    'CacheIndexUsage: 1%',
    'CacheUsage: 2%',
    'CacheStoreCount: 10',
    'CacheReplaceCount: 0',
    'CacheExpireCount: 4',
    'CacheDiscardCount: 0',
    'CacheRetrieveHitCount: 7',
    'CacheRetrieveMissCount: 5',
    'CacheRemoveHitCount: 0',
    'CacheRemoveMissCount: 0',
  ].join('\n');
  const socache = 'ModCacheSocacheStatus\nCacheType: SHMCB\nCacheSharedMemory: 999\nCacheRetrieveHitCount: 999\n';
  const expectedSsl = {
    type: 'SHMCB',
    sharedMemoryBytes: 512000,
    currentEntries: 3,
    subcaches: 32,
    indexesPerSubcache: 88,
    indexUsagePercent: 1,
    cacheUsagePercent: 2,
    stored: 10,
    replaced: 0,
    expired: 4,
    discarded: 0,
    retrieveHits: 7,
    retrieveMisses: 5,
    removeHits: 0,
    removeMisses: 0,
  };

  it.each([
    ['mod_cache_socache after the TLS block', `${base}${tls}\n${socache}`],
    ['mod_cache_socache before the TLS block', `${base}${socache}${tls}\n`],
    ['CRLF line endings', `${base}${tls}\n`.replace(/\n/g, '\r\n')],
  ])('keeps the TLS cache apart: %s', (_name, text) => {
    expect(parseAuto(text).sslCache).toEqual(expectedSsl);
  });

  it.each([
    ['.0898876', 0.0898876],
    ['3.e+5', 300000],
    ['1.5e+6', 1500000],
    ['9.73e-6', 9.73e-6],
    ['0', 0],
  ])('reads the APR number %s', (printed, value) => {
    expect(parseAuto(`Total Accesses: ${printed}\nScoreboard: _\n`).server.totalAccesses).toBe(value);
  });

  it('warns when a duplicate BusyWorkers differs, keeping the first', () => {
    const report = parseAuto('BusyWorkers: 3\nIdleWorkers: 5\nBusyWorkers: 4\nIdleWorkers: 5\nScoreboard: WWW_____\n');
    expect(report.server.busyWorkers).toBe(3);
    expect(report.warnings).toEqual([
      'BusyWorkers is printed twice with different values (3 and 4); the first, server-wide one is used',
    ]);
  });

  it('warns about a line that is not Key: value, after the first', () => {
    expect(parseAuto('localhost\nsome junk here\nScoreboard: _\n').warnings).toEqual([
      'line 2 is not "Key: value": "some junk here"',
    ]);
  });

  it.each([
    ['empty input', '', /expected an Apache server-status \?auto page.*found an empty body/],
    [
      'a page cut before the scoreboard',
      'localhost\nBusyWorkers: 1\nIdleWorkers: 4\n',
      /found "localhost\\nBusyWorkers/,
    ],
    [
      'lighttpd',
      'Total Accesses: 1\nBusyServers: 1\nIdleServers: 3\nScoreboard: _\n',
      /found a lighttpd mod_status page/,
    ],
  ])('rejects %s', (_name, text, message) => {
    expect(() => parseAuto(text)).toThrow(NotAStatusReportError);
    expect(() => parseAuto(text)).toThrow(message);
  });
});
