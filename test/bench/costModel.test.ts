import { describe, expect, it } from 'vitest';
import { type CostItem, dollars, type MonthlyUsage, monthlyCost } from '../../bench/e2e/costModel.ts';

/**
 * One minute, 256 MB, one invocation a tick; 100 targets' figures (200 B of each target's own lines
 * a tick), a dashboard of 3 fleet widgets and 100 targets' 4, opened ten times a day.
 */
const ONE_INVOCATION: MonthlyUsage = {
  scheduleMinutes: 1,
  memoryMb: 256,
  invocationsPerTick: 1,
  billedMsPerTick: 1200,
  readUnitsPerHour: 6000,
  writeUnitsPerHour: 400,
  snsPublishesPerHour: 0,
  metricSeries: 5,
  alarms: 7,
  dashboards: 1,
  logBytesPerTick: 20_000,
  logRetentionDays: 30,
  fleetLogWidgets: 3,
  targetLogWidgets: 400,
  targetLogBytesPerTick: 200,
  dashboardRangeHours: 3,
  dashboardOpensPerDay: 10,
  sqsRequestsPerTick: 0,
  advancedParameters: 0,
  kmsKeys: 1,
};

/** Five minutes, 512 MB, a dispatch and 20 shards a tick, SQS, advanced parameters, 7 days of logs, no dashboard. */
const SHARDED: MonthlyUsage = {
  scheduleMinutes: 5,
  memoryMb: 512,
  invocationsPerTick: 21,
  billedMsPerTick: 90_000,
  readUnitsPerHour: 0,
  writeUnitsPerHour: 0,
  snsPublishesPerHour: 12,
  metricSeries: 0,
  alarms: 0,
  dashboards: 0,
  logBytesPerTick: 1_000_000,
  logRetentionDays: 7,
  fleetLogWidgets: 0,
  targetLogWidgets: 0,
  targetLogBytesPerTick: 50_000,
  dashboardRangeHours: 3,
  dashboardOpensPerDay: 0,
  sqsRequestsPerTick: 150,
  advancedParameters: 40,
  kmsKeys: 0,
};

describe('monthlyCost: one line per item, from the month’s counted use', () => {
  it.each<[string, MonthlyUsage, Record<CostItem, [quantity: number, monthly: number]>, number]>([
    // [case, usage, each item's (quantity, dollars) worked out by hand, the total]
    [
      'one invocation a minute',
      ONE_INVOCATION,
      {
        // 43,200 ticks x 1.2 s x 0.25 GB = 12,960 GB-s; + 43,200 requests
        lambda: [12_960, 12_960 * 0.0000133334 + 43_200 * 0.2e-6],
        // 720 hours of a month
        dynamoReads: [4_320_000, 0.54],
        dynamoWrites: [288_000, 0.18],
        customMetrics: [5, 1.5],
        alarms: [7, 0.7],
        dashboard: [1, 3],
        // 43,200 x 20,000 B
        logsIngestion: [0.864, 0.432],
        // 30 days kept: the month's volume
        logsStorage: [0.864, 0.02592],
        // 10 opens x 30 days x 3 hours x (3 fleet widgets x 1.2 MB an hour + 400 target widgets x 12 kB an hour)
        logsInsights: [7.56, 0.0378],
        sns: [0, 0],
        sqs: [0, 0],
        ssm: [0, 0],
        kms: [1, 1],
      },
      7.597160864,
    ],
    [
      'sharded, every five minutes',
      SHARDED,
      {
        // 8,640 ticks x 90 s x 0.5 GB = 388,800 GB-s; + 8,640 x 21 requests
        lambda: [388_800, 388_800 * 0.0000133334 + 181_440 * 0.2e-6],
        dynamoReads: [0, 0],
        dynamoWrites: [0, 0],
        customMetrics: [0, 0],
        alarms: [0, 0],
        dashboard: [0, 0],
        logsIngestion: [8.64, 4.32],
        // 7 of 30 days kept
        logsStorage: [2.016, 0.06048],
        logsInsights: [0, 0],
        sns: [8640, 0.00432],
        sqs: [1_296_000, 0.5184],
        ssm: [40, 2],
        kms: [0, 0],
      },
      12.12351392,
    ],
  ])('%s', (_, usage, expected, total) => {
    const cost = monthlyCost(usage);
    expect(cost.lines.map((l) => l.item)).toEqual(Object.keys(expected));
    for (const line of cost.lines) {
      const [quantity, monthly] = expected[line.item];
      expect([line.item, line.quantity]).toEqual([line.item, expect.closeTo(quantity, 9)]);
      expect([line.item, line.monthly]).toEqual([line.item, expect.closeTo(monthly, 9)]);
    }
    expect(cost.total).toBeCloseTo(total, 9);
  });

  it.each<[string, number, number, number]>([
    // [case, fleet widgets, target widgets, GB scanned a month: 10 opens x 30 days x 3 hours]
    ['a fleet widget scans the whole group: 1.2 MB an hour', 1, 0, 1.08],
    ['a target widget scans its target’s lines only: 12 kB an hour', 0, 1, 0.0108],
    ['100 targets’ rows: each target’s lines scanned by its 4 widgets', 0, 400, 4.32],
    ['the dashboard as deployed', 3, 400, 7.56],
  ])('logs Insights, %s', (_, fleetLogWidgets, targetLogWidgets, scannedGb) => {
    const line = monthlyCost({ ...ONE_INVOCATION, fleetLogWidgets, targetLogWidgets }).lines.find(
      (l) => l.item === 'logsInsights',
    );
    expect([line?.quantity, line?.monthly]).toEqual([
      expect.closeTo(scannedGb, 12),
      expect.closeTo(scannedGb * 0.005, 12),
    ]);
  });

  it('a tick twice as far apart halves what runs a tick (Lambda, logs), not what is per hour or per month', () => {
    const every = (scheduleMinutes: number) =>
      Object.fromEntries(monthlyCost({ ...ONE_INVOCATION, scheduleMinutes }).lines.map((l) => [l.item, l.monthly]));
    const one = every(1);
    const two = every(2);
    expect(two.lambda).toBeCloseTo((one.lambda as number) / 2, 12);
    expect(two.logsIngestion).toBeCloseTo((one.logsIngestion as number) / 2, 12);
    expect(two.logsInsights).toBeCloseTo((one.logsInsights as number) / 2, 12);
    expect(two.dynamoReads).toBe(one.dynamoReads);
    expect(two.alarms).toBe(one.alarms);
  });
});

describe('dollars', () => {
  it.each<[number, string]>([
    [0, '$0.00'],
    [0.004, '$0.00'],
    [2.675, '$2.67'],
    [99.994, '$99.99'],
    [100, '$100'],
    [1234.5, '$1,235'],
  ])('%s -> %s', (x, text) => {
    expect(dollars(x)).toBe(text);
  });
});
