/**
 * Everything the monitor needs, in one stack. Options arrive as one `AlertsConfig` object, so
 * later modes (sharding, issue 6) extend the props rather than the constructor.
 */
import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { AlertsConfig } from './config.ts';
import { ConfigParameters } from './constructs/configParameters.ts';
import { StatusDashboard } from './constructs/dashboard.ts';
import { HANDLER_ENTRY, MonitorFunction, SHARDED_HANDLER_ENTRY } from './constructs/monitorFunction.ts';
import { Notifications, readChatTopicFlag } from './constructs/notifications.ts';
import { addPagerDutyForwarder } from './constructs/pagerDuty.ts';
import { readShardingSettings, SHARD_MODES, Sharding } from './constructs/sharding.ts';
import { Watchdog } from './constructs/watchdog.ts';
import { defaultRulesDocument } from './defaultRules.ts';
import { acknowledgeFindings } from './nag.ts';

interface HttpdStatusAlertsStackProps extends StackProps {
  config: AlertsConfig;
  /** The handler module; by shard mode `src/handler.ts` or `src/shardedHandler.ts`, unless a test substitutes a stub. */
  handlerEntry?: string;
}

class HttpdStatusAlertsStack extends Stack {
  readonly monitor: MonitorFunction;
  readonly notifications: Notifications;
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: HttpdStatusAlertsStackProps) {
    super(scope, id, props);
    const { config } = props;

    this.notifications = new Notifications(this, 'Notifications', {
      emails: config.emails,
      httpsEndpoints: config.httpsEndpoints,
      chatTopic: readChatTopicFlag((key) => this.node.tryGetContext(key)),
    });
    // Why: one item per alert fingerprint; state is recomputable, so it goes with the stack.
    this.table = new dynamodb.TableV2(this, 'StateTable', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      billing: dynamodb.Billing.onDemand(),
      timeToLiveAttribute: 'expiresAt',
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    new ConfigParameters(this, 'Config', {
      prefix: config.prefix,
      rulesDocument: defaultRulesDocument(),
      targets: config.targets,
    });
    // Why: past what one invocation checks in its interval, fan the targets out over SQS (-c shardMode=sqs).
    const sharding = readShardingSettings((key) => this.node.tryGetContext(key));
    const entry = sharding.mode === SHARD_MODES.sqs ? SHARDED_HANDLER_ENTRY : HANDLER_ENTRY;
    this.monitor = new MonitorFunction(this, 'Monitor', {
      config,
      table: this.table,
      alertTopic: this.notifications.alertTopic,
      topicKey: this.notifications.key,
      entry: props.handlerEntry ?? entry,
    });
    // Why: only the monitor publishes pages (issue 11); PagerDuty gets them through its forwarder.
    this.notifications.restrictPublishingTo(this.monitor);
    addPagerDutyForwarder(this, { config, notifications: this.notifications, monitor: this.monitor });
    new Sharding(this, 'Sharding', {
      fn: this.monitor.fn,
      settings: sharding,
      scheduleMinutes: config.scheduleMinutes,
      deadLetterQueue: this.monitor.failures,
    });
    new Watchdog(this, 'Watchdog', {
      fn: this.monitor.fn,
      failures: this.monitor.failures,
      opsTopic: this.notifications.opsTopic,
      scheduleMinutes: config.scheduleMinutes,
      timeoutSeconds: config.timeoutSeconds,
    });
    const dashboard = new StatusDashboard(this, 'Dashboard', { fn: this.monitor.fn, targets: config.dashboardTargets });

    new CfnOutput(this, 'AlertTopicArn', { value: this.notifications.alertTopic.topicArn });
    new CfnOutput(this, 'OpsTopicArn', { value: this.notifications.opsTopic.topicArn });
    const chat = this.notifications.chatTopic;
    if (chat !== undefined) new CfnOutput(this, 'ChatTopicArn', { value: chat.topicArn });
    new CfnOutput(this, 'FunctionName', { value: this.monitor.fn.functionName });
    new CfnOutput(this, 'DashboardName', { value: dashboard.dashboard.dashboardName });
    new CfnOutput(this, 'SsmPrefix', { value: config.prefix });
    acknowledgeFindings(this.monitor, config);
  }
}

export { HttpdStatusAlertsStack, type HttpdStatusAlertsStackProps };
