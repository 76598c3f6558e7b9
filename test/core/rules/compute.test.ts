import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { slotsPending } from '../../../src/core/report/lazySlots.ts';
import { parseReport } from '../../../src/core/report/parse.ts';
import type { Slot, StatusReport } from '../../../src/core/report/types.ts';
import { computeMetrics, countersOf, countsFor, NOT_COUNTED } from '../../../src/core/rules/compute.ts';
import { DEFAULT_RULES } from '../../../src/core/rules/document.ts';
import { evaluateRule } from '../../../src/core/rules/evaluate.ts';
import { generateSlots, modelOf } from '../../support/generate.ts';
import { renderHtml } from '../../support/generatePages.ts';
import { loadReport } from '../support/reports.ts';

/** A real capture of the event-closing scenario, parsed (it has no reference parse beside it). */
const eventClosing = (file: string): StatusReport =>
  parseReport(readFileSync(new URL(`../../fixtures/apache-2.4.71/event-closing/${file}`, import.meta.url), 'latin1'));

const NO_TABLE = 'the report has no per-slot table (?auto or ExtendedStatus Off)';

function metricsOf(
  report: StatusReport,
  previous: StatusReport | null = null,
  maxRequestWorkers: number | null = null,
) {
  return computeMetrics({
    observation: { kind: 'report', report },
    previous: previous === null ? null : countersOf(previous),
    consecutiveFailures: 0,
    downAfterFailures: 2,
    maxRequestWorkers,
  });
}

function outcome(fixture: string | StatusReport, ruleName: string) {
  const rule = DEFAULT_RULES.find((r) => r.name === ruleName);
  if (rule === undefined) throw new Error(`no default rule ${ruleName}`);
  return evaluateRule(rule, metricsOf(typeof fixture === 'string' ? loadReport(fixture) : fixture), 'unused');
}

const NO_STOPPING = 'no Stopping count: the server does not run the event MPM';

const value = (v: number, holds: boolean) => ({ kind: 'value', value: v, holds });
const unevaluated = (reason: string) => ({ kind: 'unevaluated', reason });

describe('Default rules on the real Apache 2.4.71 captures', () => {
  it.each([
    // prefork under load, HTML: 5 idle + 223 open of 256; 3 closing; every busy slot from 127.0.0.1.
    ['prefork-busy/report.html', 'idle-slots-low', value(228 / 256, false)],
    ['prefork-busy/report.html', 'closing-pileup', value(3, false)],
    ['prefork-busy/report.html', 'ssl-cache-misses', unevaluated('8 samples in the window, fewer than minSamples 100')],
    ['prefork-busy/report.html', 'target-down', value(1, false)],
    ['prefork-busy/report.html', 'graceful-pileup', value(0, false)],
    ['prefork-busy/report.html', 'stuck-requests', value(4, false)],
    ['prefork-busy/report.html', 'client-concentration', value(28, true)],
    // The same server through ?auto: no slot table, so the slot-table rules are not evaluated.
    // prefork keeps no connection outside a slot: connections_closing is its 3 C slots.
    ['prefork-busy/report.auto.txt', 'idle-slots-low', value(227 / 256, false)],
    ['prefork-busy/report.auto.txt', 'closing-pileup', value(3, false)],
    ['prefork-busy/report.auto.txt', 'stuck-requests', unevaluated(NO_TABLE)],
    ['prefork-busy/report.auto.txt', 'client-concentration', unevaluated(NO_TABLE)],
    // event MPM, 10 s of load: 27 idle + 75 open of 150; 332 -> 545 SSL cache hits, no miss.
    ['event-busy/report.late.html', 'idle-slots-low', value(102 / 150, false)],
    ['event-busy/report.late.html', 'closing-pileup', value(4, false)], // no C slot, 4 in async closing
    ['event-busy/report.late.html', 'ssl-cache-misses', value(0, false)],
    ['event-busy/report.late.html', 'graceful-pileup', value(0, false)],
    ['event-busy/report.late.html', 'stuck-requests', value(9, false)],
    ['event-busy/report.late.html', 'client-concentration', value(48, true)],
    ['event-busy/report.html', 'client-concentration', value(18, false)],
    // ExtendedStatus Off: scoreboard only, and the SSL cache never retrieved.
    ['noextended/report.html', 'idle-slots-low', value(243 / 256, false)],
    ['noextended/report.html', 'closing-pileup', value(2, false)],
    ['prefork-busy/report.html', 'stopping-processes', unevaluated(NO_STOPPING)],
    ['event-busy/report.late.html', 'stopping-processes', value(0, false)],
    ['event-busy/report.late.auto.txt', 'stopping-processes', value(0, false)],
    ['noextended/report.html', 'ssl-cache-misses', unevaluated('no SSL session cache retrieves since start')],
    ['noextended/report.html', 'stuck-requests', unevaluated(NO_TABLE)],
    ['prefork-idle/report.html', 'stuck-requests', value(0, false)],
  ])('%s: %s', (fixture, rule, expected) => {
    expect(outcome(fixture, rule)).toEqual(expected);
  });
});

describe('Default rules on the event-closing captures (lingering close the scoreboard cannot see)', () => {
  it.each([
    // 50 connections in async closing, not one C slot: only connections_closing sees them.
    ['report.html', 'closing-pileup', value(50, true)],
    ['report.auto.txt', 'closing-pileup', value(50, true)],
    ['report.lynx80.txt', 'closing-pileup', value(50, true)],
    ['report.html', 'stopping-processes', value(0, false)],
    // After a graceful restart: the old generation is stopping, the pile-up is gone.
    ['report.graceful.html', 'closing-pileup', value(2, false)],
    ['report.graceful.html', 'stopping-processes', value(1, true)],
    ['report.graceful.auto.txt', 'stopping-processes', value(1, true)],
  ])('%s: %s', (file, rule, expected) => {
    expect(outcome(eventClosing(file), rule)).toEqual(expected);
  });

  it('would not see the pile-up through slots_closing, the metric closing-pileup watched before', () => {
    expect(metricsOf(eventClosing('report.html')).get('slots_closing')).toEqual({ ok: true, value: 0, samples: null });
  });
});

describe('computeMetrics: event MPM metrics', () => {
  const NO_CONNECTIONS = 'the report has no event MPM connection counts (Conns* keys or the process table)';
  const ok = (v: number) => ({ ok: true, value: v, samples: null });
  const no = (reason: string) => ({ ok: false, reason });

  it.each([
    // event-busy/report.html Sum row: total 60, wait-io 0, writing 0, keep-alive 11, closing 5.
    ['event-busy/report.html', 'conns_total', ok(60)],
    ['event-busy/report.html', 'async_wait_io', ok(0)],
    ['event-busy/report.html', 'async_writing', ok(0)],
    ['event-busy/report.html', 'async_keepalive', ok(11)],
    ['event-busy/report.html', 'async_closing', ok(5)],
    ['event-busy/report.html', 'connections_closing', ok(5)],
    ['event-busy/report.html', 'processes_stopping', ok(0)],
    ['event-busy/report.auto.txt', 'async_closing', ok(5)],
    // prefork: no async connections at all; connections_closing is the C slots, a measured value.
    ['prefork-busy/report.html', 'async_closing', no('no asyncClosing count: the server does not run the event MPM')],
    ['prefork-busy/report.html', 'conns_total', no('no total count: the server does not run the event MPM')],
    ['prefork-busy/report.html', 'processes_stopping', no(NO_STOPPING)],
    ['prefork-busy/report.html', 'connections_closing', ok(3)],
    ['noextended/report.auto.txt', 'connections_closing', ok(2)],
  ])('%s: %s', (fixture, metric, expected) => {
    expect(metricsOf(loadReport(fixture)).get(metric)).toEqual(expected);
  });

  it('leaves async_wait_io unevaluated on a page from before 2.4.63, which does not print it', () => {
    // Prepare
    const base = loadReport('event-busy/report.html');
    const report = {
      ...base,
      connections: { ...(base.connections as NonNullable<StatusReport['connections']>), asyncWaitIo: null },
    };
    // Act / Assess
    expect(metricsOf(report).get('async_wait_io')).toEqual(no('the report has no asyncWaitIo count (older httpd)'));
    expect(metricsOf(report).get('async_closing')).toEqual(ok(5));
  });

  it('leaves connections_closing unevaluated on an event report without connection data', () => {
    // Prepare: the MPM line says event, but neither Conns* keys nor a process table were read.
    const base = loadReport('event-busy/report.html');
    const report = { ...base, connections: null, processes: null };
    // Act / Assess
    expect(metricsOf(report).get('connections_closing')).toEqual(
      no('an event MPM report without its async closing count: only part is known'),
    );
    expect(metricsOf(report).get('async_closing')).toEqual(no(NO_CONNECTIONS));
  });
});

describe('computeMetrics with a declared capacity (maxRequestWorkers)', () => {
  // prefork-busy/report.html: 256 positions printed, 5 idle + 223 open, so 28 in use; 12 in K.
  it.each([
    ['slots_free', null, { ok: true, value: 228, samples: null }],
    ['slots_free_ratio', null, { ok: true, value: 228 / 256, samples: 256 }],
    ['slots_free', 150, { ok: true, value: 150 - 28, samples: null }],
    ['slots_free_ratio', 150, { ok: true, value: 122 / 150, samples: 150 }],
    ['slots_keepalive_ratio', 150, { ok: true, value: 12 / 150, samples: 150 }],
    ['slots_total', 150, { ok: true, value: 256, samples: null }],
    // More in use than the declared capacity (a lowered limit not yet in force): none free.
    ['slots_free', 20, { ok: true, value: 0, samples: null }],
    ['slots_free_ratio', 20, { ok: true, value: 0, samples: 20 }],
  ])('%s with maxRequestWorkers %s', (metric, capacity, expected) => {
    expect(metricsOf(loadReport('prefork-busy/report.html'), null, capacity).get(metric)).toEqual(expected);
  });
});

describe('computeMetrics', () => {
  it.each([
    ['slots_busy', 'prefork-busy/report.html', { ok: true, value: 28, samples: null }],
    ['slots_keepalive_ratio', 'prefork-busy/report.html', { ok: true, value: 12 / 256, samples: 256 }],
    ['slots_total', 'event-busy/report.late.html', { ok: true, value: 150, samples: null }],
    ['top_vhost_busy_slots', 'event-busy/report.late.html', { ok: true, value: 31, samples: null }],
    ['top_vhost_busy_ratio', 'event-busy/report.late.html', { ok: true, value: 31 / 48, samples: 48 }],
    ['top_client_busy_ratio', 'prefork-busy/report.html', { ok: true, value: 1, samples: 28 }],
    ['ssl_cache_usage_ratio', 'event-busy/report.late.html', { ok: true, value: 0.24, samples: null }],
    ['ssl_cache_miss_ratio', 'event-busy/report.html', { ok: true, value: 0, samples: 332 }],
    ['target_up', 'prefork-idle/report.html', { ok: true, value: 1, samples: null }],
    [
      'requests_per_second',
      'prefork-idle/report.html',
      { ok: false, reason: 'no previous counters to take a rate from (first evaluation)' },
    ],
    [
      'requests_per_second',
      'noextended/report.html',
      { ok: false, reason: 'the report has no Total accesses (ExtendedStatus Off)' },
    ],
    [
      'bytes_per_second',
      'prefork-idle/report.auto.txt',
      { ok: false, reason: 'no previous counters to take a rate from (first evaluation)' },
    ],
    [
      'bytes_per_second',
      'noextended/report.auto.txt',
      { ok: false, reason: 'the report has no Total kBytes or Total Traffic (ExtendedStatus Off)' },
    ],
    [
      'bytes_per_second',
      'noextended/report.html',
      { ok: false, reason: 'the report has no Total kBytes or Total Traffic (ExtendedStatus Off)' },
    ],
  ])('%s of %s', (metric, fixture, expected) => {
    expect(metricsOf(loadReport(fixture)).get(metric)).toEqual(expected);
  });

  it.each([
    // 5 s later on the same server: deltas over the server's own uptime.
    [
      'event-busy/report.html',
      'event-busy/report.late.html',
      'requests_per_second',
      { ok: true, value: (183467 - 99737) / 5, samples: null },
    ],
    [
      'event-busy/report.html',
      'event-busy/report.late.html',
      'ssl_cache_miss_ratio',
      { ok: true, value: 0, samples: 545 - 332 },
    ],
    [
      'prefork-busy/report.html',
      'prefork-busy/report.refresh5.html',
      'requests_per_second',
      { ok: true, value: 188715 - 149651, samples: null },
    ],
    // Bytes: Total kBytes exact (?auto), Total Traffic to its one decimal (HTML: 2.7 then 5.0 GB).
    [
      'event-busy/report.auto.txt',
      'event-busy/report.late.auto.txt',
      'bytes_per_second',
      { ok: true, value: ((5282002 - 2747963) * 1024) / 5, samples: null },
    ],
    [
      'event-busy/report.html',
      'event-busy/report.late.html',
      'bytes_per_second',
      { ok: true, value: ((5242880 - 2831155) * 1024) / 5, samples: null },
    ],
    [
      'event-busy/report.lynx80.txt',
      'event-busy/report.late.lynx80.txt',
      'bytes_per_second',
      { ok: true, value: ((5242880 - 2831155) * 1024) / 5, samples: null },
    ],
    // 4.4 then 5.6 GB in one second.
    [
      'prefork-busy/report.html',
      'prefork-busy/report.refresh5.html',
      'bytes_per_second',
      { ok: true, value: (5872026 - 4613734) * 1024, samples: null },
    ],
    [
      'event-busy/report.late.html',
      'event-busy/report.html',
      'bytes_per_second',
      { ok: true, value: (2831155 * 1024) / 4, samples: null },
    ],
    [
      'event-busy/report.html',
      'event-busy/report.html',
      'bytes_per_second',
      { ok: false, reason: 'no server uptime elapsed since the previous evaluation' },
    ],
    // Backwards in time (uptime 9 -> 4 s): a restart, so the since-start totals count.
    [
      'event-busy/report.late.html',
      'event-busy/report.html',
      'requests_per_second',
      { ok: true, value: 99737 / 4, samples: null },
    ],
    [
      'event-busy/report.late.html',
      'event-busy/report.html',
      'ssl_cache_miss_ratio',
      { ok: true, value: 0, samples: 332 },
    ],
    // The same report twice: no uptime elapsed, no rate.
    [
      'event-busy/report.html',
      'event-busy/report.html',
      'requests_per_second',
      { ok: false, reason: 'no server uptime elapsed since the previous evaluation' },
    ],
    [
      'event-busy/report.html',
      'event-busy/report.html',
      'ssl_cache_miss_ratio',
      { ok: false, reason: 'no SSL session cache retrieves in the window' },
    ],
  ])('%s then %s: %s', (before, after, metric, expected) => {
    expect(metricsOf(loadReport(after), loadReport(before)).get(metric)).toEqual(expected);
  });

  it('takes no byte rate when the kB go down without a restart: an exact count, then a rounded one', () => {
    // Prepare: ?auto's 5282002 kB at 9 s, then the HTML page's "5.0 GB" (5242880 kB) a second later.
    const before = loadReport('event-busy/report.late.auto.txt');
    const html = loadReport('event-busy/report.late.html');
    const after = { ...html, server: { ...html.server, uptimeSeconds: 10 } };
    // Act
    const metrics = metricsOf(after, before);
    // Assess
    expect(metrics.get('bytes_per_second')).toEqual({
      ok: false,
      reason: 'Total kBytes went down without a restart (a rounded Total Traffic read after an exact Total kBytes)',
    });
    expect(metrics.get('requests_per_second')).toEqual({ ok: true, value: 183467 - 183441, samples: null });
  });

  it('reads counters kept before Total kBytes was: no byte rate on that first run, as on a first evaluation', () => {
    // Prepare: counters as an older state file holds them (no totalKBytes key).
    const { totalKBytes: _dropped, ...older } = countersOf(loadReport('event-busy/report.html'));
    // Act
    const result = computeMetrics({
      observation: { kind: 'report', report: loadReport('event-busy/report.late.html') },
      previous: older,
      consecutiveFailures: 0,
      downAfterFailures: 2,
    });
    // Assess
    expect(result.get('bytes_per_second')).toEqual({
      ok: false,
      reason: 'no previous counters to take a rate from (first evaluation)',
    });
    expect(result.get('requests_per_second')).toEqual({ ok: true, value: (183467 - 99737) / 5, samples: null });
  });

  it('takes the miss ratio over the window and restarts from the totals when the counters go down', () => {
    // Prepare: 1000 hits/100 misses, then +60 hits/+140 misses, then a restart with 10/30.
    const report = (hits: number, misses: number, uptime: number) => {
      const base = loadReport('event-busy/report.html');
      return {
        ...base,
        server: { ...base.server, uptimeSeconds: uptime },
        sslCache: {
          ...(base.sslCache as NonNullable<StatusReport['sslCache']>),
          retrieveHits: hits,
          retrieveMisses: misses,
        },
      };
    };
    const first = report(1000, 100, 600);
    const second = report(1060, 240, 660);
    const restarted = report(10, 30, 5);

    // Act / Assess
    expect(metricsOf(first).get('ssl_cache_miss_ratio')).toEqual({ ok: true, value: 100 / 1100, samples: 1100 });
    expect(metricsOf(second, first).get('ssl_cache_miss_ratio')).toEqual({ ok: true, value: 0.7, samples: 200 });
    expect(metricsOf(restarted, second).get('ssl_cache_miss_ratio')).toEqual({ ok: true, value: 0.75, samples: 40 });
  });

  it.each([
    [1, { ok: false, reason: 'failure 1 of 2 before the target counts as down' }],
    [2, { ok: true, value: 0, samples: null }],
  ])('target_up while down (failure %i of 2 before it counts as down)', (failures, expected) => {
    const metrics = computeMetrics({
      observation: { kind: 'down', reason: 'timeout', detail: 'no answer in 10 s' },
      previous: null,
      consecutiveFailures: failures,
      downAfterFailures: 2,
    });
    expect([...metrics.keys()]).toEqual(['target_up']);
    expect(metrics.get('target_up')).toEqual(expected);
  });
});

describe('computeMetrics: the per-text counts a caller leaves out (counts)', () => {
  const counted = (n: number) => ({ ok: true, value: n, samples: null });
  const notCounted = { ok: false, reason: NOT_COUNTED };
  it.each([
    ['both (the default)', undefined, counted(28), counted(10)],
    ['clients only', { client: true, vhost: false }, counted(28), notCounted],
    ['vhosts only', { client: false, vhost: true }, notCounted, counted(10)],
    ['neither', { client: false, vhost: false }, notCounted, notCounted],
  ])('%s', (_name, counts, client, vhost) => {
    const metrics = computeMetrics({
      observation: { kind: 'report', report: loadReport('prefork-busy/report.html') },
      previous: null,
      consecutiveFailures: 0,
      downAfterFailures: 2,
      ...(counts === undefined ? {} : { counts }),
    });
    expect(metrics.get('top_client_busy_slots')).toEqual(client);
    expect(metrics.get('top_vhost_busy_slots')).toEqual(vhost);
    expect(metrics.get('top_vhost_busy_ratio')).toEqual(
      vhost.ok ? { ok: true, value: 10 / 28, samples: 28 } : notCounted,
    );
    expect(metrics.get('oldest_busy_request_seconds')?.ok).toBe(true);
  });
});

/** A prefork page of busy (W) slots with these clients, then `edit` applied to its text. */
function busyPage(clients: readonly string[], edit = (page: string) => page): string {
  const slots = generateSlots(clients.length, 'prefork').map(
    (slot, i): Slot => ({ ...slot, mode: 'W', client: clients[i] as string }),
  );
  return edit(renderHtml(modelOf(slots, { mpm: 'prefork' })));
}

/** The straightforward count: a Map of each busy slot's client, '' not counted. */
function mapTop(slots: readonly Slot[]): number {
  const counts = new Map<string, number>();
  for (const slot of slots) if (slot.client !== '') counts.set(slot.client, (counts.get(slot.client) ?? 0) + 1);
  return Math.max(0, ...counts.values());
}

describe('computeMetrics: clients counted by address where they are canonical IPv4', () => {
  it.each([
    ['distinct addresses', busyPage(['10.0.0.1', '10.0.0.2', '10.0.0.3']), 1],
    ['an address and its prefix', busyPage(['10.0.0.1', '10.0.0.10', '10.0.0.1', '10.0.0.100']), 2],
    ['an address written with a leading zero is another text', busyPage(['10.0.0.1', '010.0.0.1', '10.0.0.1']), 2],
    ['IPv6 and host names, counted as text', busyPage(['2001:db8::7', 'proxy.example', '2001:db8::7', '::1']), 2],
    ['addresses and texts mixed, a tie', busyPage(['10.0.0.1', '::1', '10.0.0.1', '::1', 'h']), 2],
    ['empty clients count for nothing', busyPage(['', '', '10.0.0.1']), 1],
    [
      'a character reference in an address: the same address',
      busyPage(['10.0.0.1', 'REF', '10.0.0.1'], (page) => page.replace('<td>REF</td>', '<td>&#49;0.0.0.1</td>')),
      3,
    ],
    [
      'an address split by a tag: the same address',
      busyPage(['10.0.0.1', 'SPLIT', '10.0.0.1'], (page) => page.replace('<td>SPLIT</td>', '<td>10.0.<b>0</b>.1</td>')),
      3,
    ],
    [
      'a row the scanner reads (upper-case cells): the same address',
      busyPage(['10.0.0.1', 'UPPER', '10.0.0.1'], (page) => page.replace('<td>UPPER</td>', '<TD>10.0.0.1</TD>')),
      3,
    ],
  ])('%s: %i', (_name, page, top) => {
    const report = parseReport(page);
    expect(slotsPending(report)).toBe(true);
    const pending = metricsOf(report).get('top_client_busy_slots');
    const built = { ...report };
    expect(mapTop(built.slots ?? [])).toBe(top);
    expect(pending).toEqual({ ok: true, value: top, samples: null });
    expect(metricsOf(built).get('top_client_busy_slots')).toEqual(pending);
  });
});

describe('countsFor', () => {
  it.each([
    ['no metric of the slot table', ['slots_idle', 'target_up'], { client: false, vhost: false }],
    ['the top client', ['top_client_busy_slots'], { client: true, vhost: false }],
    ['the top vhost ratio', ['slots_idle', 'top_vhost_busy_ratio'], { client: false, vhost: true }],
    ['both', ['top_vhost_busy_slots', 'top_client_busy_ratio'], { client: true, vhost: true }],
  ])('%s', (_name, names, expected) => {
    expect(countsFor(names)).toEqual(expected);
  });
});
