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
      sharedSecretParameters: [],
      claimLeaseMs: 300_000,
      discoverySources: [],
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
      SHARED_SECRET_PARAMETERS: '/team/apache/secrets/fleet-status, /team/apache/secrets/eu/status',
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
      sharedSecretParameters: ['/team/apache/secrets/fleet-status', '/team/apache/secrets/eu/status'],
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

  it.each([
    ['ec2, elbv2,ec2', ['ec2', 'elbv2']],
    ['', []],
  ])('takes DISCOVERY_SOURCES %j', (text, sources) => {
    const env = { TOPIC_ARN: 'arn:aws:sns:eu-west-1:1:t', STATE_TABLE: 'state', DISCOVERY_SOURCES: text };
    expect(readRuntimeConfig(env).discoverySources).toEqual(sources);
  });

  it('refuses a DISCOVERY_SOURCES it does not know', () => {
    const env = { TOPIC_ARN: 'arn:aws:sns:eu-west-1:1:t', STATE_TABLE: 'state', DISCOVERY_SOURCES: 'ec2,ecs' };
    expect(() => readRuntimeConfig(env)).toThrow(
      'DISCOVERY_SOURCES expects ec2, autoscaling, elbv2 separated by commas, found "ecs"',
    );
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
    // A shared secret is decrypted, which the function may only under <prefix>/secrets/.
    [
      'SHARED_SECRET_PARAMETERS',
      '/httpd-status-alerts/secrets/fleet,/elsewhere/secrets/fleet',
      'SHARED_SECRET_PARAMETERS expects parameter names under /httpd-status-alerts/secrets/, separated by commas, found "/elsewhere/secrets/fleet"',
    ],
    [
      'SHARED_SECRET_PARAMETERS',
      '/httpd-status-alerts/secrets/',
      'SHARED_SECRET_PARAMETERS expects parameter names under /httpd-status-alerts/secrets/, separated by commas, found "/httpd-status-alerts/secrets/"',
    ],
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

  // The lease outlives the run that took the claim: twice the function's timeout at least.
  it.each<[string, Record<string, string>, number | string]>([
    ['neither set: the 5-minute lease of a 60 s timeout', {}, 300_000],
    [
      'the longest timeout, twice its lease',
      { FUNCTION_TIMEOUT_SECONDS: '900', CLAIM_LEASE_SECONDS: '1800' },
      1_800_000,
    ],
    [
      'the longest timeout, a lease one second short',
      { FUNCTION_TIMEOUT_SECONDS: '900', CLAIM_LEASE_SECONDS: '1799' },
      "CLAIM_LEASE_SECONDS expects at least 1800 (2 x the function's 900 s timeout), found 1799: a run still publishing at its timeout would lose its claims to the next run",
    ],
    [
      'a timeout past the default lease, no lease set',
      { FUNCTION_TIMEOUT_SECONDS: '151' },
      "CLAIM_LEASE_SECONDS expects at least 302 (2 x the function's 151 s timeout), found 300: a run still publishing at its timeout would lose its claims to the next run",
    ],
    [
      'a lease that is no number: its own problem only',
      { FUNCTION_TIMEOUT_SECONDS: '900', CLAIM_LEASE_SECONDS: 'long' },
      'CLAIM_LEASE_SECONDS expects a whole number from 2 to 86400, found "long"',
    ],
  ])('the claim lease, %s', (_, variables, expected) => {
    let found: number | string;
    try {
      found = readRuntimeConfig({ ...REQUIRED, ...variables }).claimLeaseMs;
    } catch (error) {
      found = (error as EnvironmentError).problems.join('; ');
    }
    expect(found).toBe(expected);
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
