/**
 * Sends shard messages to SQS with SendMessageBatch, batched by bytes as well as by count: a batch
 * holds at most `SHARD_BUDGET.batchEntries` messages and `SHARD_BUDGET.batchBytes` of bodies
 * (SQS refuses a whole batch past 1 MiB with `BatchRequestTooLong`). Failed entries are retried
 * once, then the dispatch fails.
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ShardMessage, ShardQueue } from '../app/ports.ts';
import { SHARD_BUDGET, SQS_LIMITS } from '../core/sqsLimits.ts';

class ShardSendError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ShardSendError';
  }
}

interface Entry {
  Id: string;
  MessageBody: string;
  bytes: number;
}

/**
 * The entries in SendMessageBatch calls, in order: a batch closes at `batchEntries` entries or
 * before the entry that would take it past `batchBytes`.
 *
 * @throws ShardSendError when one message alone is past SQS's per-message limit
 */
function toBatches(messages: readonly ShardMessage[]): Entry[][] {
  const batches: Entry[][] = [];
  let batch: Entry[] = [];
  let size = 0;
  for (const [i, message] of messages.entries()) {
    const body = JSON.stringify(message);
    const bytes = Buffer.byteLength(body, 'utf8');
    if (bytes > SQS_LIMITS.messageBytes)
      throw new ShardSendError(
        `expected shard ${i} to fit in one SQS message (${SQS_LIMITS.messageBytes} bytes), found ${bytes} bytes`,
      );
    if (batch.length >= SHARD_BUDGET.batchEntries || (batch.length > 0 && size + bytes > SHARD_BUDGET.batchBytes)) {
      batches.push(batch);
      batch = [];
      size = 0;
    }
    batch.push({ Id: String(i), MessageBody: body, bytes });
    size += bytes;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * @example
 * const queue = createSqsShardQueue(new SQSClient({}), process.env.SHARD_QUEUE_URL);
 */
function createSqsShardQueue(client: SQSClient, queueUrl: string): ShardQueue {
  return {
    async send(messages) {
      for (const batch of toBatches(messages)) {
        let entries = batch.map(({ Id, MessageBody }) => ({ Id, MessageBody }));
        for (let attempt = 1; entries.length > 0; attempt++) {
          const out = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
          const failed = new Set((out.Failed ?? []).map((f) => f.Id));
          if (failed.size === 0) break;
          if (attempt >= 2)
            throw new ShardSendError(
              `expected SQS to accept ${messages.length} shard message(s), found ${failed.size} refused twice: ${out.Failed?.[0]?.Message ?? 'unknown'}`,
            );
          entries = entries.filter((e) => failed.has(e.Id));
        }
      }
    },
  };
}

export { createSqsShardQueue, ShardSendError, toBatches };
