/**
 * The deploy options as a whole: monitor.config.json under the CDK context, unknown keys with the
 * nearest known key, every problem listed at once, the no-subscription warning, seeded targets
 * kept when a later deploy drops them, the construct for embedding, and the app's one-line failure.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_CONFIG } from '../../infra/config.ts';
import { nearestOption, parseOptionsFile, readDeployOptions } from '../../infra/deployOptions.ts';
import { HttpdStatusMonitor } from '../../infra/monitor.ts';
import { synth } from './synth.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NO_SUBSCRIPTIONS = Match.stringLikeRegexp('^No emails and no httpsEndpoints: this monitor pages nobody');

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('nearestOption', () => {
  it.each([
    ['email', 'emails'],
    ['emial', 'emails'],
    ['Emails', 'emails'],
    ['targetMetric', 'targetMetrics'],
    ['memryMb', 'memoryMb'],
    ['shardmode', 'shardMode'],
    ['httpEndpoints', 'httpsEndpoints'],
    ['colour', null],
    ['wat', null],
  ])('%s -> %s', (key, expected) => {
    expect(nearestOption(key)).toBe(expected);
  });
});

describe('readDeployOptions', () => {
  it('reads the file under the context: the context wins, sharding options included', () => {
    // Prepare
    const file = {
      path: 'monitor.config.json',
      values: { emails: ['oncall@example.com'], prefix: '/from-file', shardMode: 'sqs', targetsPerShard: 200 },
    };
    // Act
    const { config, sharding } = readDeployOptions(file, { prefix: '/from-context', 'cli-telemetry': false });
    // Assess
    expect(config).toEqual({ ...DEFAULT_CONFIG, emails: ['oncall@example.com'], prefix: '/from-context' });
    expect(sharding).toEqual({ mode: 'sqs', targetsPerShard: 200, maxConcurrency: 5 });
  });

  it('ignores the CDK own keys (feature flags, aws:cdk:*, cli-telemetry)', () => {
    const context = {
      '@aws-cdk/core:checkSecretUsage': true,
      'aws:cdk:bundling-stacks': [],
      'cli-telemetry': false,
      'availability-zones:account=123456789012:region=eu-west-1': ['eu-west-1a'],
    };
    expect(problemsOf(() => readDeployOptions(null, context))).toEqual([]);
  });

  it('lists every problem at once: unknown keys of file and context with suggestions, then bad values', () => {
    // Prepare
    const file = { path: 'monitor.config.json', values: { emial: ['a@example.com'], scheduleMinutes: 0 } };
    const context = {
      email: 'oncall@example.com',
      targetMetrics: 'wat',
      targets: '{"web 1":{"url":"http://web-1/server-status"},"web-2":{"url":"http://web-2/","timeoutMs":5}}',
      shardMode: 'kafka',
      colour: 'blue',
    };
    // Act
    const problems = problemsOf(() => readDeployOptions(file, context));
    // Assess
    expect(problems).toEqual([
      'monitor.config.json: emial: unknown option, did you mean emails? (known: see docs/deploy.md)',
      'context (cdk.json or -c): email: unknown option, did you mean emails? (known: see docs/deploy.md)',
      'context (cdk.json or -c): colour: unknown option (known: see docs/deploy.md)',
      'scheduleMinutes: expected an integer from 1 to 60, found 0',
      'targets.web 1: expected a target name of letters, digits, _ . -, found "web 1"',
      'targets.web-2.timeoutMs: Too small: expected number to be >=100, found 5',
      'targetMetrics: expected all, none, dashboard or names of targets (seeded or in dashboardTargets), found "wat"',
      'shardMode: expected none or sqs, found "kafka"',
    ]);
  });

  it('accepts target names for targetMetrics when they are seeded or on the dashboard', () => {
    const { config } = readDeployOptions(null, {
      targets: { 'web-1': { url: 'http://web-1/server-status' } },
      dashboardTargets: ['web-2'],
      targetMetrics: 'web-1,web-2',
    });
    expect(config.targetMetrics).toEqual(['web-1', 'web-2']);
  });

  it('refuses an options file that is not a JSON object, in one problem', () => {
    expect(problemsOf(() => parseOptionsFile('monitor.config.json', '["emails"]'))).toEqual([
      'monitor.config.json: expected a JSON object of options, found ["emails"]',
    ]);
    expect(problemsOf(() => parseOptionsFile('m.json', '{emails:'))[0]).toMatch(
      /^m\.json: expected JSON, found invalid JSON: /,
    );
  });
});

describe('the stack and the construct', () => {
  it('warns at synth when nothing subscribes', () => {
    const { stack } = synth();
    expect(Annotations.fromStack(stack).findWarning('*', NO_SUBSCRIPTIONS)).toHaveLength(1);
  }, 120_000);

  it('does not warn when an e-mail subscribes', () => {
    const { stack } = synth({ emails: 'oncall@example.com' });
    expect(Annotations.fromStack(stack).findWarning('*', Match.anyValue())).toEqual([]);
  }, 120_000);

  it('seeds targets with a put that overwrites and never deletes: kept when unseeded, adopted after a destroy', () => {
    const { template } = synth({
      emails: 'oncall@example.com',
      targets: '{"web-1":{"url":"http://web-1/server-status"}}',
    });
    const seeded = Object.values(template.findResources('Custom::AWS')) as {
      Properties: { Create: string; Update: string; Delete?: string };
    }[];
    expect(seeded).toHaveLength(1);
    const [seed] = seeded;
    const create = JSON.parse(seed?.Properties.Create ?? '{}');
    expect(create).toMatchObject({
      service: 'SSM',
      action: 'PutParameter',
      parameters: {
        Name: '/httpd-status-alerts/targets/web-1',
        Value: '{"url":"http://web-1/server-status"}',
        Type: 'String',
        Tier: 'Standard',
        Overwrite: true,
      },
    });
    expect(seed?.Properties.Update).toEqual(seed?.Properties.Create);
    expect(seed?.Properties.Delete).toBeUndefined();
    // The seeding role puts under the targets folder and nothing else.
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'ssm:PutParameter',
            Resource: {
              'Fn::Join': ['', Match.arrayWith([':parameter/httpd-status-alerts/targets/*'])],
            },
          }),
        ]),
      }),
    });
    // The rules stay owned by the stack: a deploy brings them back to its defaults.
    template.hasResource('AWS::SSM::Parameter', {
      DeletionPolicy: Match.absent(),
      Properties: Match.objectLike({ Name: '/httpd-status-alerts/rules/defaults' }),
    });
  }, 120_000);

  it('embeds the monitor in a stack of your own, with its options checked the same way', () => {
    // Prepare
    const app = new App({
      outdir: mkdtempSync(join(tmpdir(), 'hsa-embed-')),
      context: { 'aws:cdk:bundling-stacks': [] },
    });
    const stack = new Stack(app, 'Platform');
    // Act
    new HttpdStatusMonitor(stack, 'ApacheMonitor', { options: { emails: ['oncall@example.com'], prefix: '/apache' } });
    const template = Template.fromStack(stack);
    // Assess
    template.resourceCountIs('AWS::Lambda::Function', 1);
    template.hasResourceProperties('AWS::SSM::Parameter', { Name: '/apache/rules/defaults' });
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    expect(
      problemsOf(() => new HttpdStatusMonitor(new Stack(app, 'Other'), 'M', { options: { email: 'x@example.com' } })),
    ).toEqual(['context (cdk.json or -c): email: unknown option, did you mean emails? (known: see docs/deploy.md)']);
  }, 120_000);
});

describe('infra/app.ts as cdk runs it', () => {
  it('ends an invalid configuration with one line and exit 1, no stack trace', () => {
    const result = spawnSync(join(ROOT, 'node_modules/.bin/node'), ['--import', 'tsx', 'infra/app.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        CDK_OUTDIR: mkdtempSync(join(tmpdir(), 'hsa-app-')),
        CDK_CONTEXT_JSON: JSON.stringify({ email: 'oncall@example.com', memoryMb: '64' }),
      },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'invalid deploy configuration: context (cdk.json or -c): email: unknown option, did you mean emails? (known: see docs/deploy.md); memoryMb: expected auto or an integer from 128 to 10240, found "64"\n',
    );
  }, 120_000);
});
