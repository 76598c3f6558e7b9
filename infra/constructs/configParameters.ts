/**
 * The configuration the stack seeds under the SSM prefix: the default rules and, from the deploy
 * options, targets (kept when a later deploy drops them, and adopted when they already exist).
 * Everything else under the prefix (more targets, rules, silences and the SecureString secrets,
 * which CloudFormation cannot create) is put by the user with the CLI.
 */
import { Aws, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import type { SeedTarget } from '../config.ts';

/** Standard parameters hold 4 KB; larger values need the (paid) advanced tier. */
const STANDARD_TIER_MAX_CHARS = 4096;

const TIERS = { standard: 'Standard', advanced: 'Advanced' } as const;

interface ConfigParametersProps {
  prefix: string;
  rulesDocument: string;
  targets: Record<string, SeedTarget>;
}

function tierFor(value: string): (typeof TIERS)[keyof typeof TIERS] {
  return value.length <= STANDARD_TIER_MAX_CHARS ? TIERS.standard : TIERS.advanced;
}

class ConfigParameters extends Construct {
  readonly rules: ssm.StringParameter;
  /** One per seeded target, each putting its parameter with `Overwrite`. */
  readonly seededTargets: cr.AwsCustomResource[] = [];

  constructor(scope: Construct, id: string, props: ConfigParametersProps) {
    super(scope, id);
    const rules = props.rulesDocument;

    // Why: the monitor pages on sensible defaults from the first run, with no manual step.
    this.rules = new ssm.StringParameter(this, 'DefaultRules', {
      parameterName: `${props.prefix}/rules/defaults`,
      description: 'Default alert rules (managed by the httpd-status-alerts stack)',
      stringValue: rules,
      tier: tierFor(rules) === TIERS.standard ? ssm.ParameterTier.STANDARD : ssm.ParameterTier.ADVANCED,
    });
    const names = Object.keys(props.targets);
    if (names.length === 0) return;

    // Why not AWS::SSM::Parameter: a seeded target outlives its stack (a later deploy that no longer
    // names it, or a destroy, leaves it watched), and CloudFormation cannot create a parameter that
    // exists, so destroy-then-deploy would fail on every seeded target. A put with Overwrite adopts
    // the parameter left behind, and a custom resource without a delete call leaves it in place.
    const writer = this.writerRole(props.prefix);
    for (const name of names) {
      const parameterName = `${props.prefix}/targets/${name}`;
      const value = JSON.stringify(props.targets[name]);
      const put: cr.AwsSdkCall = {
        service: 'SSM',
        action: 'PutParameter',
        parameters: {
          Name: parameterName,
          Value: value,
          Type: 'String',
          Tier: tierFor(value),
          Overwrite: true,
          Description: `Target ${name} (seeded by the httpd-status-alerts stack, kept when unseeded)`,
        },
        physicalResourceId: cr.PhysicalResourceId.of(parameterName),
      };
      this.seededTargets.push(
        new cr.AwsCustomResource(this, `Target-${name}`, {
          onCreate: put,
          onUpdate: put,
          role: writer.role,
          logGroup: writer.logGroup,
          installLatestAwsSdk: false,
        }),
      );
    }
  }

  /**
   * One role for every seeded target's put: a policy per custom resource would add up, on the one
   * provider function's role, past IAM's 10,240 characters of inline policy at about 100 targets.
   */
  private writerRole(prefix: string): { role: iam.Role; logGroup: logs.LogGroup } {
    const logGroup = new logs.LogGroup(this, 'SeedLogs', { retention: logs.RetentionDays.ONE_MONTH });
    const role = new iam.Role(this, 'SeedRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Puts the targets seeded by the httpd-status-alerts stack',
    });
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['ssm:PutParameter'],
        resources: [`arn:${Aws.PARTITION}:ssm:${Aws.REGION}:${Aws.ACCOUNT_ID}:parameter${prefix}/targets/*`],
      }),
    );
    logGroup.grantWrite(role);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:parameter${prefix}/targets/*]`,
      reason:
        'Seeds the deploy-time targets, which are named by the deploy options; only puts under the prefix targets folder.',
    });
    return { role, logGroup };
  }
}

export { ConfigParameters, type ConfigParametersProps };
