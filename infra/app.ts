/**
 * The CDK app: `npx cdk synth` / `npx cdk deploy`. Options come from context (see
 * docs/deploy.md); cdk-nag AwsSolutions checks every synth.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readConfig } from './config.ts';
import { HttpdStatusAlertsStack } from './stack.ts';

const app = new App();
const config = readConfig((key) => app.node.tryGetContext(key));
new HttpdStatusAlertsStack(app, 'HttpdStatusAlerts', {
  description: 'httpd-status-alerts: watches Apache server-status reports and pages through SNS',
  config,
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
