/**
 * Property-based tests of `parseAuto`: any scoreboard and any set of keys, rendered as the `?auto`
 * page (with or without the 2.4.13+ header block, duplicates, hook sections, unknown lines, CRLF),
 * parse back to exactly what was rendered; any other string gives a report or
 * `NotAStatusReportError`, nothing else.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NotAStatusReportError } from '../../../src/core/errors.ts';
import { parseAuto } from '../../../src/core/report/auto.ts';
import {
  type ConnectionTotals,
  MODE_CHARS,
  type ModeCounts,
  type ServerInfo,
  type SslCache,
  type StatusReport,
} from '../../../src/core/report/types.ts';

const NUM_RUNS = 200;

/** A value as mod_status prints it: printable, no surrounding blanks (the parser trims). */
const textArb = fc.stringMatching(/^[!-~]([ -~]{0,38}[!-~])?$/);
const counterArb = fc.oneof(fc.nat(1000), fc.nat(2 ** 32), fc.maxSafeNat());

const serverArb: fc.Arbitrary<ServerInfo> = fc.record({
  version: fc.option(textArb),
  mpm: fc.option(fc.constantFrom('prefork', 'worker', 'event', 'WinNT')),
  currentTime: fc.option(textArb),
  restartTime: fc.option(textArb),
  uptimeSeconds: fc.option(counterArb),
  totalAccesses: fc.option(counterArb),
  totalKBytes: fc.option(counterArb),
  busyWorkers: fc.option(fc.nat(20000)),
  idleWorkers: fc.option(fc.nat(20000)),
  gracefulWorkers: fc.option(fc.nat(20000)),
  processes: fc.option(fc.nat(64)),
  stoppingProcesses: fc.option(fc.nat(64)),
});

/** The event MPM's `Conns*` keys; wait-io only from 2.4.63. */
const connectionsArb: fc.Arbitrary<ConnectionTotals> = fc.record({
  total: fc.nat(100000),
  asyncWaitIo: fc.option(fc.nat(100000)),
  asyncWriting: fc.nat(100000),
  asyncKeepAlive: fc.nat(100000),
  asyncClosing: fc.nat(100000),
});

const cacheArb: fc.Arbitrary<SslCache> = fc.record({
  type: fc.constant('SHMCB'),
  sharedMemoryBytes: counterArb,
  currentEntries: counterArb,
  subcaches: fc.integer({ min: 1, max: 256 }),
  indexesPerSubcache: fc.integer({ min: 1, max: 999 }),
  indexUsagePercent: fc.nat(100),
  cacheUsagePercent: fc.nat(100),
  stored: counterArb,
  replaced: counterArb,
  expired: counterArb,
  discarded: counterArb,
  retrieveHits: counterArb,
  retrieveMisses: counterArb,
  removeHits: counterArb,
  removeMisses: counterArb,
});

/** Lines the parser must ignore: keys it does not read, in APR's number style or free text. */
const unknownLineArb = fc.oneof(
  fc.constantFrom(
    'Load1: -1.00',
    'CPULoad: .0898876',
    'ReqPerSec: 3.e+5',
    'BytesPerSec: 1.5e+6',
    'Server Built: Nov 12 2026 08:58:41',
    'ServerUptime: 1 day 2 hours',
    'ServerUptime:',
    'b;system.load: 0.06',
    'ProxyBalancer[0]Worker[1]Status: Init Ok ',
    'ManagedCertificatesTotal: 1',
  ),
  // Lower-case keys can never be one the parser reads.
  fc.tuple(fc.stringMatching(/^[a-z][A-Za-z0-9;.[\]_]{0,20}$/), textArb).map(([key, value]) => `${key}: ${value}`),
);

interface AutoModel {
  name: string | null;
  server: ServerInfo;
  /** Which uptime keys print `uptimeSeconds`: 2.4.13+ both, 2.2 only `Uptime`. */
  uptimeKeys: 'seconds' | 'uptime' | 'both';
  /** The second Busy/Idle pair of 2.4.35-2.4.57 event pages. */
  duplicate: { busy: number; idle: number } | null;
  scoreboard: string;
  connections: ConnectionTotals | null;
  sslCache: SslCache | null;
  socache: SslCache | null;
  socacheFirst: boolean;
  unknownBefore: string[];
  unknownAfter: string[];
  crlf: boolean;
}

const modelArb: fc.Arbitrary<AutoModel> = fc.record({
  name: fc.option(fc.oneof(fc.domain(), fc.ipV4())),
  server: serverArb,
  uptimeKeys: fc.constantFrom('seconds', 'uptime', 'both'),
  duplicate: fc.option(fc.record({ busy: fc.nat(20000), idle: fc.nat(20000) })),
  scoreboard: fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: fc.constantFrom(...MODE_CHARS), minLength: 1, maxLength: 400 }) },
    { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...MODE_CHARS), minLength: 1, maxLength: 20000 }) },
  ),
  connections: fc.option(connectionsArb),
  sslCache: fc.option(cacheArb),
  socache: fc.option(cacheArb),
  socacheFirst: fc.boolean(),
  unknownBefore: fc.array(unknownLineArb, { maxLength: 5 }),
  unknownAfter: fc.array(unknownLineArb, { maxLength: 5 }),
  crlf: fc.boolean(),
});

function cacheLines(marker: string, c: SslCache): string[] {
  return [
    marker,
    `CacheType: ${c.type}`,
    `CacheSharedMemory: ${c.sharedMemoryBytes}`,
    `CacheCurrentEntries: ${c.currentEntries}`,
    `CacheSubcaches: ${c.subcaches}`,
    `CacheIndexesPerSubcaches: ${c.indexesPerSubcache}`,
    `CacheIndexUsage: ${c.indexUsagePercent}%`,
    `CacheUsage: ${c.cacheUsagePercent}%`,
    `CacheStoreCount: ${c.stored}`,
    `CacheReplaceCount: ${c.replaced}`,
    `CacheExpireCount: ${c.expired}`,
    `CacheDiscardCount: ${c.discarded}`,
    `CacheRetrieveHitCount: ${c.retrieveHits}`,
    `CacheRetrieveMissCount: ${c.retrieveMisses}`,
    `CacheRemoveHitCount: ${c.removeHits}`,
    `CacheRemoveMissCount: ${c.removeMisses}`,
  ];
}

/** The page in mod_status's key order (section 9 of the format notes); null keys are left out. */
function renderAuto(m: AutoModel): string {
  const s = m.server;
  const line = (key: string, value: string | number | null) => (value === null ? [] : [`${key}: ${value}`]);
  const tls = m.sslCache === null ? [] : cacheLines('TLSSessionCacheStatus', m.sslCache);
  const socache = m.socache === null ? [] : cacheLines('ModCacheSocacheStatus', m.socache);
  const lines = [
    ...(m.name === null ? [] : [m.name]),
    ...line('ServerVersion', s.version),
    ...line('ServerMPM', s.mpm),
    ...line('CurrentTime', s.currentTime),
    ...line('RestartTime', s.restartTime),
    ...line('ServerUptimeSeconds', m.uptimeKeys === 'uptime' ? null : s.uptimeSeconds),
    ...line('Total Accesses', s.totalAccesses),
    ...line('Total kBytes', s.totalKBytes),
    ...m.unknownBefore,
    ...line('Uptime', m.uptimeKeys === 'seconds' ? null : s.uptimeSeconds),
    ...line('BusyWorkers', s.busyWorkers),
    ...line('GracefulWorkers', s.gracefulWorkers),
    ...line('IdleWorkers', s.idleWorkers),
    ...line('Processes', s.processes),
    ...line('Stopping', s.stoppingProcesses),
    ...(m.duplicate === null ? [] : [`BusyWorkers: ${m.duplicate.busy}`, `IdleWorkers: ${m.duplicate.idle}`]),
    ...line('ConnsTotal', m.connections?.total ?? null),
    ...line('ConnsAsyncWaitIO', m.connections?.asyncWaitIo ?? null),
    ...line('ConnsAsyncWriting', m.connections?.asyncWriting ?? null),
    ...line('ConnsAsyncKeepAlive', m.connections?.asyncKeepAlive ?? null),
    ...line('ConnsAsyncClosing', m.connections?.asyncClosing ?? null),
    `Scoreboard: ${m.scoreboard}`,
    ...(m.socacheFirst ? [...socache, ...tls] : [...tls, ...socache]),
    ...m.unknownAfter,
  ];
  return lines.map((l) => `${l}${m.crlf ? '\r\n' : '\n'}`).join('');
}

function countOf(scoreboard: string): ModeCounts {
  const counts = Object.fromEntries(MODE_CHARS.map((c) => [c, 0])) as ModeCounts;
  for (const c of scoreboard) counts[c as keyof ModeCounts]++;
  return counts;
}

/** Warnings for a second Busy/Idle pair: only where the printed copy differs from the first. */
function duplicateWarnings(m: AutoModel): string[] {
  if (m.duplicate === null) return [];
  const pairs: Array<[string, number | null, number]> = [
    ['BusyWorkers', m.server.busyWorkers, m.duplicate.busy],
    ['IdleWorkers', m.server.idleWorkers, m.duplicate.idle],
  ];
  return pairs
    .filter(([, first, second]) => first !== null && first !== second)
    .map(
      ([key, first, second]) =>
        `${key} is printed twice with different values (${first} and ${second}); the first, server-wide one is used`,
    );
}

function expectedReport(m: AutoModel): StatusReport {
  // Without a first pair the duplicate is the first the parser sees.
  const server = {
    ...m.server,
    busyWorkers: m.server.busyWorkers ?? m.duplicate?.busy ?? null,
    idleWorkers: m.server.idleWorkers ?? m.duplicate?.idle ?? null,
  };
  return {
    format: 'auto',
    server,
    scoreboard: m.scoreboard,
    counts: countOf(m.scoreboard),
    slots: null,
    legend: null,
    sslCache: m.sslCache,
    connections: m.connections,
    processes: null,
    warnings: duplicateWarnings(m),
  };
}

describe('parseAuto properties', () => {
  it('reads back every rendered page exactly', () => {
    fc.assert(
      fc.property(modelArb, (model) => {
        expect(parseAuto(renderAuto(model))).toEqual(expectedReport(model));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  const fragmentArb = fc.oneof(
    fc.constantFrom(
      '\n',
      '\r\n',
      ': ',
      ':',
      ' ',
      'Scoreboard: ',
      'BusyWorkers: ',
      'IdleWorkers: ',
      'BusyServers: ',
      'Total Accesses: ',
      'ServerUptimeSeconds: ',
      'TLSSessionCacheStatus\n',
      'ModCacheSocacheStatus\n',
      'CacheType: ',
      'CacheUsage: ',
      'NotAvailable',
      '%',
      '.e+5',
    ),
    fc.string({ maxLength: 8 }),
    fc.string({ unit: fc.constantFrom(...MODE_CHARS), maxLength: 30 }),
  );

  it.each([
    ['arbitrary strings', fc.string({ unit: 'binary', maxLength: 300 })],
    ['strings built from ?auto fragments', fc.array(fragmentArb, { maxLength: 60 }).map((parts) => parts.join(''))],
  ])('never throws anything but NotAStatusReportError on %s', (_name, inputArb) => {
    fc.assert(
      fc.property(inputArb, (text) => {
        let report: StatusReport | undefined;
        try {
          report = parseAuto(text);
        } catch (error) {
          expect(error).toBeInstanceOf(NotAStatusReportError);
          return;
        }
        // A report is whole: a scoreboard without blanks whose mode characters are all counted.
        const modeChars = report.scoreboard.replace(/[^_SRWKDCLGI.]/g, '').length;
        expect(report.format).toBe('auto');
        expect(report.scoreboard).not.toMatch(/\s/);
        expect(Object.values(report.counts).reduce((a, b) => a + b, 0)).toBe(modeChars);
      }),
      { numRuns: NUM_RUNS * 2 },
    );
  });
});
