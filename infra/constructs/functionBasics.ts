/**
 * What each of the stack's functions starts from: a role of its own (inline statements only,
 * instead of the broad AWSLambdaBasicExecutionRole), a log group kept for a bounded time and
 * deleted with the stack, and an encrypted queue keeping what failed for a person. The monitor
 * and the PagerDuty forwarder share it; the ids stay those of their scope. `indexedFields` become
 * the log group's field index policy: a Logs Insights query with `field = "value"` on one of them
 * scans only the events known to match (Standard log class, at most 20 fields, events ingested
 * after the policy exists).
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * @example
 * const { role, logGroup, queue } = functionBasics(this, { description, logRetentionDays: 30, queueId: 'FailedRuns' });
 */
function functionBasics(
  scope: Construct,
  props: { description: string; logRetentionDays: number; queueId: string; indexedFields?: readonly string[] },
): { role: iam.Role; logGroup: logs.LogGroup; queue: sqs.Queue } {
  const role = new iam.Role(scope, 'Role', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: props.description,
  });
  const logGroup = new logs.LogGroup(scope, 'Logs', {
    retention: props.logRetentionDays as logs.RetentionDays,
    removalPolicy: RemovalPolicy.DESTROY,
    ...(props.indexedFields?.length
      ? { fieldIndexPolicies: [new logs.FieldIndexPolicy({ fields: [...props.indexedFields] })] }
      : {}),
  });
  const queue = new sqs.Queue(scope, props.queueId, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    removalPolicy: RemovalPolicy.DESTROY,
  });
  return { role, logGroup, queue };
}

export { functionBasics };
