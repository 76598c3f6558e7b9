/**
 * The CDK app: `npx cdk synth` / `npx cdk deploy`. Options come from `monitor.config.json` (when
 * present; `-c configFile=<path>` names another) under the CDK context (cdk.json, `-c key=value`),
 * checked once with every problem listed (docs/deploy.md); cdk-nag AwsSolutions checks every synth.
 */
import { existsSync, readFileSync } from 'node:fs';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ConfigError } from './config.ts';
import { DEFAULT_OPTIONS_FILE, parseOptionsFile, readDeployOptions } from './deployOptions.ts';
import { HttpdStatusAlertsStack } from './stack.ts';

const app = new App();
try {
  const context = app.node.getAllContext() as Record<string, unknown>;
  const named = context.configFile;
  if (named !== undefined && (typeof named !== 'string' || !existsSync(named)))
    throw new ConfigError([`configFile: expected an existing JSON file, found ${JSON.stringify(named)}`]);
  const path = named ?? DEFAULT_OPTIONS_FILE;
  const file = existsSync(path) ? { path, values: parseOptionsFile(path, readFileSync(path, 'utf8')) } : null;
  const options = readDeployOptions(file, context);
  // Why: a second monitor in the account and region (another prefix) needs its own stack, or its
  // deploy would replace the first.
  new HttpdStatusAlertsStack(app, options.stackName, {
    description: 'httpd-status-alerts: watches Apache server-status reports and pages through SNS',
    options,
  });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  // Why: a person fixes a typo faster from one line than from a stack trace.
  process.stderr.write(`invalid deploy configuration: ${error.problems.join('; ')}\n`);
  process.exit(1);
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
