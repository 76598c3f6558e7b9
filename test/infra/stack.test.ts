import { Annotations, Capture, Match } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { fleetQueries, targetQueries } from '../../infra/constructs/dashboard.ts';
import { STATE_TABLE_ACTIONS } from '../../infra/constructs/permissions.ts';
import { DEFAULT_RULES, parseRulesDocuments } from '../../src/core/rules/document.ts';
import { readRuntimeConfig } from '../../src/lambda/environment.ts';
import { synth } from './synth.ts';

const partition = { Ref: 'AWS::Partition' };
const region = { Ref: 'AWS::Region' };
const account = { Ref: 'AWS::AccountId' };
/** `arn:<partition>:<service>:<region>:<account>:<rest>` as CloudFormation spells it. */
const arn = (service: string, rest: string) => ({
  'Fn::Join': ['', ['arn:', partition, `:${service}:`, region, ':', account, `:${rest}`]],
});

const FULL = {
  emails: 'oncall@example.com',
  httpsEndpoints: 'https://pager.example/hook',
  targets: '{"web-1":{"url":"https://web-1.internal/server-status?auto"}}',
  dashboardTargets: 'web-2',
};

describe('HttpdStatusAlertsStack with default context', () => {
  const { template, stack } = synth();
  const logicalId = (type: string) => Object.keys(template.findResources(type))[0] ?? '';
  const ids = {
    fn: logicalId('AWS::Lambda::Function'),
    queue: logicalId('AWS::SQS::Queue'),
    table: logicalId('AWS::DynamoDB::GlobalTable'),
    logs: logicalId('AWS::Logs::LogGroup'),
    key: logicalId('AWS::KMS::Key'),
    role: logicalId('AWS::IAM::Role'),
    rule: logicalId('AWS::Events::Rule'),
  };
  const topics = Object.keys(template.findResources('AWS::SNS::Topic'));
  const alertTopic = topics.find((id) => id.includes('AlertTopic')) ?? '';
  const opsTopic = topics.find((id) => id.includes('OpsTopic')) ?? '';

  it('synthesises with one CDK warning only: nothing subscribes (no emails in the default context)', () => {
    const warnings = Annotations.fromStack(stack).findWarning('*', Match.anyValue());
    expect(warnings.map((w) => String(w.entry.data).split(':')[0])).toEqual(['No emails and no httpsEndpoints']);
  });

  it('creates exactly the resources of the design', () => {
    const counts = Object.fromEntries(
      Object.values(template.toJSON().Resources as Record<string, { Type: string }>)
        .map((r) => r.Type)
        .sort()
        .map((type, _, all) => [type, all.filter((t) => t === type).length]),
    );
    expect(counts).toEqual({
      'AWS::CloudWatch::Alarm': 7,
      'AWS::CloudWatch::Dashboard': 1,
      'AWS::DynamoDB::GlobalTable': 1,
      'AWS::Events::Rule': 1,
      'AWS::IAM::Policy': 1,
      'AWS::IAM::Role': 1,
      'AWS::KMS::Key': 1,
      'AWS::Lambda::EventInvokeConfig': 1,
      'AWS::Lambda::Function': 1,
      'AWS::Lambda::Permission': 1,
      'AWS::Logs::LogGroup': 1,
      'AWS::SNS::Topic': 2,
      'AWS::SNS::TopicPolicy': 2,
      'AWS::SQS::Queue': 1,
      'AWS::SQS::QueuePolicy': 1,
      'AWS::SSM::Parameter': 1,
    });
  });

  it('runs the bundled handler on Node 24, arm64, one at a time, with the contract environment', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.handler',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      MemorySize: 256,
      Timeout: 60,
      ReservedConcurrentExecutions: 1,
      Role: { 'Fn::GetAtt': [ids.role, 'Arn'] },
      LoggingConfig: { LogGroup: { Ref: ids.logs } },
      Environment: {
        Variables: {
          SSM_PREFIX: '/httpd-status-alerts',
          TOPIC_ARN: { Ref: alertTopic },
          STATE_TABLE: { Ref: ids.table },
          REPEAT_INTERVAL: '4h',
          DOWN_AFTER_FAILURES: '2',
          CONFIG_MAX_AGE_SECONDS: '270',
          FETCH_CONCURRENCY: '16',
          CHATBOT_FORMAT: 'false',
          TARGET_METRICS: 'none',
          SHARED_SECRET_PARAMETERS: '',
          FUNCTION_TIMEOUT_SECONDS: '60',
          CLAIM_LEASE_SECONDS: '300',
          NODE_OPTIONS: '--enable-source-maps',
        },
      },
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    template.hasResource('AWS::Logs::LogGroup', { DeletionPolicy: 'Delete' });
  });

  it('indexes the log group on the per-target line’s target field, the field the dashboard’s target rows filter on', () => {
    template.hasResourceProperties('AWS::Logs::LogGroup', { FieldIndexPolicies: [{ Fields: ['target'] }] });
  });

  it("passes an environment that the handler's own reader accepts", () => {
    // Prepare: CloudFormation fills in the references at deploy time.
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0] as {
      Properties: { Environment: { Variables: Record<string, unknown> } };
    };
    const resolved = { TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:alerts', STATE_TABLE: 'state-table' };
    const env = { ...(fn.Properties.Environment.Variables as Record<string, string>), ...resolved };
    // Act
    const config = readRuntimeConfig(env);
    // Assess
    expect(config).toEqual({
      ssmPrefix: '/httpd-status-alerts',
      topicArn: 'arn:aws:sns:eu-west-1:123456789012:alerts',
      stateTable: 'state-table',
      repeatIntervalMs: 4 * 3600 * 1000,
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

  it('runs every minute; a failed or undeliverable run lands in the failure queue, not a retry', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [ids.fn, 'Arn'] },
          Id: 'Target0',
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [ids.queue, 'Arn'] } },
          RetryPolicy: { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 2 },
        },
      ],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [ids.fn, 'Arn'] },
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [ids.rule, 'Arn'] },
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: ids.fn },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [ids.queue, 'Arn'] } } },
    });
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 1209600 });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'events.amazonaws.com' },
            Action: 'sqs:SendMessage',
            Condition: { ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [ids.rule, 'Arn'] } } },
          }),
        ]),
      },
    });
  });

  it('keeps alert state in an on-demand table keyed by pk, with TTL and point-in-time recovery', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Delete',
      Properties: {
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        Replicas: [{ Region: region, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }],
      },
    });
  });

  it('encrypts both topics with one rotated KMS key and denies publishing without TLS', () => {
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true, PendingWindowInDays: 7 });
    for (const topic of [alertTopic, opsTopic]) {
      template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: { 'Fn::GetAtt': [ids.key, 'Arn'] } });
      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        Topics: [{ Ref: topic }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            {
              Sid: 'AllowPublishThroughSSLOnly',
              Effect: 'Deny',
              Principal: '*',
              Action: 'sns:Publish',
              Resource: { Ref: topic },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            },
          ]),
        },
      });
    }
  });

  it('lets CloudWatch alarms of this account publish to the ops topic through the key', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: opsTopic }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'AllowCloudWatchAlarmsToPublish',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Resource: { Ref: opsTopic },
            Condition: {
              ArnLike: { 'aws:SourceArn': arn('cloudwatch', 'alarm:*') },
              StringEquals: { 'aws:SourceAccount': account },
            },
          },
        ]),
      },
    });
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          {
            Sid: 'AllowCloudWatchAlarmsToUseTheKey',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            Resource: '*',
            Condition: { StringEquals: { 'aws:SourceAccount': account } },
          },
        ]),
      },
    });
  });

  it('seeds the default rules document under the prefix', () => {
    const value = new Capture();
    template.hasResourceProperties('AWS::SSM::Parameter', {
      Name: '/httpd-status-alerts/rules/defaults',
      Type: 'String',
      Tier: 'Standard',
      Value: value,
    });
    // The seeded value is a valid document that parses to exactly the CLI's built-in rules.
    expect(parseRulesDocuments([{ source: 'ssm', text: value.asString() }])).toEqual(DEFAULT_RULES);
  });

  it('grants exactly what the handler uses, each on its narrowest resource', () => {
    // Prepare
    const statements = new Capture();
    // Act
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: ids.role }],
      PolicyDocument: { Statement: statements },
    });
    // Assess
    expect(statements.asArray()).toEqual([
      {
        Effect: 'Allow',
        Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
        Resource: { 'Fn::GetAtt': [ids.queue, 'Arn'] },
      },
      {
        Sid: 'WriteOwnLogs',
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [ids.logs, 'Arn'] },
      },
      {
        Sid: 'ReadConfigUnderPrefix',
        Effect: 'Allow',
        Action: ['ssm:GetParameter', 'ssm:GetParametersByPath'],
        Resource: arn('ssm', 'parameter/httpd-status-alerts/*'),
      },
      {
        Sid: 'DecryptSecretsUnderPrefix',
        Effect: 'Allow',
        Action: 'kms:Decrypt',
        Resource: arn('kms', 'key/*'),
        Condition: {
          StringEquals: { 'kms:ViaService': { 'Fn::Join': ['', ['ssm.', region, '.amazonaws.com']] } },
          StringLike: { 'kms:EncryptionContext:PARAMETER_ARN': arn('ssm', 'parameter/httpd-status-alerts/secrets/*') },
        },
      },
      { Sid: 'PublishAlerts', Effect: 'Allow', Action: 'sns:Publish', Resource: { Ref: alertTopic } },
      {
        Sid: 'EncryptAlertsWithTopicKey',
        Effect: 'Allow',
        Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
        Resource: { 'Fn::GetAtt': [ids.key, 'Arn'] },
      },
      {
        Sid: 'ReadWriteAlertState',
        Effect: 'Allow',
        Action: [...STATE_TABLE_ACTIONS],
        Resource: { 'Fn::GetAtt': [ids.table, 'Arn'] },
      },
    ]);
    expect(STATE_TABLE_ACTIONS).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
  });

  it('attaches no managed policy: no AWSLambdaBasicExecutionRole and its log wildcard', () => {
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }],
      },
      ManagedPolicyArns: Match.absent(),
    });
  });

  it('watches the watcher: seven alarms, each to the ops topic on alarm and on recovery', () => {
    const alarm = (props: Record<string, unknown>) =>
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        ...props,
        EvaluationPeriods: 1,
        AlarmActions: [{ Ref: opsTopic }],
        OKActions: [{ Ref: opsTopic }],
      });
    const fnDimension = [{ Name: 'FunctionName', Value: { Ref: ids.fn } }];
    alarm({
      MetricName: 'Errors',
      Namespace: 'AWS/Lambda',
      Dimensions: fnDimension,
      Statistic: 'Sum',
      Period: 300,
      Threshold: 2,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    alarm({
      MetricName: 'Throttles',
      Namespace: 'AWS/Lambda',
      Dimensions: fnDimension,
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    alarm({
      MetricName: 'Duration',
      Namespace: 'AWS/Lambda',
      Dimensions: fnDimension,
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 48000,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    alarm({
      MetricName: 'Heartbeat',
      Namespace: 'HttpdStatusAlerts',
      Dimensions: [
        { Name: 'monitor', Value: '/httpd-status-alerts' },
        { Name: 'service', Value: 'httpd-status-alerts' },
      ],
      Statistic: 'SampleCount',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'RunsFailed',
      Namespace: 'HttpdStatusAlerts',
      Dimensions: [
        { Name: 'monitor', Value: '/httpd-status-alerts' },
        { Name: 'service', Value: 'httpd-status-alerts' },
      ],
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: opsTopic }],
      OKActions: [{ Ref: opsTopic }],
    });
    alarm({
      MetricName: 'ConfigurationUnreadable',
      Namespace: 'HttpdStatusAlerts',
      Dimensions: [
        { Name: 'monitor', Value: '/httpd-status-alerts' },
        { Name: 'service', Value: 'httpd-status-alerts' },
      ],
      Statistic: 'Sum',
      Period: 600,
      Threshold: 2,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    alarm({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.queue, 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('subscribes nobody unless asked', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });
});

describe('HttpdStatusAlertsStack with subscriptions, targets and a 5-minute schedule', () => {
  const { template } = synth({ ...FULL, scheduleMinutes: '5', timeoutSeconds: '90' });
  const topics = Object.keys(template.findResources('AWS::SNS::Topic'));
  const alertTopic = topics.find((id) => id.includes('AlertTopic')) ?? '';
  const opsTopic = topics.find((id) => id.includes('OpsTopic')) ?? '';

  it('routes e-mail to every alert, and only critical alerts to the HTTPS pager; both get ops alarms', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 4);
    const sub = (topic: string, Protocol: string, Endpoint: string, FilterPolicy: unknown) =>
      template.hasResourceProperties('AWS::SNS::Subscription', {
        TopicArn: { Ref: topic },
        Protocol,
        Endpoint,
        FilterPolicy,
      });
    sub(alertTopic, 'email', 'oncall@example.com', Match.absent());
    sub(alertTopic, 'https', 'https://pager.example/hook', { severity: ['critical'] });
    sub(opsTopic, 'email', 'oncall@example.com', Match.absent());
    sub(opsTopic, 'https', 'https://pager.example/hook', Match.absent());
  });

  it('seeds the example target next to the default rules', () => {
    template.resourceCountIs('AWS::SSM::Parameter', 1);
    const [seed] = Object.values(template.findResources('Custom::AWS')) as { Properties: { Create: string } }[];
    expect(JSON.parse(seed?.Properties.Create ?? '{}').parameters).toMatchObject({
      Name: '/httpd-status-alerts/targets/web-1',
      Type: 'String',
      Value: '{"url":"https://web-1.internal/server-status?auto"}',
    });
  });

  it('follows the schedule: rate, event age, duration threshold and heartbeat window', () => {
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)' });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { MaximumEventAgeInSeconds: 300 });
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 90 });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Duration', Threshold: 72000 });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Heartbeat', Period: 600 });
  });

  it('draws the fleet and each dashboard target from Logs Insights queries, not per-target metrics', () => {
    // Prepare
    const body = new Capture();
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardBody: body });
    // Act: tokens (the region, the function and log group names) become placeholders so the JSON parses.
    const parts = (body.asObject() as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
    const json = parts.map((part) => (typeof part === 'string' ? part : 'TOKEN')).join('');
    type Widget = {
      type: string;
      properties: { title?: string; metrics?: unknown[][]; query?: string; view?: string };
    };
    const widgets = (JSON.parse(json) as { widgets: Widget[] }).widgets;
    // Assess
    expect(widgets.map((w) => [w.type, w.properties.title, w.properties.view])).toEqual([
      ['metric', 'monitor: runs, alerts sent, targets down', 'timeSeries'],
      ['metric', 'monitor: errors and throttles', 'timeSeries'],
      ['metric', 'monitor: duration (ms)', 'timeSeries'],
      ['text', undefined, undefined],
      ['log', 'fleet: targets that failed a fetch', 'table'],
      ['log', 'fleet: fewest free worker slots', 'table'],
      ['log', 'fleet: slowest status pages', 'table'],
      ['log', 'web-1: worker slots', 'timeSeries'],
      ['log', 'web-1: SSL session cache miss ratio', 'timeSeries'],
      ['log', 'web-1: fetch latency (ms)', 'timeSeries'],
      ['log', 'web-1: up (1) / down (0)', 'timeSeries'],
      ['log', 'web-2: worker slots', 'timeSeries'],
      ['log', 'web-2: SSL session cache miss ratio', 'timeSeries'],
      ['log', 'web-2: fetch latency (ms)', 'timeSeries'],
      ['log', 'web-2: up (1) / down (0)', 'timeSeries'],
    ]);
    // The only metrics graphed are fleet-level: no series per target.
    expect(widgets[0]?.properties.metrics?.map((m) => m.slice(0, 4))).toEqual([
      ['HttpdStatusAlerts', 'Heartbeat', 'monitor', '/httpd-status-alerts'],
      ['HttpdStatusAlerts', 'AlertsSent', 'monitor', '/httpd-status-alerts'],
      ['HttpdStatusAlerts', 'TargetsDown', 'monitor', '/httpd-status-alerts'],
    ]);
    expect(widgets.flatMap((w) => w.properties.metrics ?? []).filter((m) => m.includes('target'))).toEqual([]);
    // Each query reads the function's log group and the fields its per-target line carries.
    expect(widgets.slice(4).map((w) => w.properties.query)).toEqual([
      ...fleetQueries().map(([, query]) => `SOURCE 'TOKEN' | ${query}`),
      ...targetQueries('web-1').map(([, query]) => `SOURCE 'TOKEN' | ${query}`),
      ...targetQueries('web-2').map(([, query]) => `SOURCE 'TOKEN' | ${query}`),
    ]);
    // The fleet tables scan the whole group; each target's row starts with its indexed field's equality.
    expect(widgets[4]?.properties.query).toBe(
      'SOURCE \'TOKEN\' | filter message = "target checked" and TargetUp = 0 | stats count(*) as failed_runs, max(FetchLatency) as max_fetch_ms by target | sort failed_runs desc | limit 20',
    );
    expect(widgets[11]?.properties.query).toBe(
      'SOURCE \'TOKEN\' | filter target = "web-2" | filter message = "target checked" | stats avg(BusySlots) as busy, avg(IdleSlots) as idle, avg(ClosingSlots) as closing by bin(1m)',
    );
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', {
      DashboardBody: { 'Fn::Join': ['', Match.arrayWith([{ Ref: Match.stringLikeRegexp('MonitorLogs') }])] },
    });
  });
});

describe('HttpdStatusAlertsStack placed in a VPC, with a customer key for secrets', () => {
  const keyArn = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  const vpc = { vpcId: 'vpc-0123456789abcdef0', subnetIds: 'subnet-0123456789abcdef0,subnet-0fedcba9876543210' };

  it('runs in the given subnets with an egress-only security group of its own', () => {
    const { template, stack } = synth({
      ...vpc,
      secretsKeyArn: keyArn,
      reserveConcurrency: 'false',
      emails: 'a@b.example',
    });
    expect(Annotations.fromStack(stack).findWarning('*', Match.anyValue())).toEqual([]);
    const sg = Object.keys(template.findResources('AWS::EC2::SecurityGroup'))[0] ?? '';
    template.hasResourceProperties('AWS::EC2::SecurityGroup', {
      VpcId: 'vpc-0123456789abcdef0',
      SecurityGroupEgress: [
        { CidrIp: '0.0.0.0/0', IpProtocol: '-1', Description: 'Allow all outbound traffic by default' },
      ],
      SecurityGroupIngress: Match.absent(),
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      VpcConfig: {
        SubnetIds: ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'],
        SecurityGroupIds: [{ 'Fn::GetAtt': [sg, 'GroupId'] }],
      },
      ReservedConcurrentExecutions: Match.absent(),
    });
    template.hasResourceProperties('AWS::IAM::Role', {
      ManagedPolicyArns: [
        { 'Fn::Join': ['', ['arn:', partition, ':iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole']] },
      ],
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Sid: 'DecryptSecretsUnderPrefix', Resource: keyArn })]),
      },
    });
  });

  it('uses the security groups it is given instead of creating one', () => {
    const { template } = synth({ ...vpc, securityGroupIds: 'sg-0123456789abcdef0' });
    template.resourceCountIs('AWS::EC2::SecurityGroup', 0);
    template.hasResourceProperties('AWS::Lambda::Function', {
      VpcConfig: { SecurityGroupIds: ['sg-0123456789abcdef0'] },
    });
  });
});

describe('HttpdStatusAlertsStack in sharded mode (-c shardMode=sqs)', () => {
  const { template, findings } = synth({ shardMode: 'sqs', targetsPerShard: '200' });

  it('passes the function a sharded environment its reader accepts, with no cdk-nag finding', () => {
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0] as {
      Properties: { Environment: { Variables: Record<string, unknown> } };
    };
    const resolved = {
      TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:alerts',
      STATE_TABLE: 'state-table',
      SHARD_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/shards',
    };
    const env = { ...(fn.Properties.Environment.Variables as Record<string, string>), ...resolved };
    expect(readRuntimeConfig(env)).toMatchObject({ shardMode: 'sqs', targetsPerShard: 200, shardMaxAgeSeconds: 60 });
    expect(findings).toEqual([]);
  });
});

describe('the claim lease at the longest timeout the stack accepts (900 s, a 15-minute schedule)', () => {
  const { stack, template } = synth({ scheduleMinutes: '15', timeoutSeconds: '900' });

  it('sets a lease of twice the timeout, which the function reads back', () => {
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0] as {
      Properties: { Timeout: number; Environment: { Variables: Record<string, unknown> } };
    };
    const variables = fn.Properties.Environment.Variables as Record<string, string>;
    const resolved = { TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:alerts', STATE_TABLE: 'state-table' };
    expect({
      timeout: fn.Properties.Timeout,
      lease: variables.CLAIM_LEASE_SECONDS,
      read: readRuntimeConfig({ ...variables, ...resolved }).claimLeaseMs,
    }).toEqual({ timeout: 900, lease: '1800', read: 1_800_000 });
    expect(stack.monitor.fn.timeout?.toSeconds()).toBe(900);
  });

  it('refuses to synthesize a function whose timeout was raised past half its lease afterwards', () => {
    expect(() =>
      synth(
        { scheduleMinutes: '15', timeoutSeconds: '600' },
        {
          extend: (s) => {
            (s.monitor.fn.node.defaultChild as CfnFunction).timeout = 900;
          },
        },
      ),
    ).toThrow("CLAIM_LEASE_SECONDS expects at least 1800 (2 x the function's 900 s timeout), found 1200");
  });
});

describe('per-target metrics from -c targetMetrics', () => {
  it.each([
    { context: {}, env: 'none', read: 'none' },
    { context: { targetMetrics: 'all' }, env: 'all', read: 'all' },
    { context: { targetMetrics: 'none' }, env: 'none', read: 'none' },
    // Names must be seeded or dashboard targets: a typo would give no target its metrics.
    {
      context: { targetMetrics: 'web-1, web-2', dashboardTargets: 'web-1,web-2' },
      env: 'web-1,web-2',
      read: ['web-1', 'web-2'],
    },
    { context: { targetMetrics: 'dashboard', dashboardTargets: 'web-3' }, env: 'web-3', read: ['web-3'] },
    // No dashboard target: an empty list, which must not read back as `all`.
    { context: { targetMetrics: 'dashboard' }, env: 'none', read: 'none' },
  ])('$context -> TARGET_METRICS=$env', ({ context, env, read }) => {
    const { template } = synth(context);
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0] as {
      Properties: { Environment: { Variables: Record<string, string> } };
    };
    const variables: Record<string, string> = {
      ...fn.Properties.Environment.Variables,
      TOPIC_ARN: 'arn:aws:sns:eu-west-1:1:t',
      STATE_TABLE: 'state',
    };
    expect(variables.TARGET_METRICS).toBe(env);
    expect(readRuntimeConfig(variables).targetMetrics).toEqual(read);
  });
});

describe('shared secrets from -c sharedSecretParameters', () => {
  it('reach the function as SHARED_SECRET_PARAMETERS, read back as the list', () => {
    const { template } = synth({
      sharedSecretParameters: '/httpd-status-alerts/secrets/fleet-status,/httpd-status-alerts/secrets/eu/status',
    });
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0] as {
      Properties: { Environment: { Variables: Record<string, string> } };
    };
    const variables: Record<string, string> = {
      ...fn.Properties.Environment.Variables,
      TOPIC_ARN: 'arn:aws:sns:eu-west-1:1:t',
      STATE_TABLE: 'state',
    };
    expect(variables.SHARED_SECRET_PARAMETERS).toBe(
      '/httpd-status-alerts/secrets/fleet-status,/httpd-status-alerts/secrets/eu/status',
    );
    expect(readRuntimeConfig(variables).sharedSecretParameters).toEqual([
      '/httpd-status-alerts/secrets/fleet-status',
      '/httpd-status-alerts/secrets/eu/status',
    ]);
  });
});

describe('HttpdStatusAlertsStack with discovery sources', () => {
  it.each<[string, string, string[]]>([
    ['ec2 alone', 'ec2', ['ec2:DescribeInstances']],
    ['autoscaling alone', 'autoscaling', ['autoscaling:DescribeAutoScalingGroups', 'ec2:DescribeInstances']],
    [
      'every source',
      'ec2,autoscaling,elbv2',
      [
        'autoscaling:DescribeAutoScalingGroups',
        'ec2:DescribeInstances',
        'elasticloadbalancing:DescribeTargetGroups',
        'elasticloadbalancing:DescribeTargetHealth',
      ],
    ],
  ])('grants the describe calls of %s, on *, with the cdk-nag finding acknowledged', (_intent, sources, actions) => {
    // Act
    const { template, findings } = synth({ discoverySources: sources });
    // Assess
    const statements = new Capture();
    template.hasResourceProperties('AWS::IAM::Policy', { PolicyDocument: { Statement: statements } });
    const describe = (statements.asArray() as Array<{ Sid?: string }>).filter(
      (s) => s.Sid === 'DescribeDiscoveredFleet',
    );
    expect(describe).toEqual([
      {
        Sid: 'DescribeDiscoveredFleet',
        Effect: 'Allow',
        Action: actions.length === 1 ? actions[0] : actions,
        Resource: '*',
      },
    ]);
    expect(findings).toEqual([]);
    const variables = Object.values(template.findResources('AWS::Lambda::Function')).map(
      (f) => (f.Properties as { Environment?: { Variables?: Record<string, unknown> } }).Environment?.Variables,
    );
    expect(variables.map((v) => v?.DISCOVERY_SOURCES).filter((v) => v !== undefined)).toEqual([sources]);
  });

  it('alarms on the maximum DiscoveryFailing of every discovery parameter, to the ops topic', () => {
    const { template } = synth({ discoverySources: 'ec2' });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('^httpd-status-alerts: discovery failing'),
      Metrics: [
        Match.objectLike({
          Expression:
            'SELECT MAX(DiscoveryFailing) FROM SCHEMA("HttpdStatusAlerts", service, discovery) WHERE service = \'httpd-status-alerts\'',
        }),
      ],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('grants no describe call and adds no discovery alarm by default', () => {
    const { template } = synth({});
    const statements = new Capture();
    template.hasResourceProperties('AWS::IAM::Policy', { PolicyDocument: { Statement: statements } });
    expect(JSON.stringify(statements.asArray())).not.toContain('Describe');
    expect(JSON.stringify(template.findResources('AWS::CloudWatch::Alarm'))).not.toContain('DiscoveryFailing');
  });

  it('refuses a source it does not know', () => {
    expect(() => synth({ discoverySources: 'ec2,ecs' })).toThrow(
      'discoverySources: "ecs" is not a discovery source (ec2, autoscaling, elbv2)',
    );
  });
});
