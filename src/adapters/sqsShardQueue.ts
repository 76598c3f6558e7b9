/**
 * Sends shard messages to SQS, ten a call; failed entries are retried once, then the dispatch fails.
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { ShardMessage, ShardQueue } from '../app/ports.ts';

const BATCH = 10;

class ShardSendError extends Error {
  constructor(failed: number, total: number, reason: string) {
    super(`expected SQS to accept ${total} shard message(s), found ${failed} refused twice: ${reason}`);
    this.name = 'ShardSendError';
  }
}

/**
 * @example
 * const queue = createSqsShardQueue(new SQSClient({}), process.env.SHARD_QUEUE_URL);
 */
function createSqsShardQueue(client: SQSClient, queueUrl: string): ShardQueue {
  return {
    async send(messages) {
      for (let i = 0; i < messages.length; i += BATCH) {
        let entries = messages
          .slice(i, i + BATCH)
          .map((m: ShardMessage, k) => ({ Id: String(i + k), MessageBody: JSON.stringify(m) }));
        for (let attempt = 1; entries.length > 0; attempt++) {
          const out = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
          const failed = new Set((out.Failed ?? []).map((f) => f.Id));
          if (failed.size === 0) break;
          if (attempt >= 2)
            throw new ShardSendError(failed.size, messages.length, out.Failed?.[0]?.Message ?? 'unknown');
          entries = entries.filter((e) => failed.has(e.Id));
        }
      }
    },
  };
}

export { createSqsShardQueue };
