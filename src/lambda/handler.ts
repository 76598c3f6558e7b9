/**
 * The Lambda's default entry, a composition root: one `runCycle` per scheduled event. Sharded
 * mode (`-c shardMode=sqs`) deploys `src/lambda/shardedHandler.ts` instead, so this bundle carries no
 * SQS client.
 */

import { runCycle } from '../app/run.ts';
import { EnvironmentError } from './environment.ts';
import { asLambdaHandler, deps, env, isSqsEvent } from './runtime.ts';

// Why: a stack that set SHARD_MODE=sqs but deployed this entry would check every target in one run.
if (env.shardMode === 'sqs')
  throw new EnvironmentError([
    'SHARD_MODE: expected none for src/lambda/handler.ts, found sqs (sharded mode deploys src/lambda/shardedHandler.ts)',
  ]);

async function check(event: unknown): Promise<unknown> {
  if (isSqsEvent(event))
    throw new Error(
      'expected a scheduled event, found an SQS event (sharded mode deploys src/lambda/shardedHandler.ts)',
    );
  return runCycle(deps, scheduledTime(event) ?? new Date());
}

/**
 * The schedule tick a scheduled event stands for (EventBridge's `time`): a run's time. A retry of
 * the event, or another container's run of it, has the same, so the run counts one failed fetch
 * for the tick, not two (failures counted once per schedule tick). Null for anything else (a
 * manual invocation): now.
 */
function scheduledTime(event: unknown): Date | null {
  const time = (event as { time?: unknown } | null)?.time;
  if (typeof time !== 'string') return null;
  const at = new Date(time);
  return Number.isNaN(at.getTime()) ? null : at;
}

const handler = asLambdaHandler(check);

export { handler };
