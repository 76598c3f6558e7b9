import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NotAStatusReportError } from '../../../src/core/errors.ts';
import { parseAuto } from '../../../src/core/report/auto.ts';
import type { ModeCounts, ServerInfo, SslCache } from '../../../src/core/report/types.ts';

const FIXTURES = new URL('../../fixtures/', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, FIXTURES), 'utf8');

/** All 11 counts: the ones given, every other mode 0. */
const counts = (nonZero: Partial<ModeCounts>): ModeCounts => ({
  _: 0,
  S: 0,
  R: 0,
  W: 0,
  K: 0,
  D: 0,
  C: 0,
  L: 0,
  G: 0,
  I: 0,
  '.': 0,
  ...nonZero,
});

/** The server fields of a page without the 2.4.13+ header block: all of it null but what is given. */
const server = (given: Partial<ServerInfo>): ServerInfo => ({
  version: null,
  mpm: null,
  currentTime: null,
  restartTime: null,
  uptimeSeconds: null,
  totalAccesses: null,
  totalKBytes: null,
  busyWorkers: null,
  idleWorkers: null,
  gracefulWorkers: null,
  processes: null,
  stoppingProcesses: null,
  ...given,
});

const EXPECTED_MESSAGE = 'expected an Apache server-status ?auto page with a "Scoreboard:" line, found';

describe('parseAuto on the real 2.4.71 captures', () => {
  const scenarios = readdirSync(new URL('apache-2.4.71/', FIXTURES));
  const files = scenarios.flatMap((dir) =>
    readdirSync(new URL(`apache-2.4.71/${dir}/`, FIXTURES))
      // Captures with a reference parse beside them (event-closing is checked value by value in eventMpm.test.ts).
      .filter(
        (name) =>
          name.endsWith('.auto.txt') && existsSync(new URL(`apache-2.4.71/${dir}/${name}.expected.json`, FIXTURES)),
      )
      .map((name) => `apache-2.4.71/${dir}/${name}`),
  );

  it('finds every capture', () => {
    expect(files).toHaveLength(6);
  });

  it.each(files)('%s equals its reference parse', (path) => {
    // Prepare
    const expected = JSON.parse(read(`${path}.expected.json`));
    // Act
    const { legend, warnings, ...rest } = parseAuto(read(path));
    // Assess
    const { warnings: _none, ...expectedRest } = expected;
    expect(rest).toEqual(expectedRest);
    expect(legend).toBeNull();
    expect(warnings).toEqual([]);
  });
});

const TLS_2_4_48: SslCache = {
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

describe('parseAuto on public captures', () => {
  // One row per file: its server fields, every count and the SSL cache, read from the file by hand.
  const rows: Array<[string, ServerInfo, ModeCounts, SslCache | null]> = [
    [
      'auto-2.2.15-prefork-extoff.txt', // ExtendedStatus Off: no Total Accesses, no Uptime
      server({ busyWorkers: 1, idleWorkers: 7 }),
      counts({ _: 7, W: 1, '.': 248 }),
      null,
    ],
    [
      'auto-2.2.15-prefork-exton.txt', // no header block: uptime from "Uptime"
      server({ uptimeSeconds: 3, totalAccesses: 40, totalKBytes: 163840, busyWorkers: 1, idleWorkers: 7 }),
      counts({ _: 7, W: 1, '.': 248 }),
      null,
    ],
    [
      'auto-2.4.6-prefork-exton.txt',
      server({ uptimeSeconds: 495, totalAccesses: 49, totalKBytes: 71, busyWorkers: 1, idleWorkers: 7 }),
      counts({ _: 7, W: 1, '.': 248 }),
      null,
    ],
    [
      'auto-2.4.10-event-exton.txt',
      server({ uptimeSeconds: 3, totalAccesses: 40, totalKBytes: 163851, busyWorkers: 1, idleWorkers: 49 }),
      counts({ _: 49, W: 1, '.': 100 }),
      null,
    ],
    [
      'auto-2.4.25-event-exton.txt',
      {
        version: 'Apache/2.4.25 (Debian)',
        mpm: 'event',
        currentTime: 'Tuesday, 18-Aug-2026 12:40:22 UTC',
        restartTime: 'Tuesday, 18-Aug-2026 12:40:18 UTC',
        uptimeSeconds: 3,
        totalAccesses: 40,
        totalKBytes: 163851,
        busyWorkers: 1,
        idleWorkers: 49,
        gracefulWorkers: null,
        processes: null,
        stoppingProcesses: null,
      },
      counts({ _: 49, W: 1, '.': 100 }),
      null,
    ],
    [
      'auto-2.4.37rhel8-event-exton-gracefulworkers-backport.txt', // GracefulWorkers before 2.4.58
      {
        version: 'Apache/2.4.37 (Red Hat Enterprise Linux)',
        mpm: 'event',
        currentTime: 'Monday, 13-Apr-2026 07:00:00 UTC',
        restartTime: 'Monday, 13-Apr-2026 06:59:57 UTC',
        uptimeSeconds: 2,
        totalAccesses: 25,
        totalKBytes: 8,
        busyWorkers: 1,
        idleWorkers: 74,
        gracefulWorkers: 0,
        processes: 3,
        stoppingProcesses: 0,
      },
      counts({ _: 74, W: 1, '.': 325 }),
      null,
    ],
    [
      'auto-2.4.48-event-exton-duplicate-busyidle-modqos.txt', // Busy/Idle twice, equal; mod_qos lines
      {
        version: 'Apache/2.4.48 (Fedora) OpenSSL/1.1.1k mod_qos/11.66',
        mpm: 'event',
        currentTime: 'Friday, 09-Jul-2021 16:09:34 CEST',
        restartTime: 'Friday, 09-Jul-2021 16:09:14 CEST',
        uptimeSeconds: 19,
        totalAccesses: 110,
        totalKBytes: 202,
        busyWorkers: 1,
        idleWorkers: 74,
        gracefulWorkers: null,
        processes: 3,
        stoppingProcesses: 0,
      },
      counts({ _: 74, W: 1, '.': 325 }),
      null,
    ],
    [
      'auto-2.4.48-worker-exton-tls-modqos.txt',
      {
        version: 'Apache/2.4.48 (Fedora) OpenSSL/1.1.1k mod_qos/11.66',
        mpm: 'worker',
        currentTime: 'Wednesday, 28-Jul-2021 14:36:55 CEST',
        restartTime: 'Monday, 19-Jul-2021 20:17:11 CEST',
        uptimeSeconds: 757184,
        totalAccesses: 130649,
        totalKBytes: 2611010,
        busyWorkers: 1,
        idleWorkers: 99,
        gracefulWorkers: null,
        processes: null,
        stoppingProcesses: null,
      },
      counts({ _: 99, W: 1, '.': 300 }),
      TLS_2_4_48,
    ],
    [
      'auto-2.4.62-event-exton-graceful-restart.txt', // 20 G slots while GracefulWorkers says 0
      {
        version: 'Apache/2.4.62 (Rocky Linux)',
        mpm: 'event',
        currentTime: 'Tuesday, 18-Aug-2026 12:09:59 UTC',
        restartTime: 'Tuesday, 18-Aug-2026 12:09:50 UTC',
        uptimeSeconds: 9,
        totalAccesses: 1,
        totalKBytes: 1,
        busyWorkers: 1,
        idleWorkers: 74,
        gracefulWorkers: 0,
        processes: 6,
        stoppingProcesses: 3,
      },
      counts({ _: 74, W: 1, G: 20, '.': 305 }),
      null,
    ],
    [
      'auto-2.4.62-prefork-exton-no-cpuload.txt',
      {
        version: 'Apache/2.4.62 (Rocky Linux)',
        mpm: 'prefork',
        currentTime: 'Tuesday, 18-Aug-2026 12:10:59 UTC',
        restartTime: 'Tuesday, 18-Aug-2026 12:10:57 UTC',
        uptimeSeconds: 2,
        totalAccesses: 30,
        totalKBytes: 245768,
        busyWorkers: 1,
        idleWorkers: 4,
        gracefulWorkers: 0,
        processes: null,
        stoppingProcesses: null,
      },
      counts({ _: 4, W: 1, '.': 251 }),
      null,
    ],
    [
      'auto-2.4.66-event-extoff.txt', // ExtendedStatus Off: header block but no Total Accesses
      {
        version: 'Apache/2.4.66 (Debian)',
        mpm: 'event',
        currentTime: 'Monday, 13-Apr-2026 08:54:02 UTC',
        restartTime: 'Monday, 13-Apr-2026 08:53:59 UTC',
        uptimeSeconds: 2,
        totalAccesses: null,
        totalKBytes: null,
        busyWorkers: 1,
        idleWorkers: 49,
        gracefulWorkers: 0,
        processes: 2,
        stoppingProcesses: 0,
      },
      counts({ _: 49, W: 1, '.': 100 }),
      null,
    ],
    [
      'auto-2.4.66-event-exton-waitio.txt',
      {
        version: 'Apache/2.4.66 (Debian)',
        mpm: 'event',
        currentTime: 'Monday, 13-Apr-2026 08:53:15 UTC',
        restartTime: 'Monday, 13-Apr-2026 08:53:12 UTC',
        uptimeSeconds: 2,
        totalAccesses: 25,
        totalKBytes: 7,
        busyWorkers: 1,
        idleWorkers: 49,
        gracefulWorkers: 0,
        processes: 2,
        stoppingProcesses: 0,
      },
      counts({ _: 49, W: 1, '.': 100 }),
      null,
    ],
  ];

  it('has a row for every public ?auto capture', () => {
    const files = readdirSync(new URL('public/', FIXTURES)).filter((f) => f.startsWith('auto-'));
    expect(rows.map(([file]) => file).sort()).toEqual(files.sort());
  });

  it.each(rows)('%s', (file, expectedServer, expectedCounts, expectedSsl) => {
    // Prepare
    const text = read(`public/${file}`);
    const scoreboardLine = /^Scoreboard: (.*)$/m.exec(text)?.[1];
    // Act
    const report = parseAuto(text);
    // Assess
    expect(report.format).toBe('auto');
    expect(report.server).toEqual(expectedServer);
    expect(report.scoreboard).toBe(scoreboardLine);
    expect(report.scoreboard).toHaveLength(Object.values(expectedCounts).reduce((a, b) => a + b, 0));
    expect(report.counts).toEqual(expectedCounts);
    expect(report.slots).toBeNull();
    expect(report.legend).toBeNull();
    expect(report.sslCache).toEqual(expectedSsl);
    expect(report.processes).toBeNull();
    expect(report.warnings).toEqual([]);
  });

  it.each([
    // file, connections (total, wait-io, writing, keep-alive, closing; null: no Conns* keys)
    ['auto-2.2.15-prefork-extoff.txt', null],
    ['auto-2.2.15-prefork-exton.txt', null],
    ['auto-2.4.6-prefork-exton.txt', null],
    ['auto-2.4.10-event-exton.txt', [0, null, 0, 0, 0]], // before ConnsAsyncWaitIO (2.4.63)
    ['auto-2.4.25-event-exton.txt', [0, null, 0, 0, 0]],
    ['auto-2.4.37rhel8-event-exton-gracefulworkers-backport.txt', [0, null, 0, 0, 0]],
    ['auto-2.4.48-event-exton-duplicate-busyidle-modqos.txt', [2, null, 0, 1, 0]],
    ['auto-2.4.48-worker-exton-tls-modqos.txt', null],
    ['auto-2.4.62-event-exton-graceful-restart.txt', [20, null, 20, 0, 0]],
    ['auto-2.4.62-prefork-exton-no-cpuload.txt', null],
    ['auto-2.4.66-event-extoff.txt', [0, 0, 0, 0, 0]],
    ['auto-2.4.66-event-exton-waitio.txt', [0, 0, 0, 0, 0]],
  ] as const)('reads the event MPM connection totals of %s', (file, expected) => {
    // Act
    const { connections } = parseAuto(read(`public/${file}`));
    // Assess
    const [total, asyncWaitIo, asyncWriting, asyncKeepAlive, asyncClosing] = expected ?? [];
    expect(connections).toEqual(
      expected === null ? null : { total, asyncWaitIo, asyncWriting, asyncKeepAlive, asyncClosing },
    );
  });

  it('reads a capture with CRLF line endings exactly as with LF', () => {
    const text = read('public/auto-2.4.48-worker-exton-tls-modqos.txt');
    expect(parseAuto(text.replace(/\n/g, '\r\n'))).toEqual(parseAuto(text));
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
    'CacheTimeLeftOldestAvg: 290',
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
    '',
  ].join('\n');
  const socache = tls
    .replace('TLSSessionCacheStatus', 'ModCacheSocacheStatus')
    .replace(/: \d+/g, ': 999')
    .replace(/: \d+%/g, ': 99%');
  const expectedSsl: SslCache = {
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
    ['a TLS block alone', `${base}${tls}`, expectedSsl],
    ['mod_cache_socache after the TLS block', `${base}${tls}${socache}`, expectedSsl],
    ['mod_cache_socache before the TLS block', `${base}${socache}${tls}`, expectedSsl],
    ['mod_cache_socache alone', `${base}${socache}`, null],
    ['mod_cache_socache lock failure, then TLS', `${base}ModCacheSocacheStatus\nNotAvailable\n${tls}`, expectedSsl],
    ['Cache keys before any section', `${base}CacheType: SHMCB\nCacheSharedMemory: 1\n`, null],
    ['CRLF line endings', `${base}${socache}${tls}`.replace(/\n/g, '\r\n'), expectedSsl],
  ])('sslCache with %s', (_name, text, expected) => {
    const report = parseAuto(text);
    expect(report.sslCache).toEqual(expected);
    expect(report.warnings).toEqual([]);
  });

  it('leaves sslCache null, with a warning, for a DBM session cache', () => {
    const report = parseAuto(
      `${base}TLSSessionCacheStatus\nCacheType: DBM\nCacheMaximumSize: unlimited\nCacheCurrentEntries: 2\n`,
    );
    expect(report.sslCache).toBeNull();
    expect(report.warnings).toEqual([
      'SSL/TLS session cache block lacks sharedMemoryBytes, subcaches, indexesPerSubcache, indexUsagePercent, ' +
        'cacheUsagePercent, stored, expired, discarded, retrieveHits, retrieveMisses, removeHits, removeMisses; not reported',
    ]);
  });

  it.each([
    ['.0898876', 0.0898876],
    ['3.e+5', 300000],
    ['1.5e+6', 1500000],
    ['9.73e-6', 9.73e-6],
    ['12.', 12],
    ['0', 0],
    ['4294967296', 4294967296],
  ])('reads the APR number %s', (printed, value) => {
    const report = parseAuto(`Total Accesses: ${printed}\nScoreboard: _\n`);
    expect(report.server.totalAccesses).toBe(value);
    expect(report.warnings).toEqual([]);
  });

  it.each([
    ['Total Accesses', 'totalAccesses', 'n/a'],
    ['ServerUptimeSeconds', 'uptimeSeconds', '1e'],
    ['BusyWorkers', 'busyWorkers', '3 workers'],
  ] as const)('reads %s "%s" as null, with a warning', (key, field, printed) => {
    const report = parseAuto(`${key}: ${printed}\nScoreboard: _\n`);
    expect(report.server[field]).toBeNull();
    expect(report.warnings).toEqual([`${key}: expected a number, found ${JSON.stringify(printed)}`]);
  });

  it.each([
    ['only Uptime (2.2)', 'Uptime: 3\n', 3],
    ['both, ServerUptimeSeconds first', 'ServerUptimeSeconds: 9\nUptime: 8\n', 9],
    ['both, Uptime first', 'Uptime: 8\nServerUptimeSeconds: 9\n', 9],
    ['ServerUptime empty at 0 s', 'ServerUptimeSeconds: 0\nServerUptime:\n', 0],
    ['neither', 'ServerUptime: 3 seconds\n', null],
  ])('uptimeSeconds from %s', (_name, lines, expected) => {
    const report = parseAuto(`${lines}Scoreboard: _\n`);
    expect(report.server.uptimeSeconds).toBe(expected);
    expect(report.warnings).toEqual([]);
  });

  it.each([
    [
      'equal duplicates (2.4.35-2.4.57 event)',
      'BusyWorkers: 3\nIdleWorkers: 5\nBusyWorkers: 3\nIdleWorkers: 5\n',
      3,
      5,
      [],
    ],
    [
      'a differing BusyWorkers',
      'BusyWorkers: 3\nIdleWorkers: 5\nBusyWorkers: 4\nIdleWorkers: 5\n',
      3,
      5,
      ['BusyWorkers is printed twice with different values (3 and 4); the first, server-wide one is used'],
    ],
    [
      'a differing IdleWorkers (G counted idle per process)',
      'BusyWorkers: 3\nIdleWorkers: 5\nBusyWorkers: 3\nIdleWorkers: 25\n',
      3,
      5,
      ['IdleWorkers is printed twice with different values (5 and 25); the first, server-wide one is used'],
    ],
  ])('keeps the first of %s', (_name, lines, busy, idle, warnings) => {
    const report = parseAuto(`${lines}Scoreboard: WWW_____\n`);
    expect(report.server.busyWorkers).toBe(busy);
    expect(report.server.idleWorkers).toBe(idle);
    expect(report.warnings).toEqual(warnings);
  });

  it.each([
    ['a server name on the first line', 'www.example.test\nScoreboard: _\n', []],
    ['a server name after blank lines', '\n\r\n127.0.0.1\nScoreboard: _\n', []],
    ['mod_qos lines', 'Scoreboard: _\nb;system.load: 0.06\nv;host;443;QS_SrvMaxConn;100[]: 0\n', []],
    [
      'mod_proxy balancer keys',
      'Scoreboard: _\nProxyBalancer[0]Name: balancer://app\nProxyBalancer[0]Worker[0]Status: Init Ok \n',
      [],
    ],
    ['mod_md keys', 'Scoreboard: _\nManagedCertificatesTotal: 1\nManagedCertificatesOK: 0\n', []],
    ['a memcache provider line', 'Scoreboard: _\nTLSSessionCacheStatus\nMemcached server: localhost:11211 [Up]\n', []],
    [
      'junk after the first line',
      'localhost\nsome junk here\nScoreboard: _\n',
      ['line 2 is not "Key: value": "some junk here"'],
    ],
    [
      'a server name on a later line',
      'BusyWorkers: 0\nlocalhost\nScoreboard: _\n',
      ['line 2 is not "Key: value": "localhost"'],
    ],
    ['a first line with spaces', 'not a name\nScoreboard: _\n', ['line 1 is not "Key: value": "not a name"']],
    ['a colon without a space', 'Scoreboard: _\nKey:value\n', ['line 2 is not "Key: value": "Key:value"']],
    [
      'a second scoreboard',
      'Scoreboard: _\nScoreboard: W\n',
      ['line 2 is a second "Scoreboard:" line; the first is used'],
    ],
    ['an unknown mode character', 'Scoreboard: _x_\n', ['scoreboard has characters outside the 11 modes: "x"']],
  ])('warnings for %s', (_name, text, warnings) => {
    const report = parseAuto(text);
    expect(report.scoreboard).toBe(/Scoreboard: (.*)/.exec(text)?.[1]);
    expect(report.warnings).toEqual(warnings);
  });

  it('splits each line at the first ": " only', () => {
    const report = parseAuto('CurrentTime: Sunday, 22-Nov-2026 11:57:37 UTC\nScoreboard: _\n');
    expect(report.server.currentTime).toBe('Sunday, 22-Nov-2026 11:57:37 UTC');
  });

  it('reads a 20,000-position scoreboard', () => {
    const scoreboard = `${'W'.repeat(5000)}${'_'.repeat(5000)}${'.'.repeat(9999)}G`;
    const report = parseAuto(`localhost\nBusyWorkers: 5000\nIdleWorkers: 5000\nScoreboard: ${scoreboard}\n`);
    expect(report.scoreboard).toBe(scoreboard);
    expect(report.counts).toEqual(counts({ W: 5000, _: 5000, '.': 9999, G: 1 }));
  });

  const cut = read('public/auto-2.4.25-event-exton.txt').split('Scoreboard:')[0] as string;
  it.each([
    ['empty input', '', `${EXPECTED_MESSAGE} an empty body`],
    ['blank lines', '\n\r\n', `${EXPECTED_MESSAGE} "\\n\\r\\n" (3 characters)`],
    [
      'a page cut before the scoreboard',
      cut,
      `${EXPECTED_MESSAGE} "localhost\\nServerVersion: Apache/2.4.25 (Debian)\\nServerMPM: e"... (${cut.length} characters)`,
    ],
    [
      'a lighttpd page',
      'Total Accesses: 1\nTotal kBytes: 2\nUptime: 3\nBusyServers: 1\nIdleServers: 3\nScoreboard: h___\n',
      `${EXPECTED_MESSAGE} a lighttpd mod_status page (BusyServers/IdleServers), ` +
        '"Total Accesses: 1\\nTotal kBytes: 2\\nUptime: 3\\nBusyServers: 1\\nI"... (91 characters)',
    ],
    [
      'an HTML page',
      '<html><body>Scoreboard</body></html>',
      `${EXPECTED_MESSAGE} "<html><body>Scoreboard</body></html>" (36 characters)`,
    ],
  ])('rejects %s', (_name, text, message) => {
    let error: unknown;
    try {
      parseAuto(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NotAStatusReportError);
    expect((error as Error).message).toBe(message);
  });
});
