/**
 * Computes the catalogue's metrics for one observation. Counter metrics use the delta since the
 * previous good report of the target and detect restarts (counters or uptime going down).
 */
import { ipv4Key } from '../report/ipv4.ts';
import { type SlotBrief, slotBriefOf } from '../report/lazySlots.ts';
import type { ModeChar, StatusReport } from '../report/types.ts';
import { AddressTally } from './addressTally.ts';
import type { ForecastResult } from './forecast.ts';
import { BUSY_CODES, CONNECTION_METRICS, SLOT_MODES } from './metrics.ts';
import type { Counters, Observation } from './types.ts';

/**
 * A metric's value (with its sample count where `minSamples` applies), or why there is none;
 * `unbounded`: no finite value because the quantity is beyond any bound (a forecast that sees no
 * exhaustion), so a rule's condition is judged as for +infinity rather than left unevaluated.
 */
type MetricResult =
  | { ok: true; value: number; samples: number | null }
  | { ok: false; reason: string; unbounded?: boolean };

interface MetricInput {
  observation: Observation;
  /** Counters of the previous good report of this target; null on the first evaluation. */
  previous: Counters | null;
  /** The target counts as down once `consecutiveFailures` reaches `downAfterFailures`. */
  consecutiveFailures: number;
  downAfterFailures: number;
  /**
   * The target's declared capacity (MaxRequestWorkers), or null: the printed positions then. With
   * it, ratios divide by it and free slots are the capacity less the positions in use.
   */
  maxRequestWorkers?: number | null;
  /**
   * Which of the slot table's per-text counts to take (`top_client_*`, `top_vhost_*`); both when
   * absent. Counting a thousand clients or vhosts is most of what the metrics cost a 1,024-slot
   * page, so a caller that knows no one reads one leaves it out: it is then `NOT_COUNTED`.
   */
  counts?: SlotCounts;
}

/** Whether to count the busy slots per client and per vhost. */
interface SlotCounts {
  client: boolean;
  vhost: boolean;
}

/** The reason of a `top_<key>_*` metric left out by `MetricInput.counts`. */
const NOT_COUNTED = 'not counted: no rule of this target reads it';

/** The per-text counts the metrics named `names` need (`top_client_*`, `top_vhost_*`, as `topShare` names them). */
function countsFor(names: readonly string[]): SlotCounts {
  const reads = (key: 'client' | 'vhost') => names.some((name) => name.startsWith(`top_${key}_`));
  return { client: reads('client'), vhost: reads('vhost') };
}

const NO_SLOT_TABLE = 'the report has no per-slot table (?auto or ExtendedStatus Off)';
const NO_SSL = 'the report has no SSL/TLS session cache block';
const NOT_EVENT = 'the server does not run the event MPM';
const NO_CONNECTIONS = 'the report has no event MPM connection counts (Conns* keys or the process table)';

function value(v: number, samples: number | null = null): MetricResult {
  return { ok: true, value: v, samples };
}

function missing(reason: string): MetricResult {
  return { ok: false, reason };
}

/** The counters of a report, as kept in the target's state for the next deltas. */
function countersOf(report: StatusReport): Counters {
  return {
    totalAccesses: report.server.totalAccesses,
    totalKBytes: report.server.totalKBytes,
    uptimeSeconds: report.server.uptimeSeconds,
    sslRetrieveHits: report.sslCache?.retrieveHits ?? null,
    sslRetrieveMisses: report.sslCache?.retrieveMisses ?? null,
  };
}

function wentDown(now: number | null, before: number | null): boolean {
  return now !== null && before !== null && now < before;
}

/** A restart resets every counter: uptime or total accesses going down shows it. */
function restarted(now: Counters, before: Counters): boolean {
  return wentDown(now.uptimeSeconds, before.uptimeSeconds) || wentDown(now.totalAccesses, before.totalAccesses);
}

function slotMetrics(report: StatusReport, capacity: number | null, out: Map<string, MetricResult>): void {
  // Ratios divide by the declared capacity where there is one: prefork prints ServerLimit positions.
  const total = capacity ?? report.scoreboard.length;
  const count = (modes: string) => [...modes].reduce((sum, m) => sum + report.counts[m as ModeChar], 0);
  const inUse = report.scoreboard.length - count(SLOT_MODES.slots_free);
  for (const [name, modes] of Object.entries(SLOT_MODES)) {
    const n = capacity !== null && name === 'slots_free' ? Math.max(0, capacity - inUse) : count(modes);
    out.set(name, value(n));
    out.set(`${name}_ratio`, total > 0 ? value(n / total, total) : missing('the scoreboard is empty'));
  }
}

/** Whether the report comes from an event MPM server (the MPM line, or connection data 2.4.0-2.4.5 print without one). */
function isEventReport(report: StatusReport): boolean {
  return report.server.mpm === 'event' || report.connections !== null || report.processes !== null;
}

/** The event MPM's listener-held connections, and every connection in lingering close. */
function connectionMetrics(report: StatusReport, out: Map<string, MetricResult>): void {
  const connections = report.connections;
  const event = isEventReport(report);
  for (const [name, field] of Object.entries(CONNECTION_METRICS)) {
    const n = connections?.[field];
    if (n === undefined) out.set(name, missing(event ? NO_CONNECTIONS : `no ${field} count: ${NOT_EVENT}`));
    else out.set(name, n === null ? missing(`the report has no ${field} count (older httpd)`) : value(n));
  }
  const stopping = report.server.stoppingProcesses;
  out.set(
    'processes_stopping',
    stopping !== null
      ? value(stopping)
      : missing(event ? 'the report has no Stopping count (httpd before 2.4.25)' : `no Stopping count: ${NOT_EVENT}`),
  );
  // Prefork and worker keep no connection outside a slot: their async part is a measured 0.
  const closing = report.counts.C;
  const async = connections?.asyncClosing ?? null;
  if (!event) out.set('connections_closing', value(closing));
  else if (async === null) {
    out.set('connections_closing', missing('an event MPM report without its async closing count: only part is known'));
  } else out.set('connections_closing', value(closing + async));
}

/** What the per-slot table says, read in one pass over its slots. */
interface SlotFigures {
  /** Slots in a busy mode. */
  busy: number;
  /** Busy slots of the single busiest client, and of the single busiest vhost. */
  topClient: number;
  topVhost: number;
  /** The longest `ss` of a slot sending a reply (W); 0 when none is. */
  oldestSending: number;
}

/** Add one to `key`'s count; the new count. */
function bump(counts: Map<string, number>, key: string): number {
  const n = (counts.get(key) ?? 0) + 1;
  counts.set(key, n);
  return n;
}

/**
 * Count slot `i`'s client (nothing for ''); its count so far. An IPv4 address printed the canonical
 * way (most clients) is counted by its number, read from the page without slicing a string; any
 * other client by its text.
 */
function countClient(slots: SlotBrief, i: number, addresses: AddressTally, clients: Map<string, number>): number {
  let address = slots.clientAddress(i);
  if (address >= 0) return addresses.add(address);
  const client = slots.client(i);
  if (client === '') return 0;
  // The same address may come as text (an entity in it, a tag around part of it, built slots).
  address = ipv4Key(client, 0, client.length);
  return address >= 0 ? addresses.add(address) : bump(clients, client);
}

const SENDING = 'W'.charCodeAt(0);

/**
 * One walk over the slots for every figure the table gives: no busy-slot array, no second walk,
 * and no slot built where the parse left them pending (`slotBriefOf`). Slots still reading a
 * request have no vhost yet: they count as busy but belong to no vhost.
 */
function slotFigures(slots: SlotBrief, counts: SlotCounts): SlotFigures {
  const addresses = new AddressTally(slots.count);
  const clients = new Map<string, number>();
  const vhosts = new Map<string, number>();
  const figures: SlotFigures = { busy: 0, topClient: 0, topVhost: 0, oldestSending: 0 };
  for (let i = 0; i < slots.count; i++) {
    const mode = slots.modeCode(i);
    if (mode === SENDING && slots.ss(i) > figures.oldestSending) figures.oldestSending = slots.ss(i);
    if (BUSY_CODES[mode] !== 1) continue;
    figures.busy++;
    if (counts.client) figures.topClient = Math.max(figures.topClient, countClient(slots, i, addresses, clients));
    if (counts.vhost) {
      const vhost = slots.vhost(i);
      if (vhost !== '') figures.topVhost = Math.max(figures.topVhost, bump(vhosts, vhost));
    }
  }
  return figures;
}

/** `top_<key>_busy_slots` and its ratio to the busy slots, or why not (no slot table). */
function topShare(
  figures: SlotFigures | null,
  key: 'client' | 'vhost',
  counted: boolean,
  out: Map<string, MetricResult>,
): void {
  if (figures === null || !counted) {
    const reason = counted ? NO_SLOT_TABLE : NOT_COUNTED;
    out.set(`top_${key}_busy_slots`, missing(reason));
    out.set(`top_${key}_busy_ratio`, missing(reason));
    return;
  }
  const top = key === 'client' ? figures.topClient : figures.topVhost;
  out.set(`top_${key}_busy_slots`, value(top));
  out.set(
    `top_${key}_busy_ratio`,
    figures.busy > 0 ? value(top / figures.busy, figures.busy) : missing('no busy slots in the per-slot table'),
  );
}

function oldestRequest(figures: SlotFigures | null): MetricResult {
  if (figures === null) return missing(NO_SLOT_TABLE);
  // No slot in W means no request is stuck: 0 is a measured value here, not a stand-in.
  return value(figures.oldestSending);
}

function sslMissRatio(report: StatusReport, now: Counters, before: Counters | null): MetricResult {
  const cache = report.sslCache;
  if (cache === null) return missing(NO_SSL);
  let hits = cache.retrieveHits;
  let misses = cache.retrieveMisses;
  const windowed =
    before !== null &&
    before.sslRetrieveHits !== null &&
    before.sslRetrieveMisses !== null &&
    !restarted(now, before) &&
    hits >= before.sslRetrieveHits &&
    misses >= before.sslRetrieveMisses;
  if (windowed) {
    hits -= before.sslRetrieveHits as number;
    misses -= before.sslRetrieveMisses as number;
  }
  const retrieves = hits + misses;
  if (retrieves === 0) return missing(`no SSL session cache retrieves ${windowed ? 'in the window' : 'since start'}`);
  return value(misses / retrieves, retrieves);
}

/** A per-second rate of a since-start counter: what it reads (`count`) and why it may be absent. */
interface CounterRate {
  /** The counter as mod_status names it. */
  label: string;
  count: (counters: Counters) => number | null | undefined;
  /** What one unit of the counter is worth in the rate's unit (1,024 bytes a kB). */
  scale: number;
  absent: string;
}

/** Requests per second from `Total accesses`. */
const ACCESS_RATE: CounterRate = {
  label: 'Total accesses',
  count: (c) => c.totalAccesses,
  scale: 1,
  absent: 'the report has no Total accesses (ExtendedStatus Off)',
};

/** Bytes per second from `Total kBytes` (the HTML page's `Total Traffic`). */
const BYTE_RATE: CounterRate = {
  label: 'Total kBytes',
  count: (c) => c.totalKBytes,
  scale: 1024,
  absent: 'the report has no Total kBytes or Total Traffic (ExtendedStatus Off)',
};

/**
 * The counter's delta over the server uptime's delta since the previous counters; after a restart,
 * its total over the uptime.
 */
function counterRate(rate: CounterRate, now: Counters, before: Counters | null): MetricResult {
  const count = rate.count(now) ?? null;
  if (count === null) return missing(rate.absent);
  if (now.uptimeSeconds === null) return missing('the report has no server uptime');
  const previous = before === null ? null : (rate.count(before) ?? null);
  if (before === null || previous === null || before.uptimeSeconds === null) {
    return missing('no previous counters to take a rate from (first evaluation)');
  }
  if (restarted(now, before)) {
    // Since a restart the window is the uptime itself.
    if (now.uptimeSeconds <= 0) return missing('the server restarted less than a second ago');
    return value((count * rate.scale) / now.uptimeSeconds);
  }
  const elapsed = now.uptimeSeconds - before.uptimeSeconds;
  if (elapsed <= 0) return missing('no server uptime elapsed since the previous evaluation');
  // Only traffic can: ?auto's exact kB, then the HTML page's rounded MB or GB of the same server.
  if (count < previous)
    return missing(
      `${rate.label} went down without a restart (a rounded Total Traffic read after an exact Total kBytes)`,
    );
  return value(((count - previous) * rate.scale) / elapsed);
}

/**
 * Every metric of the catalogue for one observation.
 *
 * @example
 * computeMetrics({ observation: { kind: 'report', report }, previous: null,
 *   consecutiveFailures: 0, downAfterFailures: 2 }).get('slots_idle') // { ok: true, value: 5, samples: null }
 */
function computeMetrics(input: MetricInput): Map<string, MetricResult> {
  const out = new Map<string, MetricResult>();
  const { observation } = input;
  if (observation.kind === 'down') {
    out.set(
      'target_up',
      input.consecutiveFailures >= input.downAfterFailures
        ? value(0)
        : missing(
            `failure ${input.consecutiveFailures} of ${input.downAfterFailures} before the target counts as down`,
          ),
    );
    return out;
  }
  const report = observation.report;
  const now = countersOf(report);
  out.set('target_up', value(1));
  slotMetrics(report, input.maxRequestWorkers ?? null, out);
  connectionMetrics(report, out);
  const brief = slotBriefOf(report);
  const counts = input.counts ?? { client: true, vhost: true };
  const figures = brief === null ? null : slotFigures(brief, counts);
  topShare(figures, 'client', counts.client, out);
  topShare(figures, 'vhost', counts.vhost, out);
  out.set('oldest_busy_request_seconds', oldestRequest(figures));
  out.set('ssl_cache_miss_ratio', sslMissRatio(report, now, input.previous));
  out.set(
    'ssl_cache_usage_ratio',
    report.sslCache === null ? missing(NO_SSL) : value(report.sslCache.cacheUsagePercent / 100),
  );
  out.set('requests_per_second', counterRate(ACCESS_RATE, now, input.previous));
  out.set('bytes_per_second', counterRate(BYTE_RATE, now, input.previous));
  return out;
}

/** `minutes_to_exhaustion` from a forecast; its sample count is the samples the line went through. */
function forecastMetric(result: ForecastResult): MetricResult {
  if (result.ok) return value(result.forecast.minutes, result.forecast.samples.length);
  return result.unbounded ? { ok: false, reason: result.reason, unbounded: true } : missing(result.reason);
}

export type { Counters, MetricInput, MetricResult, SlotCounts };
export { computeMetrics, countersOf, countsFor, forecastMetric, NOT_COUNTED };
