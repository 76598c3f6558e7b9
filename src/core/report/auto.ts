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
import { readEventAutoKey } from './eventProcesses.ts';
import type { ConnectionTotals, ServerInfo, SslCache, StatusReport } from './types.ts';

const EXPECTED = 'an Apache server-status ?auto page with a "Scoreboard:" line';

const SECTIONS = { main: 'main', tls: 'tls', other: 'other' } as const;
type Section = (typeof SECTIONS)[keyof typeof SECTIONS];

// Key-less lines that open a status-hook section, and the section each opens.
const SECTION_MARKERS: Record<string, Section> = {
  TLSSessionCacheStatus: SECTIONS.tls,
  ModCacheSocacheStatus: SECTIONS.other,
};

// Key-less lines a hook prints inside its section: mod_cache_socache when its lock fails.
const KNOWN_BARE_LINES: ReadonlySet<string> = new Set(['NotAvailable']);

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

/** What one pass over the lines has gathered so far. */
interface AutoState {
  server: ServerInfo;
  ssl: SslCacheDraft;
  warnings: string[];
  section: Section;
  scoreboard: string | null;
  uptimeFallback: number | null;
  seenWorkerKeys: Set<string>;
  lighttpd: boolean;
  /** The event MPM's `Conns*` keys, once one is seen. */
  event: { connections: ConnectionTotals | null };
}

/** A number, or a percentage (`12%`); `null` with a warning when the value is neither. */
function readNumber(key: string, value: string, warnings: string[]): number | null {
  const n = parseAprNumber(value.endsWith('%') ? value.slice(0, -1) : value);
  if (n === null) warnings.push(`${key}: expected a number, found ${JSON.stringify(value.slice(0, 40))}`);
  return n;
}

function readWorkerKey(state: AutoState, key: string, field: keyof ServerInfo, value: string): void {
  const n = readNumber(key, value, state.warnings);
  if (!state.seenWorkerKeys.has(key)) {
    state.seenWorkerKeys.add(key);
    (state.server as unknown as Record<string, number | null>)[field] = n;
  } else if (n !== state.server[field]) {
    // The second copy sums per-process counts (idle of every generation): not the server-wide figure.
    state.warnings.push(
      `${key} is printed twice with different values (${state.server[field]} and ${n}); the first, server-wide one is used`,
    );
  }
}

function readKeyValue(state: AutoState, key: string, value: string): void {
  const { server, warnings } = state;
  if (key.startsWith('Cache')) {
    const field = SSL_KEYS[key];
    if (state.section === SECTIONS.tls && field !== undefined) {
      (state.ssl as Record<string, string | number | null>)[field] =
        field === 'type' ? value : readNumber(key, value, warnings);
    }
    return;
  }
  if (readEventAutoKey(key, () => readNumber(key, value, warnings), server, state.event)) return;
  const workerField = WORKER_KEYS[key];
  if (workerField !== undefined) {
    readWorkerKey(state, key, workerField, value);
    return;
  }
  switch (key) {
    case 'ServerVersion':
      server.version = value;
      return;
    case 'ServerMPM':
      server.mpm = value;
      return;
    case 'CurrentTime':
      server.currentTime = value;
      return;
    case 'RestartTime':
      server.restartTime = value;
      return;
    case 'ServerUptimeSeconds':
      server.uptimeSeconds = readNumber(key, value, warnings);
      return;
    case 'Uptime':
      // 2.2 and 2.4.0-2.4.12 print only this one (ExtendedStatus On); later ones print both.
      state.uptimeFallback = readNumber(key, value, warnings);
      return;
    case 'Total Accesses':
      server.totalAccesses = readNumber(key, value, warnings);
      return;
    case 'Total kBytes':
      server.totalKBytes = readNumber(key, value, warnings);
      return;
    case 'BusyServers':
    case 'IdleServers':
      state.lighttpd = true;
      return;
  }
}

/** A line without `": "`: a section marker, the server name, an empty value, or something odd. */
function readBareLine(state: AutoState, line: string, lineNumber: number, isFirst: boolean): void {
  const section = SECTION_MARKERS[line];
  if (section !== undefined) {
    state.section = section;
    return;
  }
  // "ServerUptime:" at 0 s has an empty value; the server name (2.4.13+) is one word on the first line.
  if (line.endsWith(':') || KNOWN_BARE_LINES.has(line) || (isFirst && !line.includes(' '))) return;
  state.warnings.push(`line ${lineNumber} is not "Key: value": ${JSON.stringify(line.slice(0, 80))}`);
}

/**
 * Parse the `?auto` page (`/server-status?auto`) of Apache httpd 2.2 to 2.4.71.
 *
 * Keys it does not know (Load1, ProxyBalancer, mod_md, mod_qos `b;...`) are ignored; keys
 * the page does not print are `null` in the result, never 0.
 *
 * @example
 * parseAuto('127.0.0.1\nBusyWorkers: 1\nIdleWorkers: 4\nScoreboard: W____\n').counts._ // 4
 * @throws NotAStatusReportError when there is no `Scoreboard:` line, or the page is lighttpd's
 */
function parseAuto(text: string): StatusReport {
  const state: AutoState = {
    server: emptyServer(),
    ssl: emptySslCacheDraft(),
    warnings: [],
    section: SECTIONS.main,
    scoreboard: null,
    uptimeFallback: null,
    seenWorkerKeys: new Set(),
    lighttpd: false,
    event: { connections: null },
  };
  let seenContent = false;

  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    const isFirst = !seenContent;
    seenContent = true;
    const sep = line.indexOf(': ');
    if (sep < 0) {
      readBareLine(state, line.trim(), i + 1, isFirst);
      continue;
    }
    const key = line.slice(0, sep);
    const value = line.slice(sep + 2).trim();
    if (key !== 'Scoreboard') {
      readKeyValue(state, key, value);
    } else if (state.scoreboard === null) {
      state.scoreboard = value.replace(/\s+/g, '');
      state.section = SECTIONS.main;
    } else {
      state.warnings.push(`line ${i + 1} is a second "Scoreboard:" line; the first is used`);
    }
  }

  if (state.lighttpd && !state.seenWorkerKeys.has('BusyWorkers')) {
    throw new NotAStatusReportError(
      EXPECTED,
      `a lighttpd mod_status page (BusyServers/IdleServers), ${describeInput(text)}`,
    );
  }
  if (state.scoreboard === null) throw new NotAStatusReportError(EXPECTED, describeInput(text));
  const { server, warnings, scoreboard } = state;
  if (server.uptimeSeconds === null) server.uptimeSeconds = state.uptimeFallback;

  return {
    format: 'auto',
    server,
    scoreboard,
    counts: countModes(scoreboard, warnings),
    slots: null,
    legend: null,
    sslCache: finishSslCache(state.ssl, warnings),
    connections: state.event.connections,
    processes: null,
    warnings,
  };
}

export { parseAuto };
