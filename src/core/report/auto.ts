/**
 * The `?auto` page: `Key: value` lines, optionally after a bare server-name line (2.4.13+), with
 * sections opened by key-less lines (`TLSSessionCacheStatus`, `ModCacheSocacheStatus`) whose
 * `Cache*` keys must not be mixed up.
 */
import { describeInput, NotAStatusReportError } from '../errors.ts';
import {
  countModes,
  emptyServer,
  emptySslCacheDraft,
  finishSslCache,
  parseAprNumber,
  type SslCacheDraft,
} from './common.ts';
import type { ServerInfo, SslCache, StatusReport } from './types.ts';

const EXPECTED = 'an Apache server-status ?auto page with a "Scoreboard:" line';

const SECTIONS = { main: 'main', tls: 'tls', other: 'other' } as const;
type Section = (typeof SECTIONS)[keyof typeof SECTIONS];

// ?auto keys of the SSL/TLS session cache and the contract fields they fill.
const SSL_KEYS: Record<string, keyof SslCache> = {
  CacheType: 'type',
  CacheSharedMemory: 'sharedMemoryBytes',
  CacheCurrentEntries: 'currentEntries',
  CacheSubcaches: 'subcaches',
  CacheIndexesPerSubcaches: 'indexesPerSubcache',
  CacheIndexUsage: 'indexUsagePercent',
  CacheUsage: 'cacheUsagePercent',
  CacheStoreCount: 'stored',
  CacheReplaceCount: 'replaced',
  CacheExpireCount: 'expired',
  CacheDiscardCount: 'discarded',
  CacheRetrieveHitCount: 'retrieveHits',
  CacheRetrieveMissCount: 'retrieveMisses',
  CacheRemoveHitCount: 'removeHits',
  CacheRemoveMissCount: 'removeMisses',
};

// Counter keys printed once per page; the event MPM (2.4.35-2.4.57) repeats Busy/Idle per process.
const WORKER_KEYS: Record<string, keyof ServerInfo> = {
  BusyWorkers: 'busyWorkers',
  IdleWorkers: 'idleWorkers',
  GracefulWorkers: 'gracefulWorkers',
};

function numberOrNull(value: string): number | null {
  return parseAprNumber(value.endsWith('%') ? value.slice(0, -1) : value);
}

/**
 * Parse the `?auto` page.
 *
 * @example
 * parseAuto('127.0.0.1\nBusyWorkers: 1\nIdleWorkers: 4\nScoreboard: W____\n').counts._ // 4
 * @throws NotAStatusReportError when there is no `Scoreboard:` line
 */
function parseAuto(text: string): StatusReport {
  const server = emptyServer();
  const warnings: string[] = [];
  const ssl: SslCacheDraft = emptySslCacheDraft();
  let scoreboard: string | null = null;
  let section: Section = SECTIONS.main;
  let uptimeFallback: number | null = null;
  let lighttpd = false;
  const seenWorkerKeys = new Set<string>();

  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    const sep = line.indexOf(': ');
    if (sep < 0) {
      const bare = line.trim();
      if (bare === 'TLSSessionCacheStatus') section = SECTIONS.tls;
      else if (bare === 'ModCacheSocacheStatus') section = SECTIONS.other;
      else if (bare.endsWith(':'))
        continue; // a key with an empty value, e.g. "ServerUptime:" at 0 s
      else if (i > 0 || bare.includes(' '))
        warnings.push(`line ${i + 1} is not "Key: value": ${JSON.stringify(bare.slice(0, 80))}`);
      continue;
    }
    const key = line.slice(0, sep);
    const value = line.slice(sep + 2).trim();
    if (key === 'Scoreboard') {
      scoreboard = value.replace(/\s+/g, '');
      section = SECTIONS.main;
      continue;
    }
    if (key.startsWith('Cache')) {
      const field = SSL_KEYS[key];
      if (section === SECTIONS.tls && field !== undefined) {
        (ssl as Record<string, string | number | null>)[field] = field === 'type' ? value : numberOrNull(value);
      }
      continue;
    }
    const workerField = WORKER_KEYS[key];
    if (workerField !== undefined) {
      const n = numberOrNull(value);
      if (seenWorkerKeys.has(key)) {
        if (n !== server[workerField]) {
          warnings.push(
            `${key} is printed twice with different values (${server[workerField]} and ${n}); the first, server-wide one is used`,
          );
        }
      } else {
        seenWorkerKeys.add(key);
        (server as unknown as Record<string, number | null>)[workerField] = n;
      }
      continue;
    }
    switch (key) {
      case 'ServerVersion':
        server.version = value;
        break;
      case 'ServerMPM':
        server.mpm = value;
        break;
      case 'CurrentTime':
        server.currentTime = value;
        break;
      case 'RestartTime':
        server.restartTime = value;
        break;
      case 'ServerUptimeSeconds':
        server.uptimeSeconds = numberOrNull(value);
        break;
      case 'Uptime':
        uptimeFallback = numberOrNull(value);
        break;
      case 'Total Accesses':
        server.totalAccesses = numberOrNull(value);
        break;
      case 'BusyServers':
      case 'IdleServers':
        lighttpd = true;
        break;
    }
  }

  if (lighttpd && !seenWorkerKeys.has('BusyWorkers')) {
    throw new NotAStatusReportError(
      EXPECTED,
      `a lighttpd mod_status page (BusyServers/IdleServers), ${describeInput(text)}`,
    );
  }
  if (scoreboard === null) throw new NotAStatusReportError(EXPECTED, describeInput(text));
  if (server.uptimeSeconds === null) server.uptimeSeconds = uptimeFallback;

  return {
    format: 'auto',
    server,
    scoreboard,
    counts: countModes(scoreboard, warnings),
    slots: null,
    legend: null,
    sslCache: finishSslCache(ssl, warnings),
    warnings,
  };
}

export { parseAuto };
