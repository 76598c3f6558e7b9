/**
 * Everything the monitor needs, in one stack (`infra/monitor.ts` adds it). Options arrive checked,
 * as one `AlertsConfig` object and the sharding settings (read from context when not given).
 */
import { Stack, type StackProps } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { AlertsConfig } from './config.ts';
import type { MonitorFunction } from './constructs/monitorFunction.ts';
import type { Notifications } from './constructs/notifications.ts';
import { readShardingSettings, type ShardingSettings } from './constructs/sharding.ts';
import type { RoutingSettings } from './deployOptions.ts';
import { addMonitor } from './monitor.ts';

interface HttpdStatusAlertsStackProps extends StackProps {
  config: AlertsConfig;
  /** Default: read from context (`shardMode`, `targetsPerShard`, `shardConcurrency`). */
  sharding?: ShardingSettings;
  /** Default: read from context (`pagerDuty*`, `chatbotTopic`). */
  routing?: RoutingSettings;
  /** The handler module; by shard mode `src/lambda/handler.ts` or `src/lambda/shardedHandler.ts`, unless a test substitutes a stub. */
  handlerEntry?: string;
}

class HttpdStatusAlertsStack extends Stack {
  readonly monitor: MonitorFunction;
  readonly notifications: Notifications;
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: HttpdStatusAlertsStackProps) {
    super(scope, id, props);
    const sharding = props.sharding ?? readShardingSettings((key) => this.node.tryGetContext(key));
    const parts = addMonitor(this, {
      config: props.config,
      sharding,
      ...(props.routing === undefined ? {} : { routing: props.routing }),
      ...(props.handlerEntry === undefined ? {} : { handlerEntry: props.handlerEntry }),
    });
    this.monitor = parts.monitor;
    this.notifications = parts.notifications;
    this.table = parts.table;
  }
}

export { HttpdStatusAlertsStack, type HttpdStatusAlertsStackProps };
