/**
 * Who may publish (no one else can forge a page): the alert topic (and the chat topic) only to the monitor's role, the
 * ops topic only to CloudWatch alarms of this account. Asserted statement by statement.
 */
import { Capture } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { readChatTopicFlag } from '../../infra/constructs/notifications.ts';
import { synth } from './synth.ts';

const partition = { Ref: 'AWS::Partition' };
const region = { Ref: 'AWS::Region' };
const account = { Ref: 'AWS::AccountId' };

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

function ids(resources: Resources) {
  const find = (type: string, fragment: string) =>
    Object.entries(resources).find(([id, r]) => r.Type === type && id.includes(fragment))?.[0] ?? '';
  return {
    role: find('AWS::IAM::Role', 'MonitorRole'),
    fn: find('AWS::Lambda::Function', 'MonitorFunction'),
    alertTopic: find('AWS::SNS::Topic', 'AlertTopic'),
    opsTopic: find('AWS::SNS::Topic', 'OpsTopic'),
    chatTopic: find('AWS::SNS::Topic', 'ChatTopic'),
    key: find('AWS::KMS::Key', 'Key'),
  };
}

/** The statements a topic only the monitor publishes to must carry, and no others. */
const onlyTheMonitor = (topic: string, role: string) => [
  {
    Sid: 'AllowPublishThroughSSLOnly',
    Effect: 'Deny',
    Principal: '*',
    Action: 'sns:Publish',
    Resource: { Ref: topic },
    Condition: { Bool: { 'aws:SecureTransport': 'false' } },
  },
  {
    Sid: 'AllowTheMonitorToPublish',
    Effect: 'Allow',
    Principal: { AWS: { 'Fn::GetAtt': [role, 'Arn'] } },
    Action: 'sns:Publish',
    Resource: { Ref: topic },
  },
  {
    Sid: 'DenyPublishExceptTheMonitor',
    Effect: 'Deny',
    Principal: { AWS: '*' },
    Action: 'sns:Publish',
    Resource: { Ref: topic },
    Condition: { ArnNotEquals: { 'aws:PrincipalArn': { 'Fn::GetAtt': [role, 'Arn'] } } },
  },
];

function topicPolicy(template: ReturnType<typeof synth>['template'], topic: string): unknown[] {
  const statements = new Capture();
  template.hasResourceProperties('AWS::SNS::TopicPolicy', {
    Topics: [{ Ref: topic }],
    PolicyDocument: { Statement: statements },
  });
  return statements.asArray();
}

describe('topic policies', () => {
  const { template } = synth();
  const id = ids(template.toJSON().Resources as Resources);

  it('lets only the monitor role publish to the alert topic: an allow for it, a deny for every other principal', () => {
    expect(topicPolicy(template, id.alertTopic)).toEqual(onlyTheMonitor(id.alertTopic, id.role));
  });

  it('lets only CloudWatch alarms of this account publish to the ops topic', () => {
    expect(topicPolicy(template, id.opsTopic)).toEqual([
      {
        Sid: 'AllowPublishThroughSSLOnly',
        Effect: 'Deny',
        Principal: '*',
        Action: 'sns:Publish',
        Resource: { Ref: id.opsTopic },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
      {
        Sid: 'AllowCloudWatchAlarmsToPublish',
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: id.opsTopic },
        Condition: {
          ArnLike: {
            'aws:SourceArn': {
              'Fn::Join': ['', ['arn:', partition, ':cloudwatch:', region, ':', account, ':alarm:*']],
            },
          },
          StringEquals: { 'aws:SourceAccount': account },
        },
      },
      {
        Sid: 'DenyPublishExceptCloudWatchAlarms',
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'sns:Publish',
        Resource: { Ref: id.opsTopic },
        Condition: { StringNotEquals: { 'aws:PrincipalServiceName': 'cloudwatch.amazonaws.com' } },
      },
    ]);
  });

  it('adds no chat topic unless asked', () => {
    expect(id.chatTopic).toBe('');
    template.resourceCountIs('AWS::SNS::Topic', 2);
  });
});

describe('chat topic (-c chatbotTopic=true)', () => {
  const { template, findings } = synth({ chatbotTopic: 'true' });
  const id = ids(template.toJSON().Resources as Resources);

  it('is a third topic under the same key, published only by the monitor, and passes cdk-nag', () => {
    template.resourceCountIs('AWS::SNS::Topic', 3);
    template.hasResourceProperties('AWS::SNS::Topic', {
      DisplayName: 'httpd-status-alerts chat',
      KmsMasterKeyId: { 'Fn::GetAtt': [id.key, 'Arn'] },
    });
    expect(topicPolicy(template, id.chatTopic)).toEqual(onlyTheMonitor(id.chatTopic, id.role));
    expect(topicPolicy(template, id.alertTopic)).toEqual(onlyTheMonitor(id.alertTopic, id.role));
    expect(findings).toEqual([]);
  });

  it('tells the monitor where it is and lets its role publish there', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Role: { 'Fn::GetAtt': [id.role, 'Arn'] },
      Environment: { Variables: { CHATBOT_TOPIC_ARN: { Ref: id.chatTopic }, CHATBOT_FORMAT: 'false' } },
    });
    const statements = new Capture();
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: id.role }],
      PolicyDocument: { Statement: statements },
    });
    expect(statements.asArray()).toContainEqual({
      Sid: 'PublishChatCopies',
      Effect: 'Allow',
      Action: 'sns:Publish',
      Resource: { Ref: id.chatTopic },
    });
    template.hasOutput('ChatTopicArn', { Value: { Ref: id.chatTopic } });
  });

  it.each([
    [undefined, false],
    ['false', false],
    [true, true],
    ['true', true],
  ])('reads chatbotTopic=%s as %s', (value, expected) => {
    expect(readChatTopicFlag(() => value)).toBe(expected);
  });

  it('rejects anything else naming the key', () => {
    expect(() => readChatTopicFlag(() => 'yes')).toThrow(
      'invalid CDK context:\n- chatbotTopic: expected true or false, found "yes"',
    );
  });
});
