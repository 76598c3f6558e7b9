/**
 * Where a run's figures go. Every target gets one compact JSON log line per run (`target checked`),
 * which the dashboard graphs with Logs Insights: per-target graphs cost log bytes, not custom
 * metrics. Custom metrics are the fleet-level few in `RUN_METRICS` (a series count that does not
 * grow with the fleet), plus, for targets opted in through `TARGET_METRICS`, the same line made an
 * EMF document. Values come from the computed metrics the rules saw, never from re-reading a report.
 */

import type { MetricsSink, TargetMetrics } from '../app/ports.ts';
import {
  DISCOVERY_DIMENSIONS,
  EMITTED_METRICS,
  METRIC_SOURCES,
  type RUN_METRICS,
  TARGET_DIMENSIONS,
  TARGET_LOG_FIELD,
  TARGET_LOG_MESSAGE,
  TARGET_METRICS,
  type TargetMetric,
} from '../core/emittedMetrics.ts';

/** The part of Powertools' `Metrics` the sink uses; flushed once per invocation by `logMetrics`. */
interface RunMetricsRecorder {
  addMetric(name: string, unit: (typeof RUN_METRICS)[number]['unit'], value: number): unknown;
}

interface MetricsSinkOptions {
  namespace: string;
  service: string;
  /** Whether `target` is opted in to custom metrics (`wantsTargetMetrics`). */
  wantsTargetMetrics(target: string): boolean;
  runMetrics: RunMetricsRecorder;
  /** Writes one log line (no newline); stdout in Lambda. */
  write(line: string): void;
  /** Milliseconds since the epoch, for the EMF timestamp. */
  clock(): number;
  /**
   * The invocation's request id (Lambda's `awsRequestId`), put in every target line as
   * `function_request_id`, the field Powertools' logger gives the run's own lines: a target's line
   * is found with the run (and the shard) that wrote it. Null outside an invocation.
   */
  requestId?(): string | null;
}

/** Ratios to 4 decimals and the rest to 2: enough for a graph, and fewer log bytes. */
function rounded(value: number, unit: TargetMetric['unit']): number {
  const scale = unit === 'None' ? 10_000 : 100;
  return Math.round(value * scale) / scale;
}

function figureOf(metric: TargetMetric, values: TargetMetrics): number | null {
  const { source } = metric;
  if (source.from === METRIC_SOURCES.fetch) return source.field === 'up' ? (values.up ? 1 : 0) : values.fetchLatencyMs;
  const computed = values.metrics.get(source.field);
  return computed?.ok ? computed.value : null;
}

/**
 * The line logged for one target: message, target, then each target metric that has a value this
 * run; with `emf`, the `service` dimension and the `_aws` block that make CloudWatch read those
 * values as metrics. (The log group is the function's own, so `service` is left out otherwise:
 * at 1,000 targets it would cost 1.4 GB of log ingestion a month.)
 */
function targetLine(values: TargetMetrics, options: MetricsSinkOptions, emf: boolean): string {
  const line: Record<string, unknown> = { message: TARGET_LOG_MESSAGE, [TARGET_LOG_FIELD]: values.target };
  const requestId = options.requestId?.() ?? null;
  if (requestId !== null) line.function_request_id = requestId;
  if (emf) line.service = options.service;
  const present: Array<{ Name: string; Unit: string }> = [];
  for (const metric of TARGET_METRICS) {
    const value = figureOf(metric, values);
    if (value === null) continue;
    line[metric.name] = rounded(value, metric.unit);
    present.push({ Name: metric.name, Unit: metric.unit });
  }
  if (emf) {
    line._aws = {
      Timestamp: options.clock(),
      CloudWatchMetrics: [{ Namespace: options.namespace, Dimensions: [[...TARGET_DIMENSIONS]], Metrics: present }],
    };
  }
  return JSON.stringify(line);
}

/**
 * @example
 * const sink = createMetricsSink({ namespace: METRICS_NAMESPACE, service: SERVICE_NAME, runMetrics: metrics,
 *   wantsTargetMetrics: (t) => wantsTargetMetrics(env.targetMetrics, t),
 *   write: (line) => process.stdout.write(`${line}\n`), clock: Date.now });
 */
function createMetricsSink(options: MetricsSinkOptions): MetricsSink {
  return {
    target(values) {
      options.write(targetLine(values, options, options.wantsTargetMetrics(values.target)));
    },
    configuration({ unreadable }) {
      const metric = EMITTED_METRICS.configurationUnreadable;
      options.runMetrics.addMetric(metric.name, metric.unit, unreadable ? 1 : 0);
    },
    run({ alertsSent, targetsDown, failed }) {
      const { heartbeat, runsFailed, alertsSent: sent, targetsDown: down } = EMITTED_METRICS;
      // The stack alarms when this stops arriving: the monitor stopped, or every run of it fails.
      if (!failed) options.runMetrics.addMetric(heartbeat.name, heartbeat.unit, 1);
      options.runMetrics.addMetric(runsFailed.name, runsFailed.unit, failed ? 1 : 0);
      options.runMetrics.addMetric(sent.name, sent.unit, alertsSent);
      options.runMetrics.addMetric(down.name, down.unit, targetsDown);
    },
    discovery({ parameter, failing }) {
      // An EMF line of its own: its dimension (the parameter) is not the run metrics' one.
      const { name, unit } = EMITTED_METRICS.discoveryFailing;
      const line = {
        message: 'discovery status',
        service: options.service,
        discovery: parameter,
        [name]: failing ? 1 : 0,
        _aws: {
          Timestamp: options.clock(),
          CloudWatchMetrics: [
            {
              Namespace: options.namespace,
              Dimensions: [[...DISCOVERY_DIMENSIONS]],
              Metrics: [{ Name: name, Unit: unit }],
            },
          ],
        },
      };
      options.write(JSON.stringify(line));
    },
  };
}

export type { MetricsSinkOptions, RunMetricsRecorder };
export { createMetricsSink };
