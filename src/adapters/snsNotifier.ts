/**
 * Publishes a notification to SNS: one message per protocol (`MessageStructure: json`: text for
 * e-mail and SMS, JSON for SQS/Lambda/HTTPS subscribers, optionally AWS Chatbot's custom format for
 * HTTPS), message attributes for subscription filter policies, retries on throttling and 5xx.
 */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { Notification } from '../core/alerts/types.ts';

interface Notifier {
  publish(notification: Notification): Promise<void>;
}

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

/** AWS Chatbot custom notification: https://docs.aws.amazon.com/chatbot/latest/adminguide/custom-notifs.html */
function chatbotMessage(n: Notification): Record<string, unknown> {
  const runbook = typeof n.payload.runbook === 'string' ? [`Runbook: ${n.payload.runbook}`] : [];
  return {
    version: '1.0',
    source: 'custom',
    id: `${n.fingerprint}-${n.status}`,
    content: {
      textType: 'client-markdown',
      title: n.subject,
      description: n.message.slice(0, 8000),
      nextSteps: runbook,
    },
    metadata: { threadId: n.fingerprint, summary: n.subject, enableCustomActions: false },
  };
}

function messageFor(n: Notification, chatbot: boolean): string {
  const json = JSON.stringify(n.payload);
  return JSON.stringify({
    default: n.message,
    email: n.message,
    'email-json': json,
    sms: n.subject,
    sqs: json,
    lambda: json,
    http: json,
    https: chatbot ? JSON.stringify(chatbotMessage(n)) : json,
  });
}

const attribute = (value: string) => ({ DataType: 'String', StringValue: value === '' ? '-' : value });

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
      const command = new PublishCommand({
        TopicArn: topicArn,
        Subject: n.subject,
        Message: messageFor(n, options.chatbotFormat === true),
        MessageStructure: 'json',
        MessageAttributes: {
          severity: attribute(n.severity),
          status: attribute(n.status),
          target: attribute(n.target),
          rule: attribute(n.rule),
        },
      });
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

export type { Notifier, NotifierOptions };
export { createSnsNotifier, PublishError };
