/**
 * Sharded mode, behind the context switch `-c shardMode=sqs`: the scheduled invocation of the
 * monitor function becomes a dispatcher that sends one SQS message per shard of targets, and the
 * same function consumes them through an event source mapping (bounded by `maxConcurrency`).
 * SQS does the fan-out, retries and dead-lettering; nothing here schedules. Without the switch
 * the construct adds nothing. The handler side, src/lambda/shardedHandler.ts, is described in docs/scale.md.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MONITOR_ENVIRONMENT, shardVariables } from '../../src/lambda/environmentContract.ts';
import { ConfigError, integerReader } from '../config.ts';

const SHARD_MODES = { none: 'none', sqs: 'sqs' } as const;
type ShardMode = (typeof SHARD_MODES)[keyof typeof SHARD_MODES];

/** Consumers in flight at once; the event source mapping's minimum is 2. */
const DEFAULT_SHARD_CONCURRENCY = 5;

interface ShardingSettings {
  mode: ShardMode;
  targetsPerShard: number;
  maxConcurrency: number;
}

interface ShardingProps {
  /** The monitor function; its role already holds the table, topic and SSM grants. */
  fn: lambda.Function;
  /** The run cadence; a shard older than this is obsolete (the next dispatch covers it). */
  scheduleMinutes: number;
  /** Where shards that failed twice go; pass the monitor's alarmed failure queue. Default: a new queue. */
  deadLetterQueue?: sqs.IQueue;
  /** The settings, read and checked with the other deploy options (infra/deployOptions.ts). */
  settings: ShardingSettings;
}

class ShardingConfigError extends ConfigError {
  constructor(problems: string[]) {
    super(problems, 'sharding context');
    this.name = 'ShardingConfigError';
  }
}

/**
 * Reads `shardMode` (none|sqs), `targetsPerShard` (10-1000) and `shardConcurrency` (2-1000).
 *
 * @example
 * readShardingSettings((key) => app.node.tryGetContext(key)); // { mode: 'none', ... }
 * @throws ShardingConfigError naming every bad key
 */
function readShardingSettings(get: (key: string) => unknown): ShardingSettings {
  const problems: string[] = [];
  const int = integerReader(get, problems);
  const rawMode = get('shardMode') ?? SHARD_MODES.none;
  const mode = Object.values(SHARD_MODES).find((m) => m === rawMode);
  if (mode === undefined) problems.push(`shardMode: expected none or sqs, found ${JSON.stringify(rawMode)}`);
  const settings: ShardingSettings = {
    mode: mode ?? SHARD_MODES.none,
    targetsPerShard: int('targetsPerShard', MONITOR_ENVIRONMENT.targetsPerShard),
    maxConcurrency: int('shardConcurrency', { min: 2, max: 1000, default: DEFAULT_SHARD_CONCURRENCY }),
  };
  if (problems.length > 0) throw new ShardingConfigError(problems);
  return settings;
}

class Sharding extends Construct {
  readonly settings: ShardingSettings;
  /** The shard queue and its dead-letter queue; undefined unless `shardMode=sqs`. */
  readonly queue: sqs.Queue | undefined;
  readonly deadLetterQueue: sqs.IQueue | undefined;

  constructor(scope: Construct, id: string, props: ShardingProps) {
    super(scope, id);
    this.settings = props.settings;
    if (this.settings.mode === SHARD_MODES.none) return;
    const { fn } = props;
    const { maxConcurrency, targetsPerShard } = this.settings;
    const interval = Duration.minutes(props.scheduleMinutes);
    const timeout = fn.timeout ?? Duration.seconds(3);

    this.deadLetterQueue = props.deadLetterQueue ?? this.newDeadLetterQueue();
    // Why: shards live at most two intervals; a retry only happens while it is still worth it.
    this.queue = new sqs.Queue(this, 'Shards', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Lambda requires at least the function timeout; more would delay the one retry past the next run.
      visibilityTimeout: timeout,
      retentionPeriod: Duration.seconds(Math.max(120, interval.toSeconds() * 2)),
      // One retry (a crashed or throttled invocation), then the dead-letter queue for a person.
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 2 },
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // Why: the dispatcher (scheduled invocation) sends; the mapping grants the consumer side itself.
    this.queue.grantSendMessages(fn);
    fn.addEventSource(
      new SqsEventSource(this.queue, {
        // One shard per invocation: a shard is already a batch of targets.
        batchSize: 1,
        maxConcurrency,
        reportBatchItemFailures: true,
      }),
    );
    const variables = shardVariables({
      queueUrl: this.queue.queueUrl,
      targetsPerShard,
      maxAgeSeconds: interval.toSeconds(),
    });
    for (const [name, value] of Object.entries(variables)) fn.addEnvironment(name, value);

    // Why: a reservation of 1 (no overlapping runs) would throttle every consumer; keep a
    // reservation, sized for the consumers plus the dispatcher, so the fleet stays bounded.
    const cfn = fn.node.defaultChild as lambda.CfnFunction;
    if (typeof cfn.reservedConcurrentExecutions === 'number') {
      cfn.reservedConcurrentExecutions = Math.max(cfn.reservedConcurrentExecutions, maxConcurrency + 1);
    }
  }

  private newDeadLetterQueue(): sqs.Queue {
    const dlq = new sqs.Queue(this, 'FailedShards', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(dlq).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the dead-letter queue of the shard queue.',
    });
    return dlq;
  }
}

export {
  DEFAULT_SHARD_CONCURRENCY,
  readShardingSettings,
  SHARD_MODES,
  Sharding,
  ShardingConfigError,
  type ShardingProps,
  type ShardingSettings,
};
