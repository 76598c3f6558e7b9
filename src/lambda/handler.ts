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
  return runCycle(deps, new Date());
}

const handler = asLambdaHandler(check);

export { handler };
