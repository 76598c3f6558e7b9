import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SHARD_CONCURRENCY,
  readShardingSettings,
  Sharding,
  ShardingConfigError,
} from '../../infra/constructs/sharding.ts';
import { DEFAULT_TARGETS_PER_SHARD } from '../../src/core/constants.ts';
import { synth } from './synth.ts';

/** A tiny stack: an inline-code function reserved to 1, like the monitor, plus the construct. */
function tinyStack(context: Record<string, unknown>, withDlq = false) {
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Tiny');
  const fn = new lambda.Function(stack, 'Fn', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => {};'),
    timeout: Duration.seconds(60),
    reservedConcurrentExecutions: 1,
  });
  const failures = withDlq ? new sqs.Queue(stack, 'FailedRuns') : undefined;
  const sharding = new Sharding(stack, 'Sharding', {
    fn,
    settings: readShardingSettings((key) => context[key]),
    scheduleMinutes: 1,
    ...(failures ? { deadLetterQueue: failures } : {}),
  });
  return { template: Template.fromStack(stack), sharding, stack };
}

const countOf = (template: Template, type: string) => Object.keys(template.findResources(type)).length;

describe('readShardingSettings', () => {
  it('is off by default, with the measured shard size', () => {
    expect(readShardingSettings(() => undefined)).toEqual({
      mode: 'none',
      targetsPerShard: DEFAULT_TARGETS_PER_SHARD,
      maxConcurrency: DEFAULT_SHARD_CONCURRENCY,
    });
  });

  it('reads the strings `-c key=value` passes', () => {
    const context: Record<string, unknown> = { shardMode: 'sqs', targetsPerShard: '150', shardConcurrency: '8' };
    expect(readShardingSettings((key) => context[key])).toEqual({
      mode: 'sqs',
      targetsPerShard: 150,
      maxConcurrency: 8,
    });
  });

  it('names every bad key at once', () => {
    const context: Record<string, unknown> = { shardMode: 'stepfunctions', targetsPerShard: '5', shardConcurrency: 1 };
    let thrown: unknown;
    try {
      readShardingSettings((key) => context[key]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ShardingConfigError);
    expect((thrown as ShardingConfigError).problems).toEqual([
      'shardMode: expected none or sqs, found "stepfunctions"',
      'targetsPerShard: expected an integer from 10 to 1000, found "5"',
      'shardConcurrency: expected an integer from 2 to 1000, found 1',
    ]);
  });
});

describe('Sharding without the switch', () => {
  it('adds nothing: no queue, no mapping, no grant, no environment, reservation unchanged', () => {
    // Prepare / Act
    const { template, sharding } = tinyStack({});
    // Assess
    expect(sharding.queue).toBeUndefined();
    expect(countOf(template, 'AWS::SQS::Queue')).toBe(0);
    expect(countOf(template, 'AWS::Lambda::EventSourceMapping')).toBe(0);
    expect(countOf(template, 'AWS::IAM::Policy')).toBe(0);
    template.hasResourceProperties('AWS::Lambda::Function', {
      ReservedConcurrentExecutions: 1,
      Environment: Match.absent(),
    });
  });
});

describe('Sharding with -c shardMode=sqs', () => {
  const { template } = tinyStack({ shardMode: 'sqs', targetsPerShard: '150', shardConcurrency: '4' });
  const queues = template.findResources('AWS::SQS::Queue');
  const shardQueueId = Object.keys(queues).find((id) => id.startsWith('ShardingShards')) ?? '';
  const dlqId = Object.keys(queues).find((id) => id.startsWith('ShardingFailedShards')) ?? '';

  it('creates an encrypted shard queue that dead-letters after one retry', () => {
    expect(Object.keys(queues).sort()).toEqual([dlqId, shardQueueId].sort());
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 60,
      MessageRetentionPeriod: 120,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 2 },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 1209600 });
  });

  it('maps the queue to the same function, one shard per invocation, bounded concurrency', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [shardQueueId, 'Arn'] },
      FunctionName: { Ref: Match.stringLikeRegexp('^Fn') },
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: 4 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('lets the function send shards and consume them, on that queue only', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
            Resource: { 'Fn::GetAtt': [shardQueueId, 'Arn'] },
          }),
          Match.objectLike({
            Action: [
              'sqs:ReceiveMessage',
              'sqs:ChangeMessageVisibility',
              'sqs:GetQueueUrl',
              'sqs:DeleteMessage',
              'sqs:GetQueueAttributes',
            ],
            Resource: { 'Fn::GetAtt': [shardQueueId, 'Arn'] },
          }),
        ]),
      },
    });
  });

  it('tells the handler its mode, queue, shard size and shard lifetime', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: {
          SHARD_MODE: 'sqs',
          SHARD_QUEUE_URL: { Ref: shardQueueId },
          TARGETS_PER_SHARD: '150',
          SHARD_MAX_AGE_SECONDS: '60',
        },
      },
    });
  });

  it('raises a reservation of 1 to the consumers plus the dispatcher', () => {
    template.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 5 });
  });
});

describe('Sharding with a dead-letter queue passed in', () => {
  it('uses it instead of making one', () => {
    const { template } = tinyStack({ shardMode: 'sqs' }, true);
    const ids = Object.keys(template.findResources('AWS::SQS::Queue'));
    const failures = ids.find((id) => id.startsWith('FailedRuns')) ?? '';
    expect(ids).toHaveLength(2);
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [failures, 'Arn'] }, maxReceiveCount: 2 },
    });
  });
});

describe('Sharding in the real stack', () => {
  it('passes cdk-nag with the monitor failure queue as its dead-letter queue', () => {
    // infra/stack.ts wires the construct itself: the context alone turns it on.
    const { template, findings } = synth({ shardMode: 'sqs' });
    expect(findings).toEqual([]);
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::Function', {
      ReservedConcurrentExecutions: DEFAULT_SHARD_CONCURRENCY + 1,
    });
  });
});
