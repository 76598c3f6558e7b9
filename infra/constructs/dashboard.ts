/**
 * One CloudWatch dashboard: a row about the monitor (custom metrics and the function's own), a row
 * about the fleet, then one row per dashboard target. The fleet and target rows are Logs Insights
 * queries over the function's one `target checked` line per target and run, so per-target graphs
 * cost log bytes and query scans, not a custom metric per target and figure. A fleet widget scans
 * the log group over the range; a target's widget only that target's lines, through the group's
 * field index on `target`. Metric and field names come from `EMITTED_METRICS`, the table the
 * function writes from.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { EMITTED_METRICS, TARGET_LOG_FIELD, TARGET_LOG_MESSAGE } from '../../src/core/emittedMetrics.ts';
import { monitorMetric } from './watchdog.ts';

/** CloudWatch allows 500 widgets per dashboard: 4 per target plus the monitor and fleet rows. */
const MAX_DASHBOARD_TARGETS = 100;
/** Rows in each fleet table. */
const FLEET_TABLE_ROWS = 20;

const { targetUp, fetchLatency, busySlots, idleSlots, closingSlots, freeSlotsRatio, sslCacheMissRatio } =
  EMITTED_METRICS;

interface StatusDashboardProps {
  /** A function (not an imported one): the log widgets read its log group. */
  fn: lambda.Function;
  targets: string[];
  /** Seeded targets left off the dashboard (past its 100): told in its note. */
  omitted?: number;
  /** The monitor's SSM prefix: its metrics' `monitor` dimension. */
  monitor: string;
}

/**
 * Logs Insights lines selecting the per-target lines, of one target when `target` is given. One
 * target's query starts with the equality on the log group's indexed field, so it scans that
 * target's lines rather than the whole group over the range.
 */
function targetLines(target?: string): string {
  const message = `filter message = "${TARGET_LOG_MESSAGE}"`;
  // Target names are [A-Za-z0-9_.-] (infra/config.ts), so quoting them needs no escaping.
  return target === undefined ? message : `filter ${TARGET_LOG_FIELD} = "${target}" | ${message}`;
}

/** The queries of one target's row, by widget title; each graphs one figure or a few over time. */
function targetQueries(target: string): Array<[string, string]> {
  const lines = targetLines(target);
  return [
    [
      'worker slots',
      `${lines} | stats avg(${busySlots.name}) as busy, avg(${idleSlots.name}) as idle, avg(${closingSlots.name}) as closing by bin(1m)`,
    ],
    ['SSL session cache miss ratio', `${lines} | stats avg(${sslCacheMissRatio.name}) as miss_ratio by bin(1m)`],
    [
      'fetch latency (ms)',
      `${lines} | stats avg(${fetchLatency.name}) as average, max(${fetchLatency.name}) as maximum by bin(1m)`,
    ],
    ['up (1) / down (0)', `${lines} | stats min(${targetUp.name}) as up by bin(1m)`],
  ];
}

/** Fleet-wide tables over the dashboard's time range: they work for any number of targets. */
function fleetQueries(): Array<[string, string]> {
  const lines = targetLines();
  const top = `limit ${FLEET_TABLE_ROWS}`;
  return [
    [
      'fleet: targets that failed a fetch',
      `${lines} and ${targetUp.name} = 0 | stats count(*) as failed_runs, max(${fetchLatency.name}) as max_fetch_ms by target | sort failed_runs desc | ${top}`,
    ],
    [
      'fleet: fewest free worker slots',
      `${lines} and ispresent(${freeSlotsRatio.name}) | stats min(${freeSlotsRatio.name}) as lowest_free_ratio, max(${busySlots.name}) as most_busy by target | sort lowest_free_ratio asc | ${top}`,
    ],
    [
      'fleet: slowest status pages',
      `${lines} | stats max(${fetchLatency.name}) as max_ms, avg(${fetchLatency.name}) as avg_ms by target | sort max_ms desc | ${top}`,
    ],
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
    const logGroupNames = [props.fn.logGroup.logGroupName];
    const logWidget = (title: string, queryString: string, view: cloudwatch.LogQueryVisualizationType) =>
      new cloudwatch.LogQueryWidget({ title, logGroupNames, queryString, view, width: 6 });
    const perMinute = { period: Duration.minutes(1) };
    // Why: graphs per target, named so that the console lists it next to the stack.
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new cloudwatch.GraphWidget({
            title: 'monitor: runs, alerts sent, targets down',
            left: [
              monitorMetric(EMITTED_METRICS.heartbeat, props.monitor, {
                ...perMinute,
                statistic: 'SampleCount',
                label: 'completed runs',
              }),
              monitorMetric(EMITTED_METRICS.alertsSent, props.monitor, {
                ...perMinute,
                statistic: 'Sum',
                label: 'alerts sent',
              }),
              monitorMetric(EMITTED_METRICS.targetsDown, props.monitor, {
                ...perMinute,
                statistic: 'Maximum',
                label: 'targets down',
              }),
            ],
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
              (props.targets.length === 0
                ? 'No targets named in context: add `dashboardTargets` and redeploy.'
                : `${props.targets.length} target(s)${props.omitted ? `; ${props.omitted} more seeded target(s) not shown (at most ${MAX_DASHBOARD_TARGETS} fit on one dashboard: name those you want in \`dashboardTargets\`)` : ''}.`) +
              ' Fleet tables and target rows are Logs Insights queries over the `target checked` log lines.',
            width: 6,
          }),
        ],
        fleetQueries().map(([title, query]) => logWidget(title, query, cloudwatch.LogQueryVisualizationType.TABLE)),
        ...props.targets.map((target) =>
          targetQueries(target).map(([title, query]) =>
            logWidget(`${target}: ${title}`, query, cloudwatch.LogQueryVisualizationType.LINE),
          ),
        ),
      ],
    });
  }
}

export { fleetQueries, MAX_DASHBOARD_TARGETS, StatusDashboard, type StatusDashboardProps, targetQueries };
