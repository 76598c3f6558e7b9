/**
 * Publishes a notification to SNS (the request from `buildPublishInput`: one message per protocol,
 * every variant within its budget), retrying on throttling and 5xx.
 */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { Notifier } from '../app/ports.ts';
import type { Notification } from '../core/alerts/types.ts';
import { buildPublishInput } from './snsMessage.ts';

class PublishError extends Error {
  constructor(notification: Notification, attempts: number, options?: ErrorOptions) {
    super(
      `expected SNS to accept "${notification.subject}", found it rejected after ${attempts} attempt(s): ${(options?.cause as Error | undefined)?.message ?? 'unknown error'}`,
      options,
    );
    this.name = 'PublishError';
  }
}

interface NotifierOptions {
  chatbotFormat?: boolean;
  /** Attempts in all, including the first (default 4). */
  maxAttempts?: number;
  /** Base of the exponential backoff in ms (default 200). */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const RETRYABLE_NAMES = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'InternalErrorException',
  'KMSThrottlingException',
]);

function isRetryable(error: unknown): boolean {
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  if (e.name !== undefined && RETRYABLE_NAMES.has(e.name)) return true;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 || status === 429;
  // No HTTP answer at all (reset, timeout) is worth another try; a bug in our own code is not.
  return e.code !== undefined || /Timeout|Network|Socket/i.test(e.name ?? '');
}

/**
 * @example
 * const notifier = createSnsNotifier(new SNSClient({}), process.env.TOPIC_ARN);
 * await notifier.publish(notification);
 */
function createSnsNotifier(client: SNSClient, topicArn: string, options: NotifierOptions = {}): Notifier {
  const maxAttempts = options.maxAttempts ?? 4;
  const backoffMs = options.backoffMs ?? 200;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return {
    async publish(n) {
      const command = new PublishCommand(buildPublishInput(n, topicArn, options));
      for (let attempt = 1; ; attempt++) {
        try {
          await client.send(command);
          return;
        } catch (error) {
          if (attempt >= maxAttempts || !isRetryable(error)) throw new PublishError(n, attempt, { cause: error });
          await sleep(backoffMs * 2 ** (attempt - 1));
        }
      }
    },
  };
}

export type { NotifierOptions };
export { createSnsNotifier, PublishError };
