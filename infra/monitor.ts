/**
 * The whole monitor, added to a scope: the stack of this app adds it to itself (so its logical ids
 * stay those of earlier releases), and `HttpdStatusMonitor` is the construct for users who embed
 * the monitor in a stack of their own.
 */
import { Annotations, CfnOutput, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { ConfigParameters } from './constructs/configParameters.ts';
import { StatusDashboard } from './constructs/dashboard.ts';
import {
  DISCOVERY_HANDLER_ENTRY,
  DISCOVERY_SHARDED_HANDLER_ENTRY,
  HANDLER_ENTRY,
  MonitorFunction,
  SHARDED_HANDLER_ENTRY,
} from './constructs/monitorFunction.ts';
import { Notifications } from './constructs/notifications.ts';
import { addPagerDutyForwarder } from './constructs/pagerDuty.ts';
import { SHARD_MODES, Sharding } from './constructs/sharding.ts';
import { Watchdog } from './constructs/watchdog.ts';
import { defaultRulesDocument } from './defaultRules.ts';
import { type DeployOptions, readDeployOptions } from './deployOptions.ts';
import { acknowledgeFindings } from './nag.ts';

interface MonitorParts {
  monitor: MonitorFunction;
  notifications: Notifications;
  table: dynamodb.TableV2;
}

/** The checked deploy options (nothing here reads the context), and a handler module for tests. */
interface MonitorSettings extends DeployOptions {
  /** The handler module; by shard mode `src/lambda/handler.ts` or `src/lambda/shardedHandler.ts`, unless a test substitutes a stub. */
  handlerEntry?: string;
}

/** Adds every resource of the monitor to `scope`. */
function addMonitor(scope: Construct, { config, sharding, routing, handlerEntry }: MonitorSettings): MonitorParts {
  const { pagerDuty, chatTopic } = routing;
  if (config.emails.length === 0 && config.httpsEndpoints.length === 0) {
    // Why: a deploy without subscriptions pages nobody; legal (subscribe later), so a warning.
    Annotations.of(scope).addWarningV2(
      'httpd-status-alerts:no-subscriptions',
      'No emails and no httpsEndpoints: this monitor pages nobody until something subscribes to the AlertTopicArn output (set emails in monitor.config.json or -c emails=...)',
    );
  }
  const notifications = new Notifications(scope, 'Notifications', {
    emails: config.emails,
    httpsEndpoints: config.httpsEndpoints,
    chatTopic,
  });
  // Why: one item per alert fingerprint; state is recomputable, so it goes with the stack.
  const table = new dynamodb.TableV2(scope, 'StateTable', {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    billing: dynamodb.Billing.onDemand(),
    timeToLiveAttribute: 'expiresAt',
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    removalPolicy: RemovalPolicy.DESTROY,
  });
  new ConfigParameters(scope, 'Config', {
    prefix: config.prefix,
    rulesDocument: defaultRulesDocument(),
    targets: config.targets,
  });
  // Why: past what one invocation checks in its interval, fan the targets out over SQS (shardMode=sqs).
  // Why a discovery entry of each: only deployments that list carry the EC2, Auto Scaling and ELBv2 clients.
  const sharded = sharding.mode === SHARD_MODES.sqs;
  const entry =
    config.discoverySources.length === 0
      ? sharded
        ? SHARDED_HANDLER_ENTRY
        : HANDLER_ENTRY
      : sharded
        ? DISCOVERY_SHARDED_HANDLER_ENTRY
        : DISCOVERY_HANDLER_ENTRY;
  const monitor = new MonitorFunction(scope, 'Monitor', {
    config,
    table,
    alertTopic: notifications.alertTopic,
    topicKey: notifications.key,
    entry: handlerEntry ?? entry,
  });
  // Why: only the monitor publishes pages (anyone else able to publish could forge one); PagerDuty gets them through its forwarder.
  notifications.restrictPublishingTo(monitor);
  addPagerDutyForwarder(scope, { config, notifications, monitor, table, settings: pagerDuty });
  new Sharding(scope, 'Sharding', {
    fn: monitor.fn,
    settings: sharding,
    scheduleMinutes: config.scheduleMinutes,
    deadLetterQueue: monitor.failures,
  });
  new Watchdog(scope, 'Watchdog', {
    fn: monitor.fn,
    failures: monitor.failures,
    opsTopic: notifications.opsTopic,
    scheduleMinutes: config.scheduleMinutes,
    timeoutSeconds: config.timeoutSeconds,
    monitor: config.prefix,
    discovery: config.discoverySources.length > 0,
  });
  const dashboard = new StatusDashboard(scope, 'Dashboard', {
    fn: monitor.fn,
    targets: config.dashboardTargets,
    omitted: config.dashboardOmitted,
    monitor: config.prefix,
  });

  new CfnOutput(scope, 'AlertTopicArn', { value: notifications.alertTopic.topicArn });
  new CfnOutput(scope, 'OpsTopicArn', { value: notifications.opsTopic.topicArn });
  const chat = notifications.chatTopic;
  if (chat !== undefined) new CfnOutput(scope, 'ChatTopicArn', { value: chat.topicArn });
  new CfnOutput(scope, 'FunctionName', { value: monitor.fn.functionName });
  new CfnOutput(scope, 'DashboardName', { value: dashboard.dashboard.dashboardName });
  new CfnOutput(scope, 'SsmPrefix', { value: config.prefix });
  acknowledgeFindings(monitor, config);
  return { monitor, notifications, table };
}

interface HttpdStatusMonitorProps {
  /**
   * The options of monitor.config.json (docs/deploy.md), with their typed values, e.g.
   * `{ emails: ['oncall@example.com'], prefix: '/apache' }`; checked whole like the app's.
   */
  options?: Record<string, unknown>;
}

/**
 * The monitor as one construct, for a stack of your own.
 *
 * @example
 * new HttpdStatusMonitor(this, 'ApacheMonitor', { options: { emails: ['oncall@example.com'] } });
 * @throws ConfigError listing every problem of `options`
 */
class HttpdStatusMonitor extends Construct {
  readonly monitor: MonitorFunction;
  readonly notifications: Notifications;
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: HttpdStatusMonitorProps = {}) {
    super(scope, id);
    const parts = addMonitor(this, readDeployOptions(null, props.options ?? {}));
    this.monitor = parts.monitor;
    this.notifications = parts.notifications;
    this.table = parts.table;
  }
}

export type { HttpdStatusMonitorProps, MonitorParts, MonitorSettings };
export { addMonitor, HttpdStatusMonitor };
