import { describe, expect, it } from 'vitest';
import { ASSUMPTIONS, type MeasuredUsage, usageAt } from '../../bench/e2e/fleetUsage.ts';

/** Counts as usage.ts writes them, round enough to work out by hand. */
const MEASURED: MeasuredUsage = {
  date: '2026-11-28',
  loadavg: [0, 0, 0],
  sizes: [
    // An hour each: 60 read units and 12,000 log bytes an hour per target, 120 and 60,000 per invocation.
    {
      targets: 10,
      down: 1,
      runs: 60,
      readUnits: 720,
      writeUnits: 40,
      logBytes: 180_000,
      snsPublishes: 0,
      dynamodbCalls: {},
      metricSeries: 5,
    },
    {
      targets: 100,
      down: 2,
      runs: 60,
      readUnits: 6120,
      writeUnits: 400,
      logBytes: 1_260_000,
      snsPublishes: 0,
      dynamodbCalls: {},
      metricSeries: 5,
    },
  ],
  template: {
    default: { alarms: 7, metricFilters: 0, logWidgets: 3 },
    dashboard10: { alarms: 7, metricFilters: 0, logWidgets: 43 },
    dashboard100: { alarms: 7, metricFilters: 0, logWidgets: 403 },
    forwarder: { alarms: 9, metricFilters: 1, logWidgets: 3 },
    sharded: { alarms: 7, metricFilters: 0, logWidgets: 3 },
  },
  // 20 messages of 100,000 B (2 chunks of 64 KiB each) in 4 batches of 500,000 B (8 chunks each).
  shards: { targets: 10_000, messageBytes: Array(20).fill(100_000), batchBytes: Array(4).fill(500_000) },
};

describe('usageAt: a month at any fleet size from the two measured sizes', () => {
  it.each<[string, number, boolean, Partial<ReturnType<typeof usageAt>>]>([
    // [case, targets, with the PagerDuty forwarder, the figures that depend on the size]
    [
      '10 targets: measured, the slowest target bills',
      10,
      false,
      {
        invocationsPerTick: 1,
        billedMsPerTick: 1209,
        readUnitsPerHour: 720,
        writeUnitsPerHour: 40,
        logBytesPerTick: 3000 + 350,
        // 3 fleet widgets, 4 per target shown; each target's widget scans 12,000 B an hour of its own lines
        fleetLogWidgets: 3,
        targetLogWidgets: 40,
        targetLogBytesPerTick: 200,
        sqsRequestsPerTick: 0,
        alarms: 7,
        metricSeries: 5,
      },
    ],
    [
      '1,000 targets: one invocation, CPU-bound (1.3 ms x 1,769 / 256 a target)',
      1000,
      false,
      {
        invocationsPerTick: 1,
        billedMsPerTick: (1000 * 1.3 * 1769) / 256,
        readUnitsPerHour: 60_000 + 120,
        writeUnitsPerHour: 4000,
        logBytesPerTick: (12_000_000 + 60_000) / 60 + 350,
        fleetLogWidgets: 3,
        targetLogWidgets: 400,
        targetLogBytesPerTick: 200,
        sqsRequestsPerTick: 0,
      },
    ],
    [
      '10,000 targets: a dispatch and 20 shards, each paying the part per invocation and its completion record',
      10_000,
      false,
      {
        invocationsPerTick: 21,
        billedMsPerTick: 3000 + (20 * 500 * 1.3 * 1769) / 256,
        readUnitsPerHour: 600_000 + 120 * 21,
        writeUnitsPerHour: 40_000 + 20 * 60,
        logBytesPerTick: (120_000_000 + 60_000 * 21) / 60 + 21 * 350,
        fleetLogWidgets: 3,
        targetLogWidgets: 400,
        targetLogBytesPerTick: 200,
        // 4 batches x 8 chunks, 20 receives x 2 chunks and 20 deletes, 15 empty polls
        sqsRequestsPerTick: 32 + 60 + 15,
      },
    ],
    ['with the PagerDuty forwarder: its alarms and its filter’s series', 10, true, { alarms: 9, metricSeries: 6 }],
  ])('%s', (_, targets, forwarder, expected) => {
    const usage = usageAt(targets, MEASURED, { ...ASSUMPTIONS, forwarder });
    const picked = Object.fromEntries(Object.keys(expected).map((k) => [k, usage[k as keyof typeof usage]]));
    expect(picked).toEqual(
      Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, expect.closeTo(v as number, 9)])),
    );
  });

  it('refuses counts of one size only, saying what it found', () => {
    expect(() => usageAt(10, { ...MEASURED, sizes: MEASURED.sizes.slice(0, 1) })).toThrow(
      'expected two measured fleet sizes, found 10',
    );
  });
});
