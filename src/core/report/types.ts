/**
 * The parsed server-status report: the JSON contract of `shared/spec/report-json.md`.
 * Field names are part of the contract; add fields, never rename them.
 */

/** The 11 scoreboard mode characters, in the order mod_status prints its key. */
const MODE_CHARS = ['_', 'S', 'R', 'W', 'K', 'D', 'C', 'L', 'G', 'I', '.'] as const;
type ModeChar = (typeof MODE_CHARS)[number];
/** `MODE_CHARS` as a set, for membership tests on any string. */
const MODE_SET: ReadonlySet<string> = new Set(MODE_CHARS);

const REPORT_FORMATS = ['html', 'auto', 'text'] as const;

/** Columns of the per-slot table in the order mod_status prints them (some absent by version). */
const SLOT_COLUMNS = [
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
  'Client',
  'Protocol',
  'VHost',
  'Request',
] as const;
type SlotColumn = (typeof SLOT_COLUMNS)[number];
/** `SLOT_COLUMNS` as a set, for membership tests on any header word. */
const SLOT_COLUMN_SET: ReadonlySet<string> = new Set(SLOT_COLUMNS);
type ReportFormat = (typeof REPORT_FORMATS)[number];

type ModeCounts = Record<ModeChar, number>;

interface ServerInfo {
  version: string | null;
  mpm: string | null;
  currentTime: string | null;
  restartTime: string | null;
  uptimeSeconds: number | null;
  totalAccesses: number | null;
  /**
   * `Total kBytes` of `?auto`; on the HTML page (and its text dumps) `Total Traffic`, which
   * prints MB and GB with one decimal, so there it is known only to 0.05 of that unit.
   */
  totalKBytes: number | null;
  busyWorkers: number | null;
  idleWorkers: number | null;
  gracefulWorkers: number | null;
  /** Event MPM: `Processes`, or the process table's `Sum` row. */
  processes: number | null;
  /** Event MPM: `Stopping`, or the process table's `Sum` row (old generations still finishing). */
  stoppingProcesses: number | null;
}

interface Slot {
  srv: string;
  pid: number | null;
  acc: [number, number, number];
  mode: string;
  cpu: number | null;
  ss: number;
  reqMs: number;
  durMs: number | null;
  connKB: number;
  childMB: number;
  slotMB: number;
  client: string;
  protocol: string | null;
  vhost: string;
  request: string;
  requestTruncated: boolean;
}

interface LegendEntry {
  abbreviation: string;
  meaning: string;
}

interface SslCache {
  type: string;
  sharedMemoryBytes: number;
  currentEntries: number;
  subcaches: number;
  indexesPerSubcache: number;
  indexUsagePercent: number;
  cacheUsagePercent: number;
  stored: number;
  replaced: number | null;
  expired: number;
  discarded: number;
  retrieveHits: number;
  retrieveMisses: number;
  removeHits: number;
  removeMisses: number;
}

/** The event MPM's connection totals (`Conns*` keys, or the process table's `Sum` row). */
interface ConnectionTotals {
  total: number | null;
  asyncWaitIo: number | null;
  asyncWriting: number | null;
  asyncKeepAlive: number | null;
  asyncClosing: number | null;
}

/** One row of the event MPM's per-process table; `null` where the page has no such column. */
interface ProcessRow {
  slot: number | null;
  pid: number | null;
  stopping: string | null;
  connections: number | null;
  accepting: boolean | null;
  busyThreads: number | null;
  gracefulThreads: number | null;
  idleThreads: number | null;
  asyncWaitIo: number | null;
  asyncWriting: number | null;
  asyncKeepAlive: number | null;
  asyncClosing: number | null;
}

interface StatusReport {
  format: ReportFormat;
  server: ServerInfo;
  scoreboard: string;
  counts: ModeCounts;
  slots: Slot[] | null;
  legend: LegendEntry[] | null;
  sslCache: SslCache | null;
  connections: ConnectionTotals | null;
  processes: ProcessRow[] | null;
  warnings: string[];
}

export type {
  ConnectionTotals,
  LegendEntry,
  ModeChar,
  ModeCounts,
  ProcessRow,
  ReportFormat,
  ServerInfo,
  Slot,
  SlotColumn,
  SslCache,
  StatusReport,
};
export { MODE_CHARS, MODE_SET, REPORT_FORMATS, SLOT_COLUMN_SET, SLOT_COLUMNS };
