/**
 * One CloudWatch dashboard: a row about the monitor, then one row per target, so a person looks
 * at graphs, not logs. The Lambda emits the per-target metrics (EMF) with dimensions
 * `service` and `target`.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { monitorMetric } from './watchdog.ts';

/** CloudWatch allows 500 widgets per dashboard: 4 per target plus the monitor row. */
const MAX_DASHBOARD_TARGETS = 100;

interface StatusDashboardProps {
  fn: lambda.IFunction;
  targets: string[];
}

function targetMetric(target: string, metricName: string, statistic: string, label: string): cloudwatch.Metric {
  return monitorMetric(metricName, { dimensionsMap: { target }, statistic, label, period: Duration.minutes(1) });
}

function targetRow(target: string): cloudwatch.IWidget[] {
  const graph = (title: string, left: cloudwatch.IMetric[]) =>
    new cloudwatch.GraphWidget({ title: `${target}: ${title}`, left, width: 6 });
  return [
    graph('worker slots', [
      targetMetric(target, 'BusySlots', 'Average', 'busy'),
      targetMetric(target, 'IdleSlots', 'Average', 'idle'),
      targetMetric(target, 'ClosingSlots', 'Average', 'closing'),
    ]),
    graph('SSL session cache miss ratio', [targetMetric(target, 'SslCacheMissRatio', 'Average', 'miss ratio')]),
    graph('fetch latency (ms)', [
      targetMetric(target, 'FetchLatency', 'Average', 'average'),
      targetMetric(target, 'FetchLatency', 'Maximum', 'maximum'),
    ]),
    graph('up (1) / down (0)', [targetMetric(target, 'TargetUp', 'Minimum', 'up')]),
  ];
}

class StatusDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: StatusDashboardProps) {
    super(scope, id);
    if (props.targets.length > MAX_DASHBOARD_TARGETS) {
      throw new Error(
        `dashboardTargets: at most ${MAX_DASHBOARD_TARGETS} targets fit on one dashboard, found ${props.targets.length}`,
      );
    }
    const heartbeat = monitorMetric('Heartbeat', {
      statistic: 'SampleCount',
      label: 'completed runs',
      period: Duration.minutes(1),
    });
    const alertsSent = monitorMetric('AlertsSent', {
      statistic: 'Sum',
      label: 'alerts sent',
      period: Duration.minutes(1),
    });
    // Why: graphs per target, named so that the console lists it next to the stack.
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new cloudwatch.GraphWidget({
            title: 'monitor: runs and alerts sent',
            left: [heartbeat, alertsSent],
            width: 6,
          }),
          new cloudwatch.GraphWidget({
            title: 'monitor: errors and throttles',
            left: [props.fn.metricErrors(), props.fn.metricThrottles()],
            width: 6,
          }),
          new cloudwatch.GraphWidget({
            title: 'monitor: duration (ms)',
            left: [props.fn.metricDuration({ statistic: 'Maximum' })],
            width: 6,
          }),
          new cloudwatch.TextWidget({
            markdown:
              props.targets.length === 0
                ? 'No targets named in context: add `dashboardTargets` and redeploy.'
                : `${props.targets.length} target(s)`,
            width: 6,
          }),
        ],
        ...props.targets.map(targetRow),
      ],
    });
  }
}

export { StatusDashboard, type StatusDashboardProps };
