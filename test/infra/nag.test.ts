import { Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import type { HttpdStatusAlertsStack } from '../../infra/stack.ts';
import { synth } from './synth.ts';

const CONTEXTS = {
  default: {},
  'subscriptions and targets': {
    emails: 'oncall@example.com',
    httpsEndpoints: 'https://pager.example/hook',
    targets: '{"web-1":{"url":"https://web-1.internal/server-status?auto"}}',
  },
  'VPC and customer key': {
    vpcId: 'vpc-0123456789abcdef0',
    subnetIds: 'subnet-0123456789abcdef0',
    secretsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  },
  'VPC with given security group, custom prefix': {
    prefix: '/ops/apache',
    vpcId: 'vpc-01234567',
    subnetIds: 'subnet-01234567',
    securityGroupIds: 'sg-01234567',
  },
};

/** Every acknowledgement recorded in the construct tree: rule id -> reason. */
function acknowledgements(stack: HttpdStatusAlertsStack): Record<string, string> {
  const found: Record<string, string> = {};
  for (const construct of stack.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      // aws-cdk-lib qualifies the id with a namespace ("Annotation::"); compare the rule id alone.
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>))
        found[id.replace(/^\w+::/, '')] = reason;
    }
  }
  return found;
}

describe('cdk-nag AwsSolutions', () => {
  it.each(Object.entries(CONTEXTS))('finds nothing unacknowledged with context: %s', (_, context) => {
    expect(synth(context).findings).toEqual([]);
  });

  it('reports what it finds, so the empty lists above mean something', () => {
    // Prepare: a queue that breaks three AwsSolutions rules.
    const extend = (stack: HttpdStatusAlertsStack) => {
      new sqs.Queue(stack, 'Careless', { encryption: sqs.QueueEncryption.UNENCRYPTED });
    };
    // Act
    const { findings } = synth({}, { extend });
    // Assess
    expect(findings.map((f) => `${f.rule} ${f.path}`).sort()).toEqual([
      'AwsSolutions-SQS2 HttpdStatusAlerts/Careless/Resource',
      'AwsSolutions-SQS3 HttpdStatusAlerts/Careless/Resource',
      'AwsSolutions-SQS4 HttpdStatusAlerts/Careless/Resource',
    ]);
  });

  it('acknowledges only the accepted findings, each on its construct and with a reason', () => {
    // Act
    const plain = acknowledgements(synth({}).stack);
    const vpc = acknowledgements(synth(CONTEXTS['VPC and customer key']).stack);
    // Assess
    const prefixRead =
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:parameter/httpd-status-alerts/*]';
    const anyKey = 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:kms:<AWS::Region>:<AWS::AccountId>:key/*]';
    const vpcPolicy =
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]';
    expect(Object.keys(plain).sort()).toEqual([prefixRead, anyKey, 'AwsSolutions-SQS3'].sort());
    expect(Object.keys(vpc).sort()).toEqual(
      ['@aws-cdk/aws-ec2:noSubnetRouteTableId', prefixRead, vpcPolicy, 'AwsSolutions-SQS3'].sort(),
    );
    for (const reason of [...Object.values(plain), ...Object.values(vpc)]) expect(reason.length).toBeGreaterThan(40);
  });
});
