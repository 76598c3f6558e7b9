/**
 * The scheduled Lambda with its role, logs, failure queue and schedule. Its role is written by
 * hand, statement by statement, so each permission is exactly what the handler uses.
 */
import { fileURLToPath } from 'node:url';
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TARGET_LOG_FIELD } from '../../src/core/emittedMetrics.ts';
import { claimLeaseProblem, MONITOR_ENVIRONMENT, monitorVariables } from '../../src/lambda/environmentContract.ts';
import type { AlertsConfig, VpcPlacement } from '../config.ts';
import { functionBasics } from './functionBasics.ts';
import { monitorStatements } from './permissions.ts';
import { importVpcPlacement } from './vpcPlacement.ts';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HANDLER_ENTRY = fileURLToPath(new URL('../../src/lambda/handler.ts', import.meta.url));
const SHARDED_HANDLER_ENTRY = fileURLToPath(new URL('../../src/lambda/shardedHandler.ts', import.meta.url));
/** With discovery sources enabled: the same entries with the sources' SDK clients composed. */
const DISCOVERY_HANDLER_ENTRY = fileURLToPath(new URL('../../src/lambda/discoveryHandler.ts', import.meta.url));
const DISCOVERY_SHARDED_HANDLER_ENTRY = fileURLToPath(
  new URL('../../src/lambda/discoveryShardedHandler.ts', import.meta.url),
);
/**
 * Packages the bundle replaces (esbuild `alias`, paths relative to the project root). Lambda
 * gives the function its credentials in the environment, so the SDK's full default chain (SSO,
 * profiles, STS, instance metadata: about 95 KB) is swapped for the two sources Lambda uses.
 */
const BUNDLE_ALIASES = {
  '@aws-sdk/credential-provider-node': './src/lambda/credentials.ts',
} as const;
/** The rest of the esbuild settings bench/e2e/bundle.ts shares with the stack's bundling. */
const BUNDLE_TARGET = 'node22';
const BUNDLE_MINIFY = true;
const BUNDLE_MAIN_FIELDS = ['module', 'main'];
/** Gives the ESM bundle the `require` that bundled CommonJS packages call. */
const BUNDLE_BANNER = "import { createRequire } from 'module';const require = createRequire(import.meta.url);";

interface MonitorFunctionProps {
  config: AlertsConfig;
  table: dynamodb.ITableV2;
  alertTopic: sns.ITopic;
  topicKey: kms.IKey;
  /** The handler module: `src/lambda/handler.ts`, `src/lambda/shardedHandler.ts` in sharded mode, or a test's stub. */
  entry?: string;
}

class MonitorFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly role: iam.Role;
  readonly failures: sqs.Queue;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: MonitorFunctionProps) {
    super(scope, id);
    const { config } = props;
    const interval = Duration.minutes(config.scheduleMinutes);

    // Why: a run that failed, or an invocation that could not be delivered, is kept for a person.
    const { role, logGroup, queue } = functionBasics(this, {
      description: 'httpd-status-alerts monitor: read its SSM prefix, write its table, publish alerts',
      logRetentionDays: config.logRetentionDays,
      queueId: 'FailedRuns',
      // Why: each dashboard target's widgets then scan that target's lines, not the whole group.
      indexedFields: [TARGET_LOG_FIELD],
    });
    this.role = role;
    this.failures = queue;

    const placement = config.vpc === null ? {} : this.vpcPlacement(config.vpc);
    const variables = monitorVariables({
      ssmPrefix: config.prefix,
      topicArn: props.alertTopic.topicArn,
      stateTable: props.table.tableName,
      repeatInterval: config.repeatInterval,
      downAfterFailures: config.downAfterFailures,
      configMaxAgeSeconds: config.configMaxAgeSeconds,
      fetchConcurrency: config.fetchConcurrency,
      chatbotFormat: config.chatbotFormat,
      targetMetrics: config.targetMetrics,
      timeoutSeconds: config.timeoutSeconds,
      sharedSecretParameters: config.sharedSecretParameters,
      discoverySources: config.discoverySources,
    });
    // Why: one bundled ESM file with the SDK inside starts faster than the runtime's SDK.
    this.fn = new NodejsFunction(this, 'Function', {
      description: 'Checks Apache httpd server-status reports and pages through SNS',
      entry: props.entry ?? HANDLER_ENTRY,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: config.memoryMb,
      timeout: Duration.seconds(config.timeoutSeconds),
      ...(config.reserveConcurrency ? { reservedConcurrentExecutions: 1 } : {}),
      role: this.role,
      logGroup,
      // The next scheduled run is the retry; a late retry would only overlap it.
      retryAttempts: 0,
      maxEventAge: interval,
      onFailure: new SqsDestination(this.failures),
      environment: { ...variables, NODE_OPTIONS: '--enable-source-maps' },
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
      ...placement,
    });

    // Why: the claim lease must outlive a run; checked against the timeout the function is
    // deployed with, whoever set it last (an embedding stack may change it after this construct).
    const leaseSeconds = Number(variables[MONITOR_ENVIRONMENT.claimLeaseSeconds.name]);
    this.node.addValidation({
      validate: () => {
        const timeout = (this.fn.node.defaultChild as lambda.CfnFunction).timeout;
        const problem = typeof timeout === 'number' ? claimLeaseProblem(leaseSeconds, timeout) : null;
        return problem === null ? [] : [problem];
      },
    });

    // Why: each permission is exactly what the handler uses, on its narrowest resource.
    for (const statement of monitorStatements({
      prefix: config.prefix,
      secretsKeyArn: config.secretsKeyArn,
      logGroupArn: logGroup.logGroupArn,
      topicArn: props.alertTopic.topicArn,
      topicKeyArn: props.topicKey.keyArn,
      tableArn: props.table.tableArn,
      discoverySources: config.discoverySources,
    })) {
      this.role.addToPolicy(statement);
    }

    // Why: the run cadence; a rule invokes through a resource policy scoped to its ARN (no role).
    this.rule = new events.Rule(this, 'Schedule', {
      description: `Runs the httpd-status-alerts check every ${config.scheduleMinutes} minute(s)`,
      schedule: events.Schedule.rate(interval),
    });
    this.rule.addTarget(
      new eventTargets.LambdaFunction(this.fn, {
        retryAttempts: 2,
        maxEventAge: interval,
        deadLetterQueue: this.failures,
      }),
    );
  }

  /** The user's VPC, and its security groups or an egress-only one. */
  private vpcPlacement(placement: VpcPlacement): Partial<lambda.FunctionProps> {
    const { vpc, vpcSubnets } = importVpcPlacement(this, this.role, placement);
    const securityGroups =
      placement.securityGroupIds.length > 0
        ? placement.securityGroupIds.map((sg) => ec2.SecurityGroup.fromSecurityGroupId(this, `Sg-${sg}`, sg))
        : // Why: no inbound at all; outbound to the status pages and the AWS APIs.
          [
            new ec2.SecurityGroup(this, 'SecurityGroup', {
              vpc,
              description: 'httpd-status-alerts monitor (egress only)',
            }),
          ];
    return { vpc, vpcSubnets, securityGroups };
  }
}

export {
  BUNDLE_ALIASES,
  BUNDLE_BANNER,
  BUNDLE_MAIN_FIELDS,
  BUNDLE_MINIFY,
  BUNDLE_TARGET,
  DISCOVERY_HANDLER_ENTRY,
  DISCOVERY_SHARDED_HANDLER_ENTRY,
  HANDLER_ENTRY,
  MonitorFunction,
  type MonitorFunctionProps,
  SHARDED_HANDLER_ENTRY,
};
