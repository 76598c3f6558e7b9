/**
 * Everything the monitor needs, in one stack (`infra/monitor.ts` adds it). Options arrive checked,
 * as the `DeployOptions` of infra/deployOptions.ts: nothing here reads the context.
 */
import { Stack, type StackProps } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { MonitorFunction } from './constructs/monitorFunction.ts';
import type { Notifications } from './constructs/notifications.ts';
import type { DeployOptions } from './deployOptions.ts';
import { addMonitor } from './monitor.ts';

interface HttpdStatusAlertsStackProps extends StackProps {
  /** Every deploy option, read and checked once (`readDeployOptions`). */
  options: DeployOptions;
  /** The handler module; by shard mode `src/lambda/handler.ts` or `src/lambda/shardedHandler.ts`, unless a test substitutes a stub. */
  handlerEntry?: string;
}

class HttpdStatusAlertsStack extends Stack {
  readonly monitor: MonitorFunction;
  readonly notifications: Notifications;
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: HttpdStatusAlertsStackProps) {
    super(scope, id, props);
    const parts = addMonitor(this, {
      ...props.options,
      ...(props.handlerEntry === undefined ? {} : { handlerEntry: props.handlerEntry }),
    });
    this.monitor = parts.monitor;
    this.notifications = parts.notifications;
    this.table = parts.table;
  }
}

export { HttpdStatusAlertsStack, type HttpdStatusAlertsStackProps };
