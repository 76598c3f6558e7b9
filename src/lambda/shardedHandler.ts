/**
 * The Lambda's entry in sharded mode (`-c shardMode=sqs`, docs/scale.md): a scheduled event
 * dispatches one SQS message per shard of targets; an SQS event checks one shard.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { createSqsShardQueue } from '../adapters/sqsShardQueue.ts';
import { consumeShards, dispatchShards } from '../app/shards.ts';
import { EnvironmentError } from './environment.ts';
import { asLambdaHandler, deps, env, isSqsEvent } from './runtime.ts';

/** The shard queue's URL, once the environment has been checked for sharded mode. */
function shardQueueUrl(): string {
  const problems: string[] = [];
  if (env.shardMode !== 'sqs')
    problems.push(`SHARD_MODE: expected sqs for src/lambda/shardedHandler.ts, found ${env.shardMode}`);
  if (env.shardQueueUrl === null) problems.push('SHARD_QUEUE_URL: expected the shard queue URL, found none');
  if (problems.length > 0 || env.shardQueueUrl === null) throw new EnvironmentError(problems);
  return env.shardQueueUrl;
}

const shardQueue = createSqsShardQueue(new SQSClient({}), shardQueueUrl());

async function check(event: unknown): Promise<unknown> {
  const now = new Date();
  if (isSqsEvent(event)) {
    const { batchItemFailures } = await consumeShards(event.Records, deps, now, env.shardMaxAgeSeconds);
    return { batchItemFailures };
  }
  const time = (event as { time?: unknown } | null)?.time;
  const scheduledAt = typeof time === 'string' && !Number.isNaN(Date.parse(time)) ? time : now.toISOString();
  return dispatchShards(deps, shardQueue, now, { perShard: env.targetsPerShard, scheduledAt });
}

const handler = asLambdaHandler(check);

export { handler };
