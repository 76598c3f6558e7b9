/**
 * The Lambda's notifier as src/lambda/runtime.ts composes it from the environment: with
 * CHATBOT_TOPIC_ARN set, each page reaches the alert topic and a copy reaches the chat topic
 * (fauxqs, both topics read back through SQS subscriptions).
 */
import { CreateTopicCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Notification } from '../../src/core/alerts/types.ts';
import { credentials, type LocalSns, region, startSns } from '../support/emulators.ts';
import { partialMessage } from '../support/messages.ts';

const notification: Notification = {
  fingerprint: 'abc123',
  status: 'firing',
  reason: 'first',
  target: 'web-1',
  rule: 'closing-pileup',
  severity: 'critical',
  value: 23,
  threshold: 20,
  subject: '[FIRING critical] web-1: closing-pileup (23 >= 20)',
  message: 'FIRING critical: closing-pileup on web-1',
  payload: partialMessage({
    version: 1,
    status: 'firing',
    fingerprint: 'abc123',
    target: 'web-1',
    rule: 'closing-pileup',
  }),
  labels: {},
};

describe('runtime notifier with CHATBOT_TOPIC_ARN', () => {
  let sns: LocalSns;
  let sqs: SQSClient;
  let chatTopicArn: string;
  let chatQueueUrl: string;

  beforeAll(async () => {
    sns = await startSns();
    sqs = new SQSClient({ endpoint: sns.endpoint, region, credentials });
    chatTopicArn = (await sns.sns.send(new CreateTopicCommand({ Name: 'chat' }))).TopicArn as string;
    chatQueueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'chat-inbox' }))).QueueUrl as string;
    const attrs = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: chatQueueUrl, AttributeNames: ['QueueArn'] }),
    );
    await sns.sns.send(
      new SubscribeCommand({ TopicArn: chatTopicArn, Protocol: 'sqs', Endpoint: attrs.Attributes?.QueueArn as string }),
    );
    vi.stubEnv('AWS_ENDPOINT_URL_SNS', sns.endpoint);
    vi.stubEnv('TOPIC_ARN', sns.topicArn);
    vi.stubEnv('STATE_TABLE', 'alerts');
    vi.stubEnv('CHATBOT_TOPIC_ARN', chatTopicArn);
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'SILENT');
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    sqs.destroy();
    await sns.stop();
  });

  it('publishes the page to the alert topic and its copy to the chat topic, with the same attributes', async () => {
    // Prepare
    const { deps } = await import('../../src/lambda/runtime.ts');

    // Act
    await deps.notifier.publish(notification);

    // Assess
    const alert = await sns.drain();
    const chat = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: chatQueueUrl, MaxNumberOfMessages: 10 })))
      .Messages;
    for (const m of chat ?? [])
      await sqs.send(new DeleteMessageCommand({ QueueUrl: chatQueueUrl, ReceiptHandle: m.ReceiptHandle as string }));
    expect(alert.map((m) => [m.subject, JSON.parse(m.body)])).toEqual([[notification.subject, notification.payload]]);
    expect(chat).toHaveLength(1);
    const envelope = JSON.parse(chat?.[0]?.Body as string) as {
      TopicArn: string;
      Subject: string;
      MessageAttributes: Record<string, { Value: string }>;
    };
    expect(envelope.TopicArn).toBe(chatTopicArn);
    expect(envelope.Subject).toBe(notification.subject);
    expect(Object.fromEntries(Object.entries(envelope.MessageAttributes).map(([k, v]) => [k, v.Value]))).toEqual(
      alert[0]?.attributes,
    );
  });
});
