import { PublishCommand, type PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { withChatCopy } from '../../src/adapters/chatCopyNotifier.ts';
import { createSnsNotifier } from '../../src/adapters/snsNotifier.ts';
import type { Notification } from '../../src/core/alerts/types.ts';
import { partialMessage } from '../support/messages.ts';

const ALERTS = 'arn:aws:sns:eu-west-1:123456789012:alerts';
const CHAT = 'arn:aws:sns:eu-west-1:123456789012:chat';

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

/** The real notifiers the Lambda composes: JSON to webhooks on the alert topic, Chatbot's format on the chat topic. */
function notifiers(client: SNSClient, failures: unknown[]) {
  const noSleep = async () => {};
  return withChatCopy(
    createSnsNotifier(client, ALERTS, { sleep: noSleep }),
    createSnsNotifier(client, CHAT, { chatbotFormat: true, sleep: noSleep }),
    (error) => failures.push(error),
  );
}

const httpsVariant = (input: PublishCommandInput) =>
  JSON.parse((JSON.parse(input.Message as string) as { https: string }).https) as Record<string, unknown>;

describe('withChatCopy', () => {
  const sns = mockClient(SNSClient);
  afterEach(() => sns.reset());

  it('publishes the page with JSON for webhooks, then the copy with Chatbot’s format on the chat topic', async () => {
    // Prepare
    sns.on(PublishCommand).resolves({ MessageId: 'm' });
    const failures: unknown[] = [];

    // Act
    await notifiers(new SNSClient({}), failures).publish(notification);

    // Assess
    const inputs = sns.commandCalls(PublishCommand).map((c) => c.args[0].input);
    expect(inputs.map((i) => i.TopicArn)).toEqual([ALERTS, CHAT]);
    expect(httpsVariant(inputs[0] as PublishCommandInput)).toEqual(notification.payload);
    expect(httpsVariant(inputs[1] as PublishCommandInput)).toMatchObject({
      version: '1.0',
      source: 'custom',
      content: { textType: 'client-markdown', title: notification.subject },
      metadata: { threadId: 'abc123' },
    });
    expect(inputs[1]?.MessageAttributes).toEqual(inputs[0]?.MessageAttributes);
    expect(failures).toEqual([]);
  });

  it('keeps the page when the copy fails: reported, not thrown, so the page is not sent twice', async () => {
    // Prepare
    sns.on(PublishCommand, { TopicArn: ALERTS }).resolves({ MessageId: 'm' });
    sns
      .on(PublishCommand, { TopicArn: CHAT })
      .rejects(Object.assign(new Error('denied'), { name: 'AuthorizationError' }));
    const failures: unknown[] = [];

    // Act
    await notifiers(new SNSClient({}), failures).publish(notification);

    // Assess
    expect(sns.commandCalls(PublishCommand).map((c) => c.args[0].input.TopicArn)).toEqual([ALERTS, CHAT]);
    expect(failures.map((e) => (e as Error).name)).toEqual(['PublishError']);
  });

  it('sends no copy when the page itself failed, and fails as the page did', async () => {
    // Prepare
    sns.on(PublishCommand).rejects(Object.assign(new Error('denied'), { name: 'AuthorizationError' }));
    const failures: unknown[] = [];

    // Act
    const publishing = notifiers(new SNSClient({}), failures).publish(notification);

    // Assess
    await expect(publishing).rejects.toMatchObject({ name: 'PublishError' });
    expect(sns.commandCalls(PublishCommand).map((c) => c.args[0].input.TopicArn)).toEqual([ALERTS]);
    expect(failures).toEqual([]);
  });
});
