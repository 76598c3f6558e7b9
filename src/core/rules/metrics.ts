/**
 * The metric catalogue: every name a rule may use, what it counts, and what it needs from the report.
 */
import type { ConnectionTotals, ModeChar } from '../report/types.ts';

/** Slot metrics and the scoreboard modes they count (contract: `slots_busy` is `S R W K D C L I`). */
const SLOT_MODES = {
  slots_idle: '_',
  slots_starting: 'S',
  slots_reading: 'R',
  slots_sending: 'W',
  slots_keepalive: 'K',
  slots_dns: 'D',
  slots_closing: 'C',
  slots_logging: 'L',
  slots_graceful: 'G',
  slots_cleanup: 'I',
  slots_open: '.',
  slots_busy: 'SRWKDCLI',
  // Positions that can take a connection now or after a spawn: idle workers plus open slots.
  slots_free: '_.',
  slots_total: '_SRWKDCLGI.',
} as const satisfies Record<string, string>;

const BUSY_MODES = SLOT_MODES.slots_busy;
/** `BUSY_MODES` by character code (below 128): 1 where busy, for a walk over a thousand slots' mode codes. */
const BUSY_CODES = Uint8Array.from({ length: 128 }, (_, code) =>
  BUSY_MODES.includes(String.fromCharCode(code)) ? 1 : 0,
);

/** Event MPM metrics and the `connections` field each reads (contract: `report-json.md`). */
const CONNECTION_METRICS = {
  conns_total: 'total',
  async_wait_io: 'asyncWaitIo',
  async_writing: 'asyncWriting',
  async_keepalive: 'asyncKeepAlive',
  async_closing: 'asyncClosing',
} as const satisfies Record<string, keyof ConnectionTotals>;

interface MetricSpec {
  name: string;
  /** What the value is, for people (docs, notifications). */
  description: string;
  /** False only for `target_up`: every other metric needs a fetched and parsed report. */
  needsReport: boolean;
  /** Modes of the slots the metric counts, so a notification can list the offenders; null if none. */
  modes: string | null;
  /** Whether results carry a sample count, so that `minSamples` applies. */
  samples: boolean;
}

function spec(name: string, description: string, modes: string | null, samples = false): MetricSpec {
  return { name, description, needsReport: name !== 'target_up', modes, samples };
}

const CATALOGUE: ReadonlyMap<string, MetricSpec> = new Map(
  [
    ...Object.entries(SLOT_MODES).flatMap(([name, modes]) => [
      spec(name, `scoreboard positions in ${[...modes].join(' ')}`, modes),
      spec(`${name}_ratio`, `${name} divided by slots_total`, modes, true),
    ]),
    spec(
      'ssl_cache_miss_ratio',
      'SSL session cache retrieve misses / (hits + misses) since the last evaluation',
      null,
      true,
    ),
    ...Object.entries(CONNECTION_METRICS).map(([name, field]) =>
      spec(name, `the event MPM's connections.${field} (listener-held connections, in no worker slot)`, null),
    ),
    spec(
      'connections_closing',
      'every connection in lingering close: slots_closing plus async_closing (0 on prefork and worker)',
      SLOT_MODES.slots_closing,
    ),
    spec(
      'minutes_to_exhaustion',
      'minutes until no slot is free (slots_free reaches 0), from a least-squares line through the free slots of the last 10 minutes',
      SLOT_MODES.slots_free,
      true,
    ),
    spec('processes_stopping', 'old-generation processes still finishing after a graceful restart (event)', null),
    spec('ssl_cache_usage_ratio', 'SSL session cache usage percent / 100', null),
    spec('target_up', '1 when the report was fetched and parsed, 0 after downAfterFailures failures', null),
    spec('requests_per_second', 'Total accesses delta / server uptime delta since the last evaluation', null),
    spec(
      'bytes_per_second',
      'Total kBytes delta x 1024 / server uptime delta since the last evaluation (HTML: Total Traffic, as precise as printed)',
      null,
    ),
    spec('oldest_busy_request_seconds', 'largest SS among slots in W (sending reply): a stuck request', 'W'),
    spec('top_client_busy_slots', 'busy slots held by the single busiest client', BUSY_MODES),
    spec(
      'top_client_busy_ratio',
      'top_client_busy_slots divided by the busy slots of the slot table',
      BUSY_MODES,
      true,
    ),
    spec('top_vhost_busy_slots', 'busy slots serving the single busiest virtual host', BUSY_MODES),
    spec('top_vhost_busy_ratio', 'top_vhost_busy_slots divided by the busy slots of the slot table', BUSY_MODES, true),
  ].map((s) => [s.name, s]),
);

/** The catalogue entry of a metric, or undefined when the name is not in it. */
function metricSpec(name: string): MetricSpec | undefined {
  return CATALOGUE.get(name);
}

/** Every metric name of the catalogue, for "did you mean ...?". */
const METRIC_NAMES: readonly string[] = [...CATALOGUE.keys()];

/** Whether `mode` (one scoreboard character) is among `modes`. */
function countsMode(modes: string, mode: string): mode is ModeChar {
  return mode.length === 1 && modes.includes(mode);
}

export type { MetricSpec };
export { BUSY_CODES, BUSY_MODES, CONNECTION_METRICS, countsMode, METRIC_NAMES, metricSpec, SLOT_MODES };
