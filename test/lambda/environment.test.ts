import { describe, expect, it } from 'vitest';
import { EnvironmentError, readRuntimeConfig, wantsTargetMetrics } from '../../src/lambda/environment.ts';
import { configMaxAgeFor } from '../../src/lambda/environmentContract.ts';

const REQUIRED = { TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:alerts', STATE_TABLE: 'alerts' };

describe('readRuntimeConfig', () => {
  it('fills the defaults', () => {
    expect(readRuntimeConfig(REQUIRED)).toEqual({
      ssmPrefix: '/httpd-status-alerts',
      topicArn: REQUIRED.TOPIC_ARN,
      stateTable: 'alerts',
      repeatIntervalMs: 4 * 3600_000,
      downAfterFailures: 2,
      configMaxAgeSeconds: 270,
      fetchConcurrency: 16,
      chatbotFormat: false,
      chatbotTopicArn: null,
      shardMode: 'none',
      shardQueueUrl: null,
      targetsPerShard: 500,
      shardMaxAgeSeconds: 60,
      targetMetrics: 'none',
      runtimeApi: null,
    });
  });

  it('reads every option', () => {
    const config = readRuntimeConfig({
      ...REQUIRED,
      SSM_PREFIX: '/team/apache/',
      REPEAT_INTERVAL: '30m',
      DOWN_AFTER_FAILURES: '3',
      CONFIG_MAX_AGE_SECONDS: '0',
      FETCH_CONCURRENCY: '64',
      CHATBOT_FORMAT: 'true',
      CHATBOT_TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:chat',
      TARGET_METRICS: 'web-1, web-2',
      AWS_LAMBDA_RUNTIME_API: '127.0.0.1:9001',
    });
    expect(config).toMatchObject({
      ssmPrefix: '/team/apache',
      repeatIntervalMs: 1_800_000,
      downAfterFailures: 3,
      configMaxAgeSeconds: 0,
      fetchConcurrency: 64,
      chatbotFormat: true,
      chatbotTopicArn: 'arn:aws:sns:eu-west-1:123456789012:chat',
      targetMetrics: ['web-1', 'web-2'],
      runtimeApi: { host: '127.0.0.1', port: 9001 },
    });
  });

  it.each([
    ['7d', 7 * 86_400_000],
    ['1s', 1_000],
  ])('takes REPEAT_INTERVAL %s', (text, ms) => {
    expect(
      readRuntimeConfig({ TOPIC_ARN: 'arn:aws:sns:eu-west-1:1:t', STATE_TABLE: 'state', REPEAT_INTERVAL: text })
        .repeatIntervalMs,
    ).toBe(ms);
  });

  // Why 7d: a firing incident is paged again within the PagerDuty forwarder's 14-day memory of it.
  it.each(['8d', '0s'])('refuses REPEAT_INTERVAL %s', (text) => {
    expect(() =>
      readRuntimeConfig({ TOPIC_ARN: 'arn:aws:sns:eu-west-1:1:t', STATE_TABLE: 'state', REPEAT_INTERVAL: text }),
    ).toThrow(`REPEAT_INTERVAL expects a duration like 4h or 30m, at most 7d, found "${text}"`);
  });

  // The value found as a JSON string: a stray quote or line break shows in the message.
  it.each([
    ['FETCH_CONCURRENCY', '"16"', 'FETCH_CONCURRENCY expects a whole number from 1 to 1000, found "\\"16\\""'],
    ['SSM_PREFIX', 'team\r', 'SSM_PREFIX expects a path like /httpd-status-alerts, found "team\\r"'],
    ['CHATBOT_TOPIC_ARN', 'chat\n', 'CHATBOT_TOPIC_ARN expects an SNS topic ARN (arn:aws:sns:...), found "chat\\n"'],
    [
      'AWS_LAMBDA_RUNTIME_API',
      '127.0.0.1',
      'AWS_LAMBDA_RUNTIME_API expects host:port such as 127.0.0.1:9001, found "127.0.0.1"',
    ],
  ])('refuses %s=%j', (variable, value, problem) => {
    let error: unknown;
    try {
      readRuntimeConfig({ ...REQUIRED, [variable]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as EnvironmentError).problems).toEqual([problem]);
  });

  it('lists every problem at once', () => {
    let error: unknown;
    try {
      readRuntimeConfig({
        TOPIC_ARN: 'alerts',
        REPEAT_INTERVAL: 'soon',
        FETCH_CONCURRENCY: '0',
        CHATBOT_FORMAT: 'yes',
        CHATBOT_TOPIC_ARN: 'chat',
        SHARD_MODE: 'sqs',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as EnvironmentError).problems).toEqual([
      'TOPIC_ARN expects an SNS topic ARN (arn:aws:sns:...)',
      'STATE_TABLE is required: the name of the DynamoDB state table',
      'REPEAT_INTERVAL expects a duration like 4h or 30m, at most 7d, found "soon"',
      'FETCH_CONCURRENCY expects a whole number from 1 to 1000, found "0"',
      'CHATBOT_FORMAT expects true or false',
      'CHATBOT_TOPIC_ARN expects an SNS topic ARN (arn:aws:sns:...), found "chat"',
      'SHARD_QUEUE_URL is required when SHARD_MODE is sqs',
    ]);
  });
});

describe('configMaxAgeFor', () => {
  // Runs arrive one interval apart, give or take; the cache must outlive four of them, not five.
  it.each([
    [1, 270],
    [5, 1350],
    [60, 16_200],
  ])('a %i-minute schedule keeps the configuration %i s: SSM read on every fifth run', (minutes, seconds) => {
    expect(configMaxAgeFor(minutes)).toBe(seconds);
    expect(seconds).toBeGreaterThan(4 * minutes * 60);
    expect(seconds).toBeLessThan(5 * minutes * 60);
  });
});

describe('wantsTargetMetrics', () => {
  it.each([
    ['all', 'web-1', true],
    ['none', 'web-1', false],
    ['web-1,web-2', 'web-2', true],
    ['web-1,web-2', 'web-3', false],
  ])('TARGET_METRICS=%s, target %s: %s', (setting, target, expected) => {
    const { targetMetrics } = readRuntimeConfig({ ...REQUIRED, TARGET_METRICS: setting });
    expect(wantsTargetMetrics(targetMetrics, target)).toBe(expected);
  });
});
