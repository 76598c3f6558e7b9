/**
 * The configuration the stack seeds under the SSM prefix: the default rules and, from the deploy
 * options, targets (retained when a later deploy drops them). Everything else under the prefix (more targets, rules, silences and the
 * SecureString secrets, which CloudFormation cannot create) is put by the user with the CLI.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import type { SeedTarget } from '../config.ts';

/** Standard parameters hold 4 KB; larger values need the (paid) advanced tier. */
const STANDARD_TIER_MAX_CHARS = 4096;

interface ConfigParametersProps {
  prefix: string;
  rulesDocument: string;
  targets: Record<string, SeedTarget>;
}

function tierFor(value: string): ssm.ParameterTier {
  return value.length <= STANDARD_TIER_MAX_CHARS ? ssm.ParameterTier.STANDARD : ssm.ParameterTier.ADVANCED;
}

class ConfigParameters extends Construct {
  readonly parameters: ssm.StringParameter[] = [];

  constructor(scope: Construct, id: string, props: ConfigParametersProps) {
    super(scope, id);
    const rules = props.rulesDocument;

    // Why: the monitor pages on sensible defaults from the first run, with no manual step.
    this.parameters.push(
      new ssm.StringParameter(this, 'DefaultRules', {
        parameterName: `${props.prefix}/rules/defaults`,
        description: 'Default alert rules (managed by the httpd-status-alerts stack)',
        stringValue: rules,
        tier: tierFor(rules),
      }),
    );
    // Why: seeded targets, so a first deploy already watches something. Retained: a later deploy
    // that no longer names one leaves it watched; `targets remove` takes it away (docs/deploy.md).
    for (const [name, target] of Object.entries(props.targets)) {
      const value = JSON.stringify(target);
      const parameter = new ssm.StringParameter(this, `Target-${name}`, {
        parameterName: `${props.prefix}/targets/${name}`,
        description: `Target ${name} (seeded by the httpd-status-alerts stack, kept when unseeded)`,
        stringValue: value,
        tier: tierFor(value),
      });
      parameter.applyRemovalPolicy(RemovalPolicy.RETAIN);
      this.parameters.push(parameter);
    }
  }
}

export { ConfigParameters, type ConfigParametersProps };
