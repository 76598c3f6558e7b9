import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { Capture, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { readPagerDutySettings } from '../../infra/constructs/pagerDutySettings.ts';
import { readPagerDutyConfig } from '../../src/lambda/forwarderEnvironment.ts';
import { synth } from './synth.ts';

const partition = { Ref: 'AWS::Partition' };
const region = { Ref: 'AWS::Region' };
const account = { Ref: 'AWS::AccountId' };
const PARAMETER = '/pagerduty/routing-key';
const parameterArn = (path: string) => ({
  'Fn::Join': ['', ['arn:', partition, ':ssm:', region, ':', account, `:parameter${path}`]],
});

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

/** Logical ids by the construct path fragment they carry. */
function idOf(resources: Resources, type: string, fragment: string): string {
  const ids = Object.entries(resources)
    .filter(([id, r]) => r.Type === type && id.includes(fragment))
    .map(([id]) => id);
  expect(ids, `${type} with ${fragment}`).toHaveLength(1);
  return ids[0] as string;
}

describe('PagerDuty forwarder in the stack', () => {
  it('adds nothing without -c pagerDutyRoutingKeyParameter', () => {
    // Act
    const { template } = synth();

    // Assess
    template.resourceCountIs('AWS::Lambda::Function', 1);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  describe('with -c pagerDutyRoutingKeyParameter', () => {
    const { template, findings } = synth({ pagerDutyRoutingKeyParameter: PARAMETER });
    const resources = template.toJSON().Resources as Resources;
    const ids = {
      fn: idOf(resources, 'AWS::Lambda::Function', 'PagerDuty'),
      role: idOf(resources, 'AWS::IAM::Role', 'PagerDuty'),
      queue: idOf(resources, 'AWS::SQS::Queue', 'PagerDuty'),
      logs: idOf(resources, 'AWS::Logs::LogGroup', 'PagerDuty'),
      alertTopic: idOf(resources, 'AWS::SNS::Topic', 'AlertTopic'),
      opsTopic: idOf(resources, 'AWS::SNS::Topic', 'OpsTopic'),
      table: idOf(resources, 'AWS::DynamoDB::GlobalTable', 'StateTable'),
    };

    it('adds exactly the forwarder, its role, logs, dead-letter queue, subscription, key metric filter and two alarms; cdk-nag finds nothing', () => {
      const { template: plain } = synth();
      const count = (r: Resources) => {
        const counts: Record<string, number> = {};
        for (const { Type } of Object.values(r)) counts[Type] = (counts[Type] ?? 0) + 1;
        return counts;
      };
      const before = count(plain.toJSON().Resources as Resources);
      const after = count(resources);
      const added = Object.fromEntries(
        Object.keys(after)
          .map((type) => [type, (after[type] ?? 0) - (before[type] ?? 0)])
          .filter(([, n]) => n !== 0),
      );
      expect(added).toEqual({
        'AWS::CloudWatch::Alarm': 2,
        'AWS::IAM::Policy': 1,
        'AWS::IAM::Role': 1,
        'AWS::Lambda::EventInvokeConfig': 1,
        'AWS::Lambda::Function': 1,
        'AWS::Lambda::Permission': 1,
        'AWS::Logs::LogGroup': 1,
        'AWS::Logs::MetricFilter': 1,
        'AWS::SNS::Subscription': 1,
        'AWS::SQS::Queue': 1,
        'AWS::SQS::QueuePolicy': 1,
      });
      // Only the monitor's log group carries the dashboard's field index: no query reads the forwarder's by target.
      expect(resources[ids.logs]?.Properties.FieldIndexPolicies).toBeUndefined();
      expect(findings).toEqual([]);
    });

    it('runs the bundled forwarder on Node 24, arm64, 15 minutes, with the routing key parameter, the Events API URL, one incident per group and the state table', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Handler: 'index.handler',
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        MemorySize: 128,
        Timeout: 900,
        Role: { 'Fn::GetAtt': [ids.role, 'Arn'] },
        LoggingConfig: { LogGroup: { Ref: ids.logs } },
        Environment: {
          Variables: {
            PAGERDUTY_ROUTING_KEY_PARAMETER: PARAMETER,
            PAGERDUTY_EVENTS_URL: 'https://events.pagerduty.com/v2/enqueue',
            PAGERDUTY_EVENTS_PER: 'group',
            STATE_TABLE: { Ref: ids.table },
            NODE_OPTIONS: '--enable-source-maps',
          },
        },
      });
      // The environment is one the forwarder's own reader accepts.
      const fn = resources[ids.fn]?.Properties as { Environment: { Variables: Record<string, string> } };
      expect(readPagerDutyConfig({ ...fn.Environment.Variables, STATE_TABLE: 'hsa-StateTable-1' })).toEqual({
        routingKeyParameter: PARAMETER,
        eventsUrl: 'https://events.pagerduty.com/v2/enqueue',
        routingKeyMaxAgeSeconds: 300,
        eventsPer: 'group',
        stateTable: 'hsa-StateTable-1',
      });
    });

    it('subscribes it to the alert topic, every severity, invoked by SNS from that topic only', () => {
      template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'lambda',
        TopicArn: { Ref: ids.alertTopic },
        Endpoint: { 'Fn::GetAtt': [ids.fn, 'Arn'] },
        FilterPolicy: Match.absent(),
      });
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': [ids.fn, 'Arn'] },
        Principal: 'sns.amazonaws.com',
        SourceArn: { Ref: ids.alertTopic },
      });
    });

    it('retries a failed invocation twice, then keeps it in an encrypted dead-letter queue that alarms on the ops topic', () => {
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: ids.fn },
        MaximumRetryAttempts: 2,
        MaximumEventAgeInSeconds: 3600,
        DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [ids.queue, 'Arn'] } } },
      });
      template.hasResourceProperties('AWS::SQS::Queue', {
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 1209600,
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.queue, 'QueueName'] } }],
        Statistic: 'Maximum',
        Period: 300,
        Threshold: 1,
        EvaluationPeriods: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: ids.opsTopic }],
        OKActions: [{ Ref: ids.opsTopic }],
      });
    });

    it('pages the ops topic once when the forwarder logs a missing or refused routing key', () => {
      template.hasResourceProperties('AWS::Logs::MetricFilter', {
        LogGroupName: { Ref: ids.logs },
        FilterPattern: '{ $.message = "PagerDuty routing key missing or refused" }',
        MetricTransformations: [
          { MetricNamespace: 'HttpdStatusAlerts', MetricName: 'PagerDutyRoutingKeyRefused', MetricValue: '1' },
        ],
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'HttpdStatusAlerts',
        MetricName: 'PagerDutyRoutingKeyRefused',
        Statistic: 'Sum',
        Period: 300,
        Threshold: 1,
        AlarmActions: [{ Ref: ids.opsTopic }],
        OKActions: Match.absent(),
      });
    });

    it('grants the forwarder its items of the state table, its logs, the one parameter and its decryption through SSM, the queue; never sns:Publish', () => {
      // Prepare
      const statements = new Capture();
      // Act
      template.hasResourceProperties('AWS::IAM::Policy', {
        Roles: [{ Ref: ids.role }],
        PolicyDocument: { Statement: statements },
      });
      // Assess
      expect(statements.asArray()).toEqual([
        // The failure destination's grant, added by CDK.
        {
          Effect: 'Allow',
          Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
          Resource: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
        },
        {
          Sid: 'KeepForwarderState',
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
          Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
          Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['pagerduty-*'] } },
        },
        {
          Sid: 'WriteOwnLogs',
          Effect: 'Allow',
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: { 'Fn::GetAtt': [ids.logs, 'Arn'] },
        },
        { Sid: 'ReadRoutingKey', Effect: 'Allow', Action: 'ssm:GetParameter', Resource: parameterArn(PARAMETER) },
        {
          Sid: 'DecryptRoutingKey',
          Effect: 'Allow',
          Action: 'kms:Decrypt',
          Resource: { 'Fn::Join': ['', ['arn:', partition, ':kms:', region, ':', account, ':key/*']] },
          Condition: {
            StringEquals: {
              'kms:ViaService': { 'Fn::Join': ['', ['ssm.', region, '.amazonaws.com']] },
              'kms:EncryptionContext:PARAMETER_ARN': parameterArn(PARAMETER),
            },
          },
        },
      ]);
      template.hasResourceProperties('AWS::IAM::Role', {
        AssumeRolePolicyDocument: {
          Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }],
        },
        ManagedPolicyArns: Match.absent(),
      });
    });
  });

  it.each([
    {
      context: { pagerDutySeverities: 'critical,warning' },
      filter: { severity: ['critical', 'warning'] },
      url: 'https://events.pagerduty.com/v2/enqueue',
    },
    {
      context: { pagerDutyEventsUrl: 'https://events.eu.pagerduty.com/v2/enqueue' },
      filter: undefined,
      url: 'https://events.eu.pagerduty.com/v2/enqueue',
    },
    {
      context: { pagerDutyEventsPer: 'alert' },
      filter: undefined,
      url: 'https://events.pagerduty.com/v2/enqueue',
      per: 'alert',
    },
  ])('honours $context', ({ context, filter, url, per }) => {
    // Act
    const { template } = synth({ pagerDutyRoutingKeyParameter: PARAMETER, ...context });

    // Assess
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'lambda',
      FilterPolicy: filter ?? Match.absent(),
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ PAGERDUTY_EVENTS_URL: url, PAGERDUTY_EVENTS_PER: per ?? 'group' }) },
    });
  });

  it('reads a parameter name without a leading slash, with a customer key, in the VPC with the monitor', () => {
    // Act
    const { template, findings } = synth({
      pagerDutyRoutingKeyParameter: 'pagerduty-routing-key',
      secretsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      vpcId: 'vpc-0123456789abcdef0',
      subnetIds: 'subnet-0123456789abcdef0',
      securityGroupIds: 'sg-0123456789abcdef0',
    });

    // Assess
    expect(findings).toEqual([]);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Sid: 'ReadRoutingKey', Resource: parameterArn('/pagerduty-routing-key') }),
          Match.objectLike({
            Sid: 'DecryptRoutingKey',
            Resource: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
          }),
        ]),
      },
    });
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as {
      Properties: { VpcConfig?: unknown };
    }[];
    expect(functions.map((f) => f.Properties.VpcConfig)).toEqual([
      { SecurityGroupIds: ['sg-0123456789abcdef0'], SubnetIds: ['subnet-0123456789abcdef0'] },
      { SecurityGroupIds: ['sg-0123456789abcdef0'], SubnetIds: ['subnet-0123456789abcdef0'] },
    ]);
  });
});

describe('readPagerDutySettings', () => {
  it.each([
    {
      context: { pagerDutyRoutingKeyParameter: 'has space' },
      problem:
        'pagerDutyRoutingKeyParameter: expected an SSM parameter name like /pagerduty/routing-key, found "has space"',
    },
    {
      context: { pagerDutyRoutingKeyParameter: '/httpd-status-alerts/secrets/pagerduty' },
      problem:
        'pagerDutyRoutingKeyParameter: expected a parameter outside /httpd-status-alerts/secrets/ (the monitor function may decrypt every SecureString there, and a target may name one as its authParameter), found "/httpd-status-alerts/secrets/pagerduty"',
    },
    {
      context: { prefix: '/team/apache', pagerDutyRoutingKeyParameter: 'team/apache/secrets/pd/key' },
      problem:
        'pagerDutyRoutingKeyParameter: expected a parameter outside /team/apache/secrets/ (the monitor function may decrypt every SecureString there, and a target may name one as its authParameter), found "team/apache/secrets/pd/key"',
    },
    {
      context: { pagerDutyEventsUrl: 'http://events.pagerduty.com/v2/enqueue' },
      problem:
        'pagerDutyEventsUrl: expected an https:// URL like https://events.pagerduty.com/v2/enqueue, found "http://events.pagerduty.com/v2/enqueue"',
    },
    {
      context: { pagerDutySeverities: 'critical,error' },
      problem: 'pagerDutySeverities: expected some of critical,warning,info, found "critical,error"',
    },
    {
      context: { pagerDutyEventsPer: 'incident' },
      problem:
        'pagerDutyEventsPer: expected group (one incident per alert group) or alert (one per alert), found "incident"',
    },
  ])('rejects $context naming the key', ({ context, problem }) => {
    const get = (key: string) => (context as Record<string, unknown>)[key];
    expect(() => readPagerDutySettings(get)).toThrow(`invalid PagerDuty context:\n- ${problem}`);
  });
});

describe('a routing key under the secrets prefix', () => {
  it('is refused at synth with the reason; beside the prefix, or under another prefix, it is not', () => {
    expect(() => synth({ pagerDutyRoutingKeyParameter: '/httpd-status-alerts/secrets/pagerduty' })).toThrow(
      'pagerDutyRoutingKeyParameter: expected a parameter outside /httpd-status-alerts/secrets/ (the monitor function may decrypt every SecureString there, and a target may name one as its authParameter), found "/httpd-status-alerts/secrets/pagerduty"',
    );
    for (const context of [
      { pagerDutyRoutingKeyParameter: '/httpd-status-alerts/pagerduty' },
      { prefix: '/team/apache', pagerDutyRoutingKeyParameter: '/httpd-status-alerts/secrets/pagerduty' },
    ])
      synth(context).template.resourceCountIs('AWS::SNS::Subscription', 1);
  }, 120_000);
});

describe('bundled PagerDuty forwarder', () => {
  const { template, outdir, findings } = synth({ pagerDutyRoutingKeyParameter: PARAMETER }, { bundle: true });
  const fn = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) =>
    id.includes('PagerDuty'),
  )?.[1] as { Properties: { Code: { S3Key: string } } };
  const bundle = join(outdir, `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`, 'index.mjs');

  it('is one ESM file importing only Node built-ins, with its own DynamoDB items but without the monitor’s batch reads or SNS client', () => {
    expect([existsSync(bundle), findings]).toEqual([true, []]);
    const code = readFileSync(bundle, 'utf8');
    const specifiers = [...code.matchAll(/(?:^|[;}\n])import\s*(?:[\w$*{},\s]+?from\s*)?["']([^"']+)["']/g)].map(
      (m) => m[1] ?? '',
    );
    expect(specifiers.filter((s) => !isBuiltin(s))).toEqual([]);
    expect({
      ownItems: code.includes('pagerduty-order#'),
      dynamo: code.includes('BatchGetItem'),
      sns: code.includes('PublishCommand'),
    }).toEqual({ ownItems: true, dynamo: false, sns: false });
    console.info(`PagerDuty forwarder bundle: ${code.length} bytes`);
  });
});
