/**
 * Every permission of the monitor's role, in one place for review. Each statement is exactly what
 * the handler uses, on the narrowest resource that exists at synth time.
 */
import { Aws } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { DiscoverySourceName } from '../../src/core/discovery/document.ts';

/** What the alert store calls (src/adapters): conditional single-item writes, batched reads; no transactions. */
const STATE_TABLE_ACTIONS = [
  'dynamodb:BatchGetItem',
  'dynamodb:DeleteItem',
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
] as const;

/**
 * The read-only calls of each discovery source (src/adapters/*Discovery.ts). Auto Scaling and
 * ELBv2 describe their instances through EC2 too. None of them supports resource-level scoping.
 */
const DISCOVERY_ACTIONS = {
  ec2: ['ec2:DescribeInstances'],
  autoscaling: ['autoscaling:DescribeAutoScalingGroups', 'ec2:DescribeInstances'],
  elbv2: [
    'elasticloadbalancing:DescribeTargetGroups',
    'elasticloadbalancing:DescribeTargetHealth',
    'ec2:DescribeInstances',
  ],
} as const satisfies Record<DiscoverySourceName, readonly string[]>;

/** The actions the enabled sources need, each once, sorted. */
function discoveryActions(sources: readonly DiscoverySourceName[]): string[] {
  return [...new Set(sources.flatMap((s) => DISCOVERY_ACTIONS[s]))].sort();
}

interface MonitorResources {
  prefix: string;
  /** Customer key of the SecureString secrets; null for the AWS-managed `aws/ssm` key. */
  secretsKeyArn: string | null;
  logGroupArn: string;
  topicArn: string;
  topicKeyArn: string;
  tableArn: string;
  /** The discovery sources enabled (none: no describe call is granted). */
  discoverySources?: readonly DiscoverySourceName[];
}

function monitorStatements(r: MonitorResources): iam.PolicyStatement[] {
  const ssmArn = (path: string) => `arn:${Aws.PARTITION}:ssm:${Aws.REGION}:${Aws.ACCOUNT_ID}:parameter${path}`;
  return [
    // Logs go only to the function's own log group.
    new iam.PolicyStatement({
      sid: 'WriteOwnLogs',
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [r.logGroupArn],
    }),
    // Configuration is read only under the prefix: the folders by path, secrets by name.
    new iam.PolicyStatement({
      sid: 'ReadConfigUnderPrefix',
      actions: ['ssm:GetParameter', 'ssm:GetParametersByPath'],
      resources: [ssmArn(`${r.prefix}/*`)],
    }),
    // SecureStrings are decrypted only through SSM, and only those under <prefix>/secrets/
    // (SSM passes the parameter ARN as the encryption context).
    new iam.PolicyStatement({
      sid: 'DecryptSecretsUnderPrefix',
      actions: ['kms:Decrypt'],
      resources: [r.secretsKeyArn ?? `arn:${Aws.PARTITION}:kms:${Aws.REGION}:${Aws.ACCOUNT_ID}:key/*`],
      conditions: {
        StringEquals: { 'kms:ViaService': `ssm.${Aws.REGION}.amazonaws.com` },
        StringLike: { 'kms:EncryptionContext:PARAMETER_ARN': ssmArn(`${r.prefix}/secrets/*`) },
      },
    }),
    // Pages go to the alert topic only; SNS encrypts them with the topic's key as the publisher.
    new iam.PolicyStatement({ sid: 'PublishAlerts', actions: ['sns:Publish'], resources: [r.topicArn] }),
    new iam.PolicyStatement({
      sid: 'EncryptAlertsWithTopicKey',
      actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
      resources: [r.topicKeyArn],
    }),
    // Alert state lives in this one table, which has no index.
    new iam.PolicyStatement({ sid: 'ReadWriteAlertState', actions: [...STATE_TABLE_ACTIONS], resources: [r.tableArn] }),
    // The fleet is listed with describe calls only, for the sources enabled; they take no resource.
    ...((r.discoverySources?.length ?? 0) === 0
      ? []
      : [
          new iam.PolicyStatement({
            sid: 'DescribeDiscoveredFleet',
            actions: discoveryActions(r.discoverySources ?? []),
            resources: ['*'],
          }),
        ]),
  ];
}

export { DISCOVERY_ACTIONS, discoveryActions, monitorStatements, STATE_TABLE_ACTIONS };
