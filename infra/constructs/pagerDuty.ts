/**
 * The PagerDuty forwarder, behind `-c pagerDutyRoutingKeyParameter=<name>`: a small function
 * subscribed to the alert topic that posts each page to the Events API v2 (src/lambda/pagerDutyHandler.ts),
 * one incident per alert group or per alert (`-c pagerDutyEventsPer`), remembering in the state
 * table the last order accepted per dedup_key and its pace per routing key. SNS invokes it
 * asynchronously; Lambda retries a failed invocation twice, then keeps it in a dead-letter queue
 * whose first message raises an alarm on the ops topic; a missing or refused routing key raises
 * another. Without the context key the construct adds nothing.
 */
import { fileURLToPath } from 'node:url';
import { Aws, CfnOutput, Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subs from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../src/core/constants.ts';
import { SEVERITY_NAMES } from '../../src/core/rules/types.ts';
import { LOG_MESSAGES } from '../../src/forwarder/logMessages.ts';
import { forwarderVariables } from '../../src/lambda/environmentContract.ts';
import type { AlertsConfig } from '../config.ts';
import { functionBasics } from './functionBasics.ts';
import { BUNDLE_ALIASES, BUNDLE_BANNER, BUNDLE_MAIN_FIELDS, BUNDLE_MINIFY, BUNDLE_TARGET } from './monitorFunction.ts';
import type { PagerDutySettings } from './pagerDutySettings.ts';
import { importVpcPlacement } from './vpcPlacement.ts';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGERDUTY_HANDLER_ENTRY = fileURLToPath(new URL('../../src/lambda/pagerDutyHandler.ts', import.meta.url));
/** Items of the state table the forwarder may touch: its own (`pagerduty-order#`, `pagerduty-pace#`, `pagerduty-key#`). */
const FORWARDER_ITEMS = 'pagerduty-*';

/** `arn:...:parameter/name` for `/name` and for `name` alike (SSM adds the slash for the latter). */
function parameterArn(name: string): string {
  const path = name.startsWith('/') ? name : `/${name}`;
  return `arn:${Aws.PARTITION}:ssm:${Aws.REGION}:${Aws.ACCOUNT_ID}:parameter${path}`;
}

interface PagerDutyForwarderProps {
  settings: PagerDutySettings & { routingKeyParameter: string };
  config: AlertsConfig;
  alertTopic: sns.ITopic;
  opsTopic: sns.ITopic;
  /** The monitor's state table: the forwarder keeps its own items there. */
  table: dynamodb.ITableV2;
  /** The monitor's security groups, reused when the stack is deployed into a VPC. */
  securityGroups: ec2.ISecurityGroup[];
}

class PagerDutyForwarder extends Construct {
  readonly fn: NodejsFunction;
  readonly role: iam.Role;
  readonly deadLetters: sqs.Queue;
  readonly alarm: cloudwatch.Alarm;
  readonly keyAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: PagerDutyForwarderProps) {
    super(scope, id);
    const { config, settings } = props;

    // Why: inline statements only, each on the narrowest resource (as the monitor's role); an
    // invocation that failed three times is kept for a person (and alarmed below).
    const { role, logGroup, queue } = functionBasics(this, {
      description: 'httpd-status-alerts PagerDuty forwarder: read the routing key, write its logs',
      logRetentionDays: config.logRetentionDays,
      queueId: 'FailedForwards',
    });
    this.role = role;
    this.deadLetters = queue;
    Validations.of(this.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the failure destination of the PagerDuty forwarder.',
    });

    this.fn = new NodejsFunction(this, 'Function', {
      description: 'Forwards httpd-status-alerts pages to the PagerDuty Events API v2',
      entry: PAGERDUTY_HANDLER_ENTRY,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 128,
      // Why: events are paced at 17 per 10 s per routing key: a page about 1,000 alerts sent one
      // event per alert takes about 10 minutes; what does not fit fails and Lambda's retry sends the rest.
      timeout: Duration.minutes(15),
      role: this.role,
      logGroup,
      // Why: SNS invokes asynchronously; two retries ride out a PagerDuty outage of minutes.
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
      onFailure: new SqsDestination(this.deadLetters),
      environment: {
        ...forwarderVariables({
          routingKeyParameter: settings.routingKeyParameter,
          eventsUrl: settings.eventsUrl,
          eventsPer: settings.eventsPer,
          stateTable: props.table.tableName,
        }),
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        format: OutputFormat.ESM,
        target: BUNDLE_TARGET,
        minify: BUNDLE_MINIFY,
        sourceMap: true,
        sourcesContent: false,
        bundleAwsSDK: true,
        mainFields: BUNDLE_MAIN_FIELDS,
        banner: BUNDLE_BANNER,
        forceDockerBundling: false,
        esbuildArgs: { '--alias': Object.entries(BUNDLE_ALIASES).map(([from, to]) => `${from}=${to}`) },
      },
      ...(config.vpc === null ? {} : this.vpcPlacement(config.vpc, props.securityGroups)),
    });

    for (const statement of this.statements(
      settings.routingKeyParameter,
      config.secretsKeyArn,
      logGroup,
      props.table,
    )) {
      this.role.addToPolicy(statement);
    }

    // Why: every alert, or only the severities asked for, through the attribute filter.
    const filterPolicy =
      settings.severities.length === SEVERITY_NAMES.length
        ? undefined
        : { severity: sns.SubscriptionFilter.stringFilter({ allowlist: settings.severities }) };
    props.alertTopic.addSubscription(new subs.LambdaSubscription(this.fn, { filterPolicy }));

    // Why: a page that never reached PagerDuty is an outage of paging itself.
    this.alarm = new cloudwatch.Alarm(this, 'FailedForwardsQueued', {
      metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription:
        'httpd-status-alerts: pages failed to reach PagerDuty after retries; they wait in the forwarder dead-letter queue',
    });
    const notify = new actions.SnsAction(props.opsTopic);
    this.alarm.addAlarmAction(notify);
    this.alarm.addOkAction(notify);

    // Why: a missing or wrong routing key fails every page; the forwarder logs it once an hour
    // (remembered in the table), so the ops topic hears of it once, not on every page.
    const refused = new logs.MetricFilter(this, 'RoutingKeyRefusedFilter', {
      logGroup,
      metricNamespace: METRICS_NAMESPACE,
      metricName: 'PagerDutyRoutingKeyRefused',
      filterPattern: logs.FilterPattern.stringValue('$.message', '=', LOG_MESSAGES.keyRefused),
      metricValue: '1',
    });
    this.keyAlarm = new cloudwatch.Alarm(this, 'RoutingKeyRefused', {
      metric: refused.metric({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription:
        'httpd-status-alerts: the PagerDuty routing key is missing from SSM or PagerDuty refuses it (400/403); pages are not reaching PagerDuty',
    });
    this.keyAlarm.addAlarmAction(notify);
  }

  private statements(
    parameter: string,
    secretsKeyArn: string | null,
    logGroup: logs.ILogGroup,
    table: dynamodb.ITableV2,
  ): iam.PolicyStatement[] {
    return [
      // Its own items of the state table only (last order accepted, pace, key problems): no scan, no delete.
      new iam.PolicyStatement({
        sid: 'KeepForwarderState',
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [FORWARDER_ITEMS] } },
      }),
      new iam.PolicyStatement({
        sid: 'WriteOwnLogs',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
      // The routing key is the one parameter this function reads.
      new iam.PolicyStatement({
        sid: 'ReadRoutingKey',
        actions: ['ssm:GetParameter'],
        resources: [parameterArn(parameter)],
      }),
      // Decrypted only through SSM, and only for that parameter (SSM passes its ARN as the encryption context).
      new iam.PolicyStatement({
        sid: 'DecryptRoutingKey',
        actions: ['kms:Decrypt'],
        resources: [secretsKeyArn ?? `arn:${Aws.PARTITION}:kms:${Aws.REGION}:${Aws.ACCOUNT_ID}:key/*`],
        conditions: {
          StringEquals: {
            'kms:ViaService': `ssm.${Aws.REGION}.amazonaws.com`,
            'kms:EncryptionContext:PARAMETER_ARN': parameterArn(parameter),
          },
        },
      }),
    ];
  }

  /** The monitor's subnets and security groups: egress to PagerDuty needs a NAT route (docs/routing.md). */
  private vpcPlacement(
    placement: NonNullable<AlertsConfig['vpc']>,
    securityGroups: ec2.ISecurityGroup[],
  ): Partial<lambda.FunctionProps> {
    return { ...importVpcPlacement(this, this.role, placement), securityGroups };
  }
}

/**
 * Adds the forwarder when `pagerDutyRoutingKeyParameter` is set (and its topic ARN as an output).
 * @returns the forwarder, or undefined without the context key
 */
function addPagerDutyForwarder(
  scope: Construct,
  props: {
    config: AlertsConfig;
    notifications: { alertTopic: sns.ITopic; opsTopic: sns.ITopic };
    monitor: { fn: lambda.IFunction };
    table: dynamodb.ITableV2;
    /** The settings, read and checked with the other deploy options (infra/deployOptions.ts). */
    settings: PagerDutySettings;
  },
): PagerDutyForwarder | undefined {
  const { settings } = props;
  if (settings.routingKeyParameter === null) return undefined;
  const forwarder = new PagerDutyForwarder(scope, 'PagerDuty', {
    settings: { ...settings, routingKeyParameter: settings.routingKeyParameter },
    config: props.config,
    alertTopic: props.notifications.alertTopic,
    opsTopic: props.notifications.opsTopic,
    table: props.table,
    securityGroups: props.config.vpc === null ? [] : props.monitor.fn.connections.securityGroups,
  });
  acknowledgeForwarderFindings(forwarder, props.config);
  new CfnOutput(scope, 'PagerDutyForwarderName', { value: forwarder.fn.functionName });
  return forwarder;
}

/** cdk-nag findings the forwarder accepts, each with its reason. */
function acknowledgeForwarderFindings(forwarder: PagerDutyForwarder, config: AlertsConfig): void {
  const role = Validations.of(forwarder.role);
  if (config.secretsKeyArn === null) {
    role.acknowledge({
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:kms:<AWS::Region>:<AWS::AccountId>:key/*]',
      reason:
        'The AWS-managed aws/ssm key id is unknown at synth; kms:ViaService ssm and the PARAMETER_ARN encryption context restrict Decrypt to the routing key parameter.',
    });
  }
  if (config.vpc !== null) {
    role.acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole]',
      reason:
        'Lambda needs the ENI permissions of this AWS-maintained policy to run in a VPC; they cannot be scoped to resources.',
    });
  }
}

export {
  acknowledgeForwarderFindings,
  addPagerDutyForwarder,
  PAGERDUTY_HANDLER_ENTRY,
  PagerDutyForwarder,
  type PagerDutyForwarderProps,
};
