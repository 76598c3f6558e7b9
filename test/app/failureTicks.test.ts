/**
 * Failures counted once per schedule tick: two runs of one schedule tick (a run's time is its scheduled event's: a
 * retry, or overlapping runs in two warm containers, share it) count one failed fetch, so target-down (two consecutive failed ticks) pages after two
 * ticks, not one. Memory table; the real run, commit and evaluation.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStateTable } from '../../src/adapters/memoryStateStore.ts';
import { forThisTick } from '../../src/app/checkTarget.ts';
import type { CycleDeps, StateTable } from '../../src/app/ports.ts';
import { runCycle } from '../../src/app/run.ts';
import type { Notification, TargetState } from '../../src/core/alerts/types.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const MIN = 60_000;

function container(table: StateTable, pages: Notification[]): CycleDeps {
  return {
    config: {
      loadRaw: async () => ({
        targets: { '/m/targets/web-1': JSON.stringify({ url: 'http://web-1.test/server-status' }) },
        rules: {},
        silences: {},
      }),
      getSecret: async () => '',
    },
    secretScope: { prefix: '/m', sharedSecretParameters: [] },
    table,
    notifier: { publish: async (n) => void pages.push(n) },
    fetch: async (t) => ({ ok: false, reason: 'timeout', detail: 'no answer', latencyMs: 1, url: t.url }),
    metrics: { target: () => {}, run: () => {} },
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    concurrency: 1,
    evaluate: { downAfterFailures: 2 },
    claimLeaseMs: 90_000,
    warm: new Map(),
    warmConfig: { applied: null },
  };
}

describe('failures counted once per schedule tick', () => {
  it.each<[string, number[], string[]]>([
    // [each run's tick, ms after T0; runs alternate between two containers], the pages after each run
    ['one run a tick', [0, MIN, 2 * MIN], ['', 'firing target-down', '']],
    ['two containers in one tick, then the next tick', [0, 0, MIN], ['', '', 'firing target-down']],
    ['each tick run again in the other container (a retry)', [0, 0, MIN, MIN], ['', '', 'firing target-down', '']],
  ])('%s', async (_, times, expected) => {
    const table = createMemoryStateTable();
    const pages: Notification[] = [];
    const containers = [container(table, pages), container(table, pages)];
    const after: string[] = [];
    for (const [i, at] of times.entries()) {
      const before = pages.length;
      await runCycle(containers[i % 2] as CycleDeps, new Date(T0 + at));
      after.push(
        pages
          .slice(before)
          .map((p) => `${p.status} ${p.rule}`)
          .join(', '),
      );
    }
    expect(after).toEqual(expected);
  });
});

describe('forThisTick', () => {
  const state = (evaluatedAt: string | null, consecutiveFailures: number): TargetState => ({
    target: 'web-1',
    evaluatedAt,
    consecutiveFailures,
    counters: null,
    alerts: {},
  });
  const now = new Date(T0 + MIN);
  it.each<[string, TargetState | null, number | null]>([
    ['nothing before', null, null],
    ['a failure counted a tick ago', state('2026-11-22T12:00:00.000Z', 1), 1],
    ['a failure counted this tick (same time)', state('2026-11-22T12:01:00.000Z', 2), 1],
    ['a failure counted a second before (another tick)', state('2026-11-22T12:00:59.000Z', 2), 2],
    ['no failure this tick', state('2026-11-22T12:01:00.000Z', 0), 0],
  ])('%s', (_, previous, failures) => {
    expect(forThisTick(previous, now)?.consecutiveFailures ?? null).toBe(failures);
  });
});
