/**
 * Publishes a notification to SNS: one message per protocol (`MessageStructure: json`: text for
 * e-mail and SMS, JSON for SQS/Lambda/HTTPS subscribers, optionally AWS Chatbot's custom format for
 * HTTPS), message attributes for subscription filter policies, retries on throttling and 5xx.
 * Every variant is held to its budget here, whoever built the notification, so that the whole
 * publish stays under SNS's 256 KB.
 */
import { PublishCommand, type PublishCommandInput, type SNSClient } from '@aws-sdk/client-sns';
import type { Notification } from '../core/alerts/types.ts';
import {
  MAX_ATTRIBUTE_CHARS,
  MAX_CHATBOT_BYTES,
  MAX_PAYLOAD_BYTES,
  MAX_SUBJECT_CHARS,
  MAX_TEXT_MESSAGE_BYTES,
} from '../core/constants.ts';
import { fitText, jsonStringBytes } from '../core/notify/limits.ts';
import { cleanConfigText, cleanSubjectText } from '../core/notify/sanitize.ts';

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

/** Chatbot shows at most this much of a description. */
const CHATBOT_DESCRIPTION_CHARS = 8000;
/**
 * Chatbot's message besides the description (title and summary: the subject; the runbook, at most
 * 500 characters; fixed fields), with its escapes doubled inside the envelope: under 4 KB.
 */
const CHATBOT_OVERHEAD_BYTES = 4096;
const FENCE = '```';

/** `text` cut to `max` UTF-16 units, never between the halves of a surrogate pair. */
function firstUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/**
 * AWS Chatbot custom notification: https://docs.aws.amazon.com/chatbot/latest/adminguide/custom-notifs.html
 * The text goes in a code block: it is laid out for a fixed-width font, and nothing in it is read
 * as markdown (report text in it is defanged as well, and cannot close the block: backticks are
 * percent-encoded).
 */
function chatbotMessage(n: Notification, subject: string, text: string): Record<string, unknown> {
  const runbook = typeof n.payload.runbook === 'string' ? [`Runbook: ${cleanConfigText(n.payload.runbook)}`] : [];
  // The description is escaped twice (in Chatbot's JSON, then in the envelope): at most twice its bytes.
  const room = (MAX_CHATBOT_BYTES - CHATBOT_OVERHEAD_BYTES) / 2;
  const body = fitText(firstUnits(text, CHATBOT_DESCRIPTION_CHARS), room, '\n...');
  return {
    version: '1.0',
    source: 'custom',
    id: `${n.fingerprint}-${n.status}`,
    content: {
      textType: 'client-markdown',
      title: subject,
      description: `${FENCE}\n${body}\n${FENCE}`,
      nextSteps: runbook,
    },
    metadata: { threadId: n.fingerprint, summary: subject, enableCustomActions: false },
  };
}

/** The payload as JSON within its budget; past it, the alert's identity and `truncated: true`. */
function payloadJson(n: Notification): string {
  const json = JSON.stringify(n.payload);
  if (jsonStringBytes(json) <= MAX_PAYLOAD_BYTES) return json;
  return JSON.stringify({
    version: 1,
    status: n.status,
    reason: n.reason,
    fingerprint: n.fingerprint,
    target: fitText(n.target, 200),
    rule: fitText(n.rule, 200),
    severity: n.severity,
    value: n.value,
    threshold: n.threshold,
    truncated: true,
  });
}

/** SNS subjects: ASCII, one line, under 100 characters. */
function subjectOf(n: Notification): string {
  return cleanSubjectText(n.subject).slice(0, MAX_SUBJECT_CHARS);
}

function messageFor(n: Notification, subject: string, chatbot: boolean): string {
  const text = fitText(n.message, MAX_TEXT_MESSAGE_BYTES, '\n...');
  const json = payloadJson(n);
  return JSON.stringify({
    default: text,
    email: text,
    'email-json': json,
    sms: subject,
    sqs: json,
    lambda: json,
    http: json,
    https: chatbot ? JSON.stringify(chatbotMessage(n, subject, text)) : json,
  });
}

const attribute = (value: string) => ({
  DataType: 'String',
  StringValue: value === '' ? '-' : cleanConfigText(value, MAX_ATTRIBUTE_CHARS),
});

/**
 * The SNS Publish request for a notification: every variant within its budget, the whole under
 * 256 KB (`MAX_SNS_PUBLISH_BYTES`).
 *
 * @example
 * const input = buildPublishInput(notification, topicArn, { chatbotFormat: true });
 */
function buildPublishInput(
  n: Notification,
  topicArn: string,
  options: Pick<NotifierOptions, 'chatbotFormat'> = {},
): PublishCommandInput {
  const subject = subjectOf(n);
  return {
    TopicArn: topicArn,
    Subject: subject,
    Message: messageFor(n, subject, options.chatbotFormat === true),
    MessageStructure: 'json',
    MessageAttributes: {
      severity: attribute(n.severity),
      status: attribute(n.status),
      target: attribute(n.target),
      rule: attribute(n.rule),
    },
  };
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

export type { Notifier, NotifierOptions };
export { buildPublishInput, createSnsNotifier, PublishError };
