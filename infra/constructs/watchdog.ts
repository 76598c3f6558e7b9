/**
 * The watcher is watched: alarms on the monitor itself, sent to the ops topic on alarm and on
 * recovery. The heartbeat alarm is the one that pages when the monitor stopped altogether.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../src/core/constants.ts';
import { EMITTED_METRICS, type EmittedMetric } from '../../src/core/emittedMetrics.ts';

/** Duration alarm threshold, as a share of the timeout. */
const NEAR_TIMEOUT = 0.8;

/**
 * A metric the monitor emits (`EMITTED_METRICS`): its name, namespace, `service` dimension and,
 * for a run metric, the `monitor` dimension (the monitor's SSM prefix), then `dimensionsMap`,
 * which must name exactly the metric's other dimensions: a graph or alarm on a dimension set the
 * function never writes would stay empty without a word.
 */
function monitorMetric(
  metric: EmittedMetric,
  monitor: string,
  props: Omit<cloudwatch.MetricProps, 'namespace' | 'metricName'>,
): cloudwatch.Metric {
  const own: Record<string, string> = (metric.dimensions as readonly string[]).includes('monitor') ? { monitor } : {};
  const dimensionsMap = { service: SERVICE_NAME, ...own, ...props.dimensionsMap };
  const given = Object.keys(dimensionsMap).sort().join(',');
  const emitted = [...metric.dimensions].sort().join(',');
  if (given !== emitted) throw new Error(`${metric.name}: expected the dimensions ${emitted}, found ${given}`);
  return new cloudwatch.Metric({ ...props, namespace: METRICS_NAMESPACE, metricName: metric.name, dimensionsMap });
}

interface WatchdogProps {
  fn: lambda.IFunction;
  failures: sqs.IQueue;
  opsTopic: sns.ITopic;
  scheduleMinutes: number;
  timeoutSeconds: number;
  /** The monitor's SSM prefix: its metrics' `monitor` dimension. */
  monitor: string;
  /** Discovery enabled: the discovery-failing alarm is added. */
  discovery?: boolean;
}

class Watchdog extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: WatchdogProps) {
    super(scope, id);
    const window = Duration.minutes(5);
    const quiet = cloudwatch.TreatMissingData.NOT_BREACHING;

    // Why: a run failed more than once in five minutes (one failure is retried by the next run).
    this.add('Errors', {
      metric: props.fn.metricErrors({ period: window, statistic: 'Sum' }),
      threshold: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: quiet,
      alarmDescription: 'httpd-status-alerts: the monitor failed at least twice in 5 minutes; see its logs',
    });
    // Why: a throttle means a run outlasted the interval and the next one had to wait.
    this.add('Throttles', {
      metric: props.fn.metricThrottles({ period: window, statistic: 'Sum' }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: quiet,
      alarmDescription: 'httpd-status-alerts: runs overlap (throttled); raise the timeout budget or shard the targets',
    });
    // Why: a run close to its timeout is about to start failing.
    this.add('DurationNearTimeout', {
      metric: props.fn.metricDuration({ period: window, statistic: 'Maximum' }),
      threshold: Math.round(props.timeoutSeconds * 1000 * NEAR_TIMEOUT),
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: quiet,
      alarmDescription: `httpd-status-alerts: a run took over ${NEAR_TIMEOUT * 100}% of its ${props.timeoutSeconds}-second timeout`,
    });
    // Why: no heartbeat means no run completed: the monitor is down, so silence is breaching.
    const heartbeatMinutes = Math.max(5, 2 * props.scheduleMinutes);
    this.add('HeartbeatMissing', {
      metric: monitorMetric(EMITTED_METRICS.heartbeat, props.monitor, {
        period: Duration.minutes(heartbeatMinutes),
        statistic: 'SampleCount',
      }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      alarmDescription: `httpd-status-alerts ${props.monitor}: no heartbeat for ${heartbeatMinutes} minutes; the monitor itself stopped, Apache is unwatched`,
    });
    // Why: a run (or, sharded, a shard) whose pages or state failed, in two of three ticks: a
    // fault the next run's retry did not clear. A failed shard is returned to SQS, so Lambda's
    // Errors never counts it; a lasting SNS or DynamoDB fault shows here.
    const tick = Duration.minutes(props.scheduleMinutes);
    this.alarms.push(
      new cloudwatch.Alarm(this, 'RunsFailing', {
        metric: monitorMetric(EMITTED_METRICS.runsFailed, props.monitor, { period: tick, statistic: 'Maximum' }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: quiet,
        alarmDescription:
          'httpd-status-alerts: runs failed in two of the last three ticks (pages refused or the state table failing); see the "publish failed" and "target state failed" log lines',
      }),
    );
    // Why: SSM could not be read (throttled, denied, timed out) through a read's whole backoff, twice
    // running (a read happens every `configMaxAgeSeconds`): the last good configuration is in
    // force and no configuration page goes out, so changes to targets or rules are not taking effect.
    this.add('ConfigurationUnreadable', {
      metric: monitorMetric(EMITTED_METRICS.configurationUnreadable, props.monitor, {
        period: Duration.minutes(10),
        statistic: 'Sum',
      }),
      threshold: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: quiet,
      alarmDescription:
        'httpd-status-alerts: the configuration in SSM could not be read (throttled, access denied or timed out) twice in 10 minutes; the last good configuration stays in force, changes are not taking effect',
    });
    // Why: anything in the failure queue is a run nobody will retry.
    this.add('FailedRunsQueued', {
      metric: props.failures.metricApproximateNumberOfMessagesVisible({ period: window, statistic: 'Maximum' }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: quiet,
      alarmDescription: 'httpd-status-alerts: failed or undelivered runs are waiting in the failure queue',
    });

    // Why: a discovery parameter whose listing fails keeps its last good list; launched instances
    // go unwatched until it lists again. One alarm for every parameter (the metric's dimension is
    // the parameter, unknown at synth): a Metrics Insights query takes the maximum over them.
    if (props.discovery === true) {
      const { name, dimensions } = EMITTED_METRICS.discoveryFailing;
      this.add('DiscoveryFailing', {
        metric: new cloudwatch.MathExpression({
          expression: `SELECT MAX(${name}) FROM SCHEMA("${METRICS_NAMESPACE}", ${dimensions.join(', ')}) WHERE service = '${SERVICE_NAME}'`,
          period: window,
          label: 'discovery failing',
          usingMetrics: {},
        }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: quiet,
        alarmDescription:
          'httpd-status-alerts: discovery failing: a discovery parameter cannot list its instances; its last good list stays in force (see the discovery page and the logs)',
      });
    }

    const notify = new actions.SnsAction(props.opsTopic);
    for (const alarm of this.alarms) {
      alarm.addAlarmAction(notify);
      alarm.addOkAction(notify);
    }
  }

  private add(id: string, props: Omit<cloudwatch.AlarmProps, 'evaluationPeriods'>): void {
    this.alarms.push(new cloudwatch.Alarm(this, id, { ...props, evaluationPeriods: 1 }));
  }
}

export { monitorMetric, Watchdog, type WatchdogProps };
