import { describe, expect, it } from 'vitest';
import type { MetricResult } from '../../src/core/rules/compute.ts';
import { createMetricsSink } from '../../src/lambda/metricsSink.ts';

const ok = (value: number): MetricResult => ({ ok: true, value, samples: null });
const missing: MetricResult = { ok: false, reason: 'no previous counters to take a rate from (first evaluation)' };

/** What the rules computed for a healthy target: the sink must log these, not re-read a report. */
const COMPUTED = new Map<string, MetricResult>([
  ['target_up', ok(1)],
  ['slots_busy', ok(12)],
  ['slots_idle', ok(5)],
  ['slots_closing', ok(3)],
  ['slots_free_ratio', ok(0.123456)],
  // Windowed since the previous run (the all-time ratio of the same server could be anything).
  ['ssl_cache_miss_ratio', ok(0.25)],
  ['requests_per_second', missing],
]);

function sinkWith(optedIn: string[]) {
  const lines: string[] = [];
  const runMetrics: Array<[string, string, number]> = [];
  const sink = createMetricsSink({
    namespace: 'HttpdStatusAlerts',
    service: 'httpd-status-alerts',
    wantsTargetMetrics: (target) => optedIn.includes(target),
    runMetrics: { addMetric: (name, unit, value) => runMetrics.push([name, unit, value]) },
    write: (line) => lines.push(line),
    clock: () => 1_795_000_000_000,
  });
  return { sink, lines, runMetrics };
}

describe('createMetricsSink', () => {
  it.each<[string, string | null, Record<string, unknown>]>([
    [
      'in an invocation',
      'c6af9ac6-7b61-11e6-9a41-93e812345678',
      { function_request_id: 'c6af9ac6-7b61-11e6-9a41-93e812345678' },
    ],
    ['outside one', null, {}],
  ])('puts the invocation request id in each target line: %s', (_, id, expected) => {
    const lines: string[] = [];
    const sink = createMetricsSink({
      namespace: 'N',
      service: 's',
      wantsTargetMetrics: () => false,
      runMetrics: { addMetric: () => {} },
      write: (line) => lines.push(line),
      clock: () => 0,
      requestId: () => id,
    });
    sink.target({ target: 'web-1', up: true, fetchLatencyMs: 3, metrics: new Map() });
    expect(JSON.parse(lines[0] as string)).toEqual({
      message: 'target checked',
      target: 'web-1',
      ...expected,
      TargetUp: 1,
      FetchLatency: 3,
    });
  });

  it.each([
    {
      intent: 'a target with a report: every computed figure that has a value, rounded',
      values: { target: 'web-1', up: true, fetchLatencyMs: 12.3456, metrics: COMPUTED },
      expected:
        '{"message":"target checked","target":"web-1","TargetUp":1,"FetchLatency":12.35,' +
        '"BusySlots":12,"IdleSlots":5,"ClosingSlots":3,"FreeSlotsRatio":0.1235,"SslCacheMissRatio":0.25}',
    },
    {
      intent: 'a target that is down: only whether it answered and how long the attempt took',
      values: {
        target: 'web-2',
        up: false,
        fetchLatencyMs: 5000,
        metrics: new Map<string, MetricResult>([['target_up', missing]]),
      },
      expected: '{"message":"target checked","target":"web-2","TargetUp":0,"FetchLatency":5000}',
    },
  ])('logs one line per target, no custom metric by default: $intent', ({ values, expected }) => {
    // Prepare
    const { sink, lines } = sinkWith([]);
    // Act
    sink.target(values);
    // Assess
    expect(lines).toEqual([expected]);
  });

  it('makes the same line an EMF document for a target opted in through TARGET_METRICS', () => {
    // Prepare
    const { sink, lines } = sinkWith(['web-1']);
    // Act
    sink.target({ target: 'web-1', up: true, fetchLatencyMs: 40, metrics: COMPUTED });
    sink.target({ target: 'web-3', up: true, fetchLatencyMs: 41, metrics: COMPUTED });
    // Assess
    const [optedIn, other] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(optedIn?._aws).toEqual({
      Timestamp: 1_795_000_000_000,
      CloudWatchMetrics: [
        {
          Namespace: 'HttpdStatusAlerts',
          Dimensions: [['service', 'target']],
          Metrics: [
            { Name: 'TargetUp', Unit: 'Count' },
            { Name: 'FetchLatency', Unit: 'Milliseconds' },
            { Name: 'BusySlots', Unit: 'Count' },
            { Name: 'IdleSlots', Unit: 'Count' },
            { Name: 'ClosingSlots', Unit: 'Count' },
            { Name: 'FreeSlotsRatio', Unit: 'None' },
            { Name: 'SslCacheMissRatio', Unit: 'None' },
          ],
        },
      ],
    });
    // Every metric named in the EMF block has its value at the top level, as EMF requires.
    expect([optedIn?.service, optedIn?.target, optedIn?.SslCacheMissRatio]).toEqual([
      'httpd-status-alerts',
      'web-1',
      0.25,
    ]);
    expect(other).not.toHaveProperty('_aws');
  });

  it.each<[string, boolean, Array<[string, string, number]>]>([
    [
      'a run that completed: its heartbeat, no failure',
      false,
      [
        ['Heartbeat', 'Count', 1],
        ['RunsFailed', 'Count', 0],
        ['AlertsSent', 'Count', 2],
        ['TargetsDown', 'Count', 7],
      ],
    ],
    [
      'a run whose pages or state failed: counted, and no heartbeat',
      true,
      [
        ['RunsFailed', 'Count', 1],
        ['AlertsSent', 'Count', 2],
        ['TargetsDown', 'Count', 7],
      ],
    ],
  ])('records the fleet-level metrics once per run, whatever the fleet size: %s', (_, failed, expected) => {
    // Prepare
    const { sink, runMetrics } = sinkWith([]);
    // Act
    sink.run({ alertsSent: 2, targets: 500, targetsDown: 7, failed });
    // Assess
    expect(runMetrics).toEqual(expected);
  });

  it('writes DiscoveryFailing per discovery parameter as an EMF line of its own', () => {
    // Prepare
    const { sink, lines, runMetrics } = sinkWith([]);
    // Act
    sink.discovery?.({ parameter: '/p/discovery/web', failing: true });
    // Assess
    expect(runMetrics).toEqual([]);
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      {
        message: 'discovery status',
        service: 'httpd-status-alerts',
        discovery: '/p/discovery/web',
        DiscoveryFailing: 1,
        _aws: {
          Timestamp: 1_795_000_000_000,
          CloudWatchMetrics: [
            {
              Namespace: 'HttpdStatusAlerts',
              Dimensions: [['service', 'discovery']],
              Metrics: [{ Name: 'DiscoveryFailing', Unit: 'Count' }],
            },
          ],
        },
      },
    ]);
  });
});
