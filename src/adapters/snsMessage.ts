/**
 * The SNS Publish request for a notification (`MessageStructure: json`): text for e-mail and SMS,
 * JSON for SQS/Lambda/HTTP(S) subscribers, optionally AWS Chatbot's custom format for HTTPS, and
 * message attributes for subscription filter policies. Every variant is held to its budget here,
 * whoever built the notification, so that the whole publish stays under SNS's 256 KB.
 */
import type { PublishCommandInput } from '@aws-sdk/client-sns';
import type { Notification } from '../core/alerts/types.ts';
import {
  MAX_ATTRIBUTE_CHARS,
  MAX_CHATBOT_BYTES,
  MAX_PAYLOAD_BYTES,
  MAX_SUBJECT_CHARS,
  MAX_TEXT_MESSAGE_BYTES,
} from '../core/constants.ts';
import { fitText, jsonStringBytes } from '../core/text/limits.ts';
import { cleanConfigText, cleanSubjectText } from '../core/text/sanitize.ts';

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
  const rulebook = 'runbook' in n.payload ? n.payload.runbook : null;
  const runbook = rulebook === null ? [] : [`Runbook: ${cleanConfigText(rulebook)}`];
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
  options: { chatbotFormat?: boolean } = {},
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

export { buildPublishInput };
