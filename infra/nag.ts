/**
 * cdk-nag AwsSolutions findings this design accepts, each with its reason, each on the construct
 * it concerns. Kept in one place so a reviewer reads every exception at once; any other finding
 * fails the synth.
 */
import { Validations } from 'aws-cdk-lib';
import type { AlertsConfig } from './config.ts';
import type { MonitorFunction } from './constructs/monitorFunction.ts';

function acknowledgeFindings(monitor: MonitorFunction, config: AlertsConfig): void {
  const role = Validations.of(monitor.role);
  role.acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:parameter${config.prefix}/*]`,
    reason: 'The function reads all of its own configuration, which is every parameter under its SSM prefix.',
  });
  if (config.secretsKeyArn === null) {
    role.acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:kms:<AWS::Region>:<AWS::AccountId>:key/*]',
      reason:
        'The AWS-managed aws/ssm key id is unknown at synth; kms:ViaService ssm and the PARAMETER_ARN encryption context restrict Decrypt to secrets under the prefix.',
    });
  }
  if (config.discoverySources.length > 0) {
    role.acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ec2:DescribeInstances, autoscaling:DescribeAutoScalingGroups and elasticloadbalancing:DescribeTargetGroups/DescribeTargetHealth support no resource-level permissions; only these read-only describe actions of the enabled discovery sources are granted on *.',
    });
  }
  if (config.vpc !== null) {
    role.acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
      reason:
        'Lambda needs the ENI permissions of this AWS-maintained policy to run in a VPC; they cannot be scoped to resources.',
    });
  }
  Validations.of(monitor.failures).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: 'This queue is itself the dead-letter destination of the function and of its schedule.',
  });
}

export { acknowledgeFindings };
