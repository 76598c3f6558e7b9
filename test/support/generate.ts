/**
 * Report generators for property tests and the benchmark: a small model of a server-status report
 * (server fields, scoreboard, slots, SSL cache) and renderers that print it as Apache 2.4.71 does,
 * as the HTML page and the `?auto` page (text dumps: `generateText.ts`). Slots are built from the
 * real rows of the 2.4.71 captures, so the text they carry is what mod_status really prints.
 */
import { readdirSync, readFileSync } from 'node:fs';
import {
  MODE_CHARS,
  type ModeCounts,
  type ServerInfo,
  SLOT_COLUMNS,
  type Slot,
  type SslCache,
  type StatusReport,
} from '../../src/core/report/types.ts';

/** What a report says; `expectedReport` turns it into what a parser must return. */
interface ReportModel {
  /** The h1's server name and the `?auto` page's first line. */
  host: string;
  server: ServerInfo;
  scoreboard: string;
  slots: Slot[];
  sslCache: SslCache | null;
  /** A mod_cache_socache block with the same keys: it must never reach `sslCache`. */
  socache: SslCache | null;
}

const CAPTURES = new URL('../fixtures/apache-2.4.71/', import.meta.url);

const LEGEND = [
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
] as const;

const COLUMNS = SLOT_COLUMNS;

let realRowsCache: readonly Slot[] | null = null;

/** Every slot row of the real 2.4.71 HTML captures (their reference parses), in file order. */
function realRows(): readonly Slot[] {
  if (realRowsCache !== null) return realRowsCache;
  const rows: Slot[] = [];
  for (const scenario of readdirSync(CAPTURES).sort()) {
    const dir = new URL(`${scenario}/`, CAPTURES);
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith('.html.expected.json')) continue;
      const report = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as StatusReport;
      if (report.slots !== null) rows.push(...report.slots);
    }
  }
  realRowsCache = rows;
  return rows;
}

/** Position of a slot on the scoreboard: prefork prints one per process, threaded ones one per thread. */
function srvOf(index: number, mpm: string, threadsPerChild: number): string {
  return mpm === 'prefork' ? `${index}-0` : `${Math.floor(index / threadsPerChild)}-0`;
}

function pidOf(index: number, mode: string, mpm: string, threadsPerChild: number): number | null {
  if (mode === '.') return null; // mod_status prints "-" for a dead slot
  return 16000 + (mpm === 'prefork' ? index : Math.floor(index / threadsPerChild));
}

/** One row per scoreboard position: the real row `template` with this position's srv, pid and mode. */
function placeSlot(template: Slot, index: number, mode: string, mpm: string, threadsPerChild: number): Slot {
  return {
    ...template,
    acc: [...template.acc],
    srv: srvOf(index, mpm, threadsPerChild),
    pid: pidOf(index, mode, mpm, threadsPerChild),
    mode,
  };
}

// A busy server's mix, cycled so every size holds every mode.
const MODE_CYCLE = 'WK_W_CKRW__K.WGLKW_SCKWD_IW__RK.';

/**
 * `n` slots from the real rows, cycled, with varied srv, pid and modes (deterministic).
 *
 * @example
 * generateSlots(1024, 'event').length // 1024
 */
function generateSlots(n: number, mpm = 'prefork', threadsPerChild = 25): Slot[] {
  const rows = realRows();
  return Array.from({ length: n }, (_, i) => {
    const mode = MODE_CYCLE[(i * 7 + Math.floor(i / MODE_CYCLE.length)) % MODE_CYCLE.length] as string;
    return placeSlot(rows[(i * 13) % rows.length] as Slot, i, mode, mpm, threadsPerChild);
  });
}

function countModes(scoreboard: string): ModeCounts {
  const counts = Object.fromEntries(MODE_CHARS.map((c) => [c, 0])) as ModeCounts;
  for (const c of scoreboard) counts[c as keyof ModeCounts]++;
  return counts;
}

const SSL_CACHE_2_4_71: SslCache = {
  type: 'SHMCB',
  sharedMemoryBytes: 512000,
  currentEntries: 350,
  subcaches: 32,
  indexesPerSubcache: 88,
  indexUsagePercent: 12,
  cacheUsagePercent: 15,
  stored: 350,
  replaced: 0,
  expired: 0,
  discarded: 0,
  retrieveHits: 328,
  retrieveMisses: 0,
  removeHits: 0,
  removeMisses: 0,
};

/**
 * A consistent model around `slots`: the scoreboard holds each slot's mode at its position, then
 * `trailingDots` open slots; the worker counts follow the scoreboard.
 */
function modelOf(
  slots: Slot[],
  options: { mpm?: string; trailingDots?: number; sslCache?: SslCache | null } = {},
): ReportModel {
  const scoreboard =
    slots.map((s) => s.mode).join('') + '.'.repeat(options.trailingDots ?? (slots.length === 0 ? 1 : 0));
  const counts = countModes(scoreboard);
  const accesses = slots.reduce((sum, s) => sum + s.acc[2], 0);
  return {
    host: '127.0.0.1',
    server: {
      version: 'Apache/2.4.71 (Debian) OpenSSL/3.0.19',
      mpm: options.mpm ?? 'prefork',
      currentTime: 'Sunday, 22-Nov-2026 11:56:07 UTC',
      restartTime: 'Sunday, 22-Nov-2026 11:56:02 UTC',
      uptimeSeconds: 4,
      totalAccesses: accesses,
      totalKBytes: printableKBytes(accesses * 30),
      busyWorkers: scoreboard.length - counts._ - counts['.'] - counts.S - counts.I - counts.G,
      idleWorkers: counts._,
      gracefulWorkers: counts.G,
      processes: null,
      stoppingProcesses: null,
    },
    scoreboard,
    slots,
    sslCache: options.sslCache === undefined ? SSL_CACHE_2_4_71 : options.sslCache,
    socache: null,
  };
}

/** The event MPM's part of the report for `model`: the process table's rows and its Sum row. */
function expectedEvent(model: ReportModel, auto: boolean): Pick<StatusReport, 'connections' | 'processes'> {
  if (model.server.mpm !== 'event') return { connections: null, processes: null };
  const rows = processRows(model);
  const sum = (rows.pop() as string[]).map(Number);
  const at = (i: number): number => sum[i] as number;
  const connections = {
    total: at(3),
    asyncWaitIo: at(8),
    asyncWriting: at(9),
    asyncKeepAlive: at(10),
    asyncClosing: at(11),
  };
  const processes = rows.map((r) => {
    const n = r.map(Number);
    return {
      slot: n[0] as number,
      pid: n[1] as number,
      stopping: r[2] as string,
      connections: n[3] as number,
      accepting: r[4] === 'yes',
      busyThreads: n[5] as number,
      gracefulThreads: n[6] as number,
      idleThreads: n[7] as number,
      asyncWaitIo: n[8] as number,
      asyncWriting: n[9] as number,
      asyncKeepAlive: n[10] as number,
      asyncClosing: n[11] as number,
    };
  });
  return { connections, processes: auto ? null : processes };
}

/** What `parseReport` must return for `model` rendered in `format`. */
function expectedReport(model: ReportModel, format: 'html' | 'auto' | 'text'): StatusReport {
  const auto = format === 'auto';
  const event = model.server.mpm === 'event';
  return {
    format,
    server: {
      ...model.server,
      processes: event ? processRows(model).length - 1 : null,
      stoppingProcesses: event ? 0 : null,
    },
    scoreboard: model.scoreboard,
    counts: countModes(model.scoreboard),
    slots: auto ? null : model.slots,
    legend: auto ? null : LEGEND.map((e) => ({ ...e })),
    sslCache: model.sslCache,
    ...expectedEvent(model, auto),
    warnings: [],
  };
}

/** `" 1 day 2 hours 4 seconds"`: mod_status's uptime pieces, each with its leading space. */
function uptimeText(seconds: number): string {
  const parts: Array<[number, string]> = [
    [Math.floor(seconds / 86400), 'day'],
    [Math.floor(seconds / 3600) % 24, 'hour'],
    [Math.floor(seconds / 60) % 60, 'minute'],
    [seconds % 60, 'second'],
  ];
  return parts
    .filter(([n]) => n > 0)
    .map(([n, unit]) => ` ${n} ${unit}${n === 1 ? '' : 's'}`)
    .join('');
}

/**
 * `kb` rounded to what the HTML page's Total Traffic prints exactly (whole kB, 0.5 MB or 0.5 GB),
 * so a model's `totalKBytes` reads back the same from every form.
 */
function printableKBytes(kb: number): number {
  const step = kb < 1024 ? 1 : kb < 1024 * 1024 ? 512 : 512 * 1024;
  return Math.round(kb / step) * step;
}

/** KBYTES as the HTML page prints Total Traffic. */
function kbytes(kb: number): string {
  if (kb < 1024) return `${kb} kB`;
  return kb < 1024 * 1024 ? `${(kb / 1024).toFixed(1)} MB` : `${(kb / 1024 / 1024).toFixed(1)} GB`;
}

/** The `<dt>` sentences of the HTML page after the rule, as text (no tags). */
function headerSentences(model: ReportModel): string[] {
  const s = model.server;
  const uptime = s.uptimeSeconds ?? 0;
  const accesses = s.totalAccesses ?? 0;
  const perSecond = [
    uptime > 0 ? `${Math.round(accesses / uptime)} requests/sec - 1.1 GB/second` : '',
    accesses > 0 ? '30.8 kB/request - .232194 ms/request' : '',
  ]
    .filter((p) => p !== '')
    .join(' - ');
  const duration = model.slots.reduce((sum, slot) => sum + (slot.durMs ?? 0), 0);
  return [
    `Current Time: ${s.currentTime}`,
    `Restart Time: ${s.restartTime}`,
    'Parent Server Config. Generation: 1',
    'Parent Server MPM Generation: 0',
    `Server uptime: ${uptimeText(uptime)}`,
    'Server load: 4.67 5.67 3.72',
    `Total accesses: ${accesses} - Total Traffic: ${kbytes(s.totalKBytes ?? 0)} - Total Duration: ${duration}`,
    'CPU Usage: u1.18 s3.61 cu0 cs0 - 120% CPU load',
    perSecond,
    `${s.busyWorkers} requests currently being processed, ${s.gracefulWorkers} workers gracefully restarting, ${s.idleWorkers} idle workers`,
  ];
}

/** The SSL (or mod_cache_socache) prose, one string per `<br>` line; `bold` wraps the values. */
function cacheLines(c: SslCache, bold: (v: string | number) => string): string[] {
  return [
    `cache type: ${bold(c.type)}, shared memory: ${bold(c.sharedMemoryBytes)} bytes, current entries: ${bold(c.currentEntries)}`,
    `subcaches: ${bold(c.subcaches)}, indexes per subcache: ${bold(c.indexesPerSubcache)}`,
    ...(c.currentEntries > 0
      ? [`time left on oldest entries' objects: avg: ${bold(295)} seconds, (range: 294...295)`]
      : []),
    `index usage: ${bold(`${c.indexUsagePercent}%`)}, cache usage: ${bold(`${c.cacheUsagePercent}%`)}`,
    `total entries stored since starting: ${bold(c.stored)}`,
    `total entries replaced since starting: ${bold(c.replaced ?? 0)}`,
    `total entries expired since starting: ${bold(c.expired)}`,
    `total (pre-expiry) entries scrolled out of the cache: ${bold(c.discarded)}`,
    `total retrieves since starting: ${bold(c.retrieveHits)} hit, ${bold(c.retrieveMisses)} miss`,
    `total removes since starting: ${bold(c.removeHits)} hit, ${bold(c.removeMisses)} miss`,
  ];
}

/** The cells of a slot row as text (lynx shows them so): numbers formatted as mod_status does. */
function slotCells(s: Slot): string[] {
  return [
    s.srv,
    s.pid === null ? '-' : String(s.pid),
    s.acc.join('/'),
    s.mode,
    (s.cpu ?? 0).toFixed(2),
    String(s.ss),
    String(s.reqMs),
    String(s.durMs ?? 0),
    s.connKB.toFixed(1),
    s.childMB.toFixed(2),
    s.slotMB.toFixed(2),
    s.client,
    s.protocol ?? '',
    s.vhost,
    s.request,
  ];
}

/** The event MPM's per-process table, as cell rows (header rows excluded). */
function processRows(model: ReportModel): string[][] {
  const pids = [...new Set(model.slots.map((s) => s.pid).filter((p): p is number => p !== null))];
  const rows = pids.map((pid, i) => [String(i), String(pid), 'no', '0', 'yes', '0', '0', '25', '0', '0', '0', '0']);
  rows.push(['Sum', String(pids.length), '0', '0', '\u00a0', '0', '0', String(pids.length * 25), '0', '0', '0', '0']);
  return rows;
}

/** Scoreboard lines of 64 characters, as the `<pre>` and every text dump print them. */
function scoreboardLines(scoreboard: string): string[] {
  const lines: string[] = [];
  for (let i = 0; i < scoreboard.length; i += 64) lines.push(scoreboard.slice(i, i + 64));
  return lines;
}

export type { ReportModel };
export {
  COLUMNS,
  cacheLines,
  expectedReport,
  generateSlots,
  headerSentences,
  LEGEND,
  modelOf,
  placeSlot,
  processRows,
  realRows,
  SSL_CACHE_2_4_71,
  scoreboardLines,
  slotCells,
  uptimeText,
};
