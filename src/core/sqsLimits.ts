/**
 * Amazon SQS's size limits as a shard message meets them, and the budgets the dispatch keeps
 * under them. SQS counts a message as its body's UTF-8 bytes (plus attributes; shard messages
 * carry none), and a SendMessageBatch as the sum of its entries' bodies.
 */

const SQS_LIMITS = {
  /** A queue's default `MaximumMessageSize` on queues made before 2025, the lowest SQS has used since. */
  messageBytes: 256 * 1024,
  /** One SendMessageBatch: its entries' bodies together (`BatchRequestTooLong` past it). */
  batchBytes: 1024 * 1024,
  /** One SendMessageBatch: entries (`TooManyEntriesInBatchRequest` past it). */
  batchEntries: 10,
} as const;

/**
 * What the dispatch lets itself use: 16 KiB under each message's limit and 64 KiB under each
 * batch's, so that a rounding of ours or a few bytes SQS counts that we do not never refuse a tick.
 */
const SHARD_BUDGET = {
  messageBytes: SQS_LIMITS.messageBytes - 16 * 1024,
  batchBytes: SQS_LIMITS.batchBytes - 64 * 1024,
  batchEntries: SQS_LIMITS.batchEntries,
} as const;

export { SHARD_BUDGET, SQS_LIMITS };
