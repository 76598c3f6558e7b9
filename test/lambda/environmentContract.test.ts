import { describe, expect, it } from 'vitest';
import { readRuntimeConfig } from '../../src/lambda/environment.ts';
import {
  FORWARDER_ENVIRONMENT,
  forwarderVariables,
  MONITOR_ENVIRONMENT,
  type MonitorValues,
  monitorVariables,
  shardVariables,
} from '../../src/lambda/environmentContract.ts';
import { readPagerDutyConfig } from '../../src/lambda/pagerDutyForwarder.ts';

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
      runtimeApi: null,
    });
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
