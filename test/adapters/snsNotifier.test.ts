import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSnsNotifier, PublishError } from '../../src/adapters/snsNotifier.ts';
import type { Notification } from '../../src/core/alerts/types.ts';
import { type LocalSns, startSns } from '../support/emulators.ts';
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
  message: 'closing-pileup is firing on web-1\nRunbook: https://wiki.example/closing',
  payload: partialMessage({
    version: 1,
    status: 'firing',
    rule: 'closing-pileup',
    target: 'web-1',
    value: 23,
    runbook: 'https://wiki.example/closing',
  }),
  labels: { env: 'prod' },
};

describe('snsNotifier against fauxqs (SNS -> SQS)', () => {
  let local: LocalSns;
  beforeAll(async () => {
    local = await startSns();
  });
  afterAll(async () => {
    await local.stop();
  });

  it('publishes the subject, the JSON payload for SQS and the filter attributes', async () => {
    // Prepare
    const notifier = createSnsNotifier(local.sns, local.topicArn);
    // Act
    await notifier.publish(notification);
    // Assess
    const received = await local.drain();
    expect(received).toHaveLength(1);
    expect(received[0]?.subject).toBe(notification.subject);
    expect(JSON.parse(received[0]?.body as string)).toEqual(notification.payload);
    expect(received[0]?.attributes).toEqual({
      severity: 'critical',
      status: 'firing',
      target: 'web-1',
      rule: 'closing-pileup',
    });
  });
});

describe('snsNotifier retries', () => {
  const sleeps: number[] = [];
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };
  const throttled = Object.assign(new Error('Rate exceeded'), {
    name: 'Throttling',
    $metadata: { httpStatusCode: 400 },
  });
  const serverError = Object.assign(new Error('Internal'), {
    name: 'InternalError',
    $metadata: { httpStatusCode: 500 },
  });
  const denied = Object.assign(new Error('not authorized'), {
    name: 'AuthorizationError',
    $metadata: { httpStatusCode: 403 },
  });

  it.each([
    ['throttling then success', [throttled], 2, [200]],
    ['5xx twice then success', [serverError, serverError], 3, [200, 400]],
  ])('%s: sent after %#', async (_name, errors, calls, backoff) => {
    sleeps.length = 0;
    const mock = mockClient(SNSClient);
    let chain = mock.on(PublishCommand);
    for (const e of errors) chain = chain.rejectsOnce(e);
    chain.resolves({ MessageId: 'm-1' });
    const notifier = createSnsNotifier(new SNSClient({}), 'arn:aws:sns:eu-west-1:1:t', { sleep });
    await notifier.publish(notification);
    expect(mock.commandCalls(PublishCommand)).toHaveLength(calls);
    expect(sleeps).toEqual(backoff);
    const input = mock.commandCalls(PublishCommand)[0]?.args[0].input;
    expect(input?.MessageStructure).toBe('json');
    const message = JSON.parse(input?.Message as string);
    expect(message.default).toBe(notification.message);
    expect(message.email).toBe(notification.message);
    expect(JSON.parse(message.lambda)).toEqual(notification.payload);
    mock.restore();
  });

  it.each([
    ['a permission error at once', [denied], 1],
    ['throttling that never ends, after 4 attempts', [throttled, throttled, throttled, throttled], 4],
  ])('gives up on %s', async (_name, errors, calls) => {
    const mock = mockClient(SNSClient);
    let chain = mock.on(PublishCommand);
    for (const e of errors) chain = chain.rejectsOnce(e);
    const notifier = createSnsNotifier(new SNSClient({}), 'arn:aws:sns:eu-west-1:1:t', { sleep });
    await expect(notifier.publish(notification)).rejects.toThrow(PublishError);
    expect(mock.commandCalls(PublishCommand)).toHaveLength(calls);
    mock.restore();
  });

  it('sends the AWS Chatbot custom format to HTTPS subscribers when asked', async () => {
    const mock = mockClient(SNSClient);
    mock.on(PublishCommand).resolves({ MessageId: 'm-2' });
    await createSnsNotifier(new SNSClient({}), 'arn:aws:sns:eu-west-1:1:t', { chatbotFormat: true }).publish(
      notification,
    );
    const message = JSON.parse(mock.commandCalls(PublishCommand)[0]?.args[0].input.Message as string);
    expect(JSON.parse(message.https)).toEqual({
      version: '1.0',
      source: 'custom',
      id: 'abc123-firing',
      content: {
        textType: 'client-markdown',
        title: notification.subject,
        // In a code block: fixed-width layout, nothing read as markdown.
        description: `\`\`\`\n${notification.message}\n\`\`\``,
        nextSteps: ['Runbook: https://wiki.example/closing'],
      },
      metadata: { threadId: 'abc123', summary: notification.subject, enableCustomActions: false },
    });
    mock.restore();
  });
});
