import { describe, expect, it } from 'vitest';
import { readRuntimeConfig } from '../../src/lambda/environment.ts';
import {
  claimLeaseSecondsFor,
  FORWARDER_ENVIRONMENT,
  forwarderVariables,
  MAX_FUNCTION_TIMEOUT_SECONDS,
  MONITOR_ENVIRONMENT,
  type MonitorValues,
  monitorVariables,
  shardVariables,
} from '../../src/lambda/environmentContract.ts';
import { readPagerDutyConfig } from '../../src/lambda/forwarderEnvironment.ts';

const VALUES: MonitorValues = {
  ssmPrefix: '/team/apache',
  topicArn: 'arn:aws:sns:eu-west-1:123456789012:alerts',
  stateTable: 'alerts-state',
  repeatInterval: '30m',
  downAfterFailures: 3,
  configMaxAgeSeconds: 120,
  fetchConcurrency: 32,
  chatbotFormat: true,
  targetMetrics: ['web-1', 'web-2'],
  sharedSecretParameters: ['/team/apache/secrets/fleet-status', '/team/apache/secrets/eu/status'],
  discoverySources: ['ec2', 'elbv2'],
  timeoutSeconds: 120,
};

describe('the environment the stack sets is the one the Lambda reads', () => {
  it('reads back every monitor value', () => {
    expect(readRuntimeConfig(monitorVariables(VALUES))).toEqual({
      ssmPrefix: '/team/apache',
      topicArn: VALUES.topicArn,
      stateTable: 'alerts-state',
      repeatIntervalMs: 1_800_000,
      downAfterFailures: 3,
      configMaxAgeSeconds: 120,
      fetchConcurrency: 32,
      chatbotFormat: true,
      chatbotTopicArn: null,
      shardMode: 'none',
      shardQueueUrl: null,
      targetsPerShard: MONITOR_ENVIRONMENT.targetsPerShard.default,
      shardMaxAgeSeconds: MONITOR_ENVIRONMENT.shardMaxAgeSeconds.default,
      targetMetrics: ['web-1', 'web-2'],
      sharedSecretParameters: ['/team/apache/secrets/fleet-status', '/team/apache/secrets/eu/status'],
      claimLeaseMs: 300_000,
      discoverySources: ['ec2', 'elbv2'],
      runtimeApi: null,
    });
  });

  // Lambda's longest timeout (900 s, the stack's too) is the case that matters: a lease under 1800 s
  // would let the next run take over claims of a run still publishing.
  it.each([
    [5, 300],
    [60, 300],
    [150, 300],
    [151, 302],
    [MAX_FUNCTION_TIMEOUT_SECONDS, 1800],
  ])('a %i s timeout: the stack sets a %i s lease, and the Lambda accepts it', (timeoutSeconds, leaseSeconds) => {
    const variables = monitorVariables({ ...VALUES, timeoutSeconds });
    expect(variables[MONITOR_ENVIRONMENT.claimLeaseSeconds.name]).toBe(String(leaseSeconds));
    expect(claimLeaseSecondsFor(timeoutSeconds)).toBe(leaseSeconds);
    expect(readRuntimeConfig(variables).claimLeaseMs).toBe(leaseSeconds * 1000);
  });

  it.each([
    { targetMetrics: [] as string[], expected: 'none' },
    { targetMetrics: 'all' as const, expected: 'all' },
  ])('writes targetMetrics $targetMetrics as $expected', ({ targetMetrics, expected }) => {
    const variables = monitorVariables({ ...VALUES, targetMetrics });
    expect(variables[MONITOR_ENVIRONMENT.targetMetrics.name]).toBe(expected);
    expect(readRuntimeConfig(variables).targetMetrics).toBe(expected);
  });

  it('reads back the shard values', () => {
    const shard = {
      queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/shards',
      targetsPerShard: 200,
      maxAgeSeconds: 300,
    };
    const config = readRuntimeConfig({ ...monitorVariables(VALUES), ...shardVariables(shard) });
    expect(config).toMatchObject({
      shardMode: 'sqs',
      shardQueueUrl: shard.queueUrl,
      targetsPerShard: 200,
      shardMaxAgeSeconds: 300,
    });
  });

  it('reads back the forwarder values', () => {
    const values = {
      routingKeyParameter: '/team/apache/secrets/pagerduty',
      eventsUrl: 'https://events.eu.pagerduty.com/v2/enqueue',
      eventsPer: 'alert',
      stateTable: 'httpd-status-alerts-state',
    };
    expect(readPagerDutyConfig(forwarderVariables(values))).toEqual({
      ...values,
      routingKeyMaxAgeSeconds: FORWARDER_ENVIRONMENT.routingKeyMaxAgeSeconds.default,
    });
  });
});
