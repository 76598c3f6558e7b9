/**
 * Test helper: builds the stack from a context object, the way `cdk synth` would, with bundling
 * skipped unless asked, and returns its template and the cdk-nag findings of the synth.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readDeployOptions } from '../../infra/deployOptions.ts';
import { HttpdStatusAlertsStack } from '../../infra/stack.ts';

interface Finding {
  rule: string;
  path: string;
}

interface Synthesized {
  stack: HttpdStatusAlertsStack;
  template: Template;
  outdir: string;
  findings: Finding[];
}

interface ValidationReport {
  pluginReports: { violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[] }[];
}

interface SynthOptions {
  /** Bundle the handler with esbuild, as `cdk synth` does (slower). */
  bundle?: boolean;
  /** Changes the stack before synthesis (tests of the cdk-nag harness itself). */
  extend?: (stack: HttpdStatusAlertsStack) => void;
}

function synth(context: Record<string, unknown> = {}, options: SynthOptions = {}): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'hsa-cdk-'));
  const app = new App({
    outdir,
    context: { ...context, ...(options.bundle === true ? {} : { 'aws:cdk:bundling-stacks': [] }) },
  });
  // The stack takes its options as the app gives them: read and checked whole, unknown keys refused.
  const stack = new HttpdStatusAlertsStack(app, 'HttpdStatusAlerts', {
    options: readDeployOptions(null, app.node.getAllContext() as Record<string, unknown>),
  });
  options.extend?.(stack);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const findings: Finding[] = [];
  try {
    app.synth();
  } catch (error) {
    const file = [join(outdir, 'validation-report.json'), join(outdir, 'policy-validation-report.json')].find(
      existsSync,
    );
    if (file === undefined) throw error;
    const report = JSON.parse(readFileSync(file, 'utf8')) as ValidationReport;
    for (const plugin of report.pluginReports) {
      for (const violation of plugin.violations) {
        for (const construct of violation.violatingConstructs) {
          findings.push({ rule: violation.ruleName, path: construct.constructPath });
        }
      }
    }
  }
  // The assembly is written before validation throws; read it rather than synthesising again.
  const template = JSON.parse(readFileSync(join(outdir, 'HttpdStatusAlerts.template.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  return { stack, template: Template.fromJSON(template), outdir, findings };
}

export { type Finding, type Synthesized, synth };
