/**
 * Several monitors in one account and region: each its own stack name (`stackName`), heartbeat
 * and alarms (its prefix as the `monitor` dimension); and a fleet seeded with the deploy past the
 * dashboard's 100 targets synthesizes, with a note, never a stack trace.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../infra/config.ts';
import { DEFAULT_STACK_NAME, readDeployOptions } from '../../infra/deployOptions.ts';
import { synth } from './synth.ts';

describe('several monitors per account and region', () => {
  it.each<[string, Record<string, unknown>, string]>([
    // [case, context, the stack name]
    ['the default', {}, DEFAULT_STACK_NAME],
    ['a second monitor', { stackName: 'ApacheMonitorEu', prefix: '/apache-eu' }, 'ApacheMonitorEu'],
  ])('stack name: %s', (_, context, name) => {
    expect(readDeployOptions(null, context).stackName).toBe(name);
  });

  it('refuses a stack name CloudFormation would, saying what was expected', () => {
    expect(() => readDeployOptions(null, { stackName: '1st monitor' })).toThrow(ConfigError);
    expect(() => readDeployOptions(null, { stackName: '1st monitor' })).toThrow(
      'stackName: expected a CloudFormation stack name (a letter, then letters, digits and -, at most 128), found "1st monitor"',
    );
  });

  it.each<[string, string]>([
    ['/httpd-status-alerts', '/httpd-status-alerts'],
    ['/apache-eu', '/apache-eu'],
  ])('prefix %s: heartbeat, failed runs and unreadable configuration alarm on its own series', (prefix, monitor) => {
    const { template } = synth({ prefix });
    for (const name of ['Heartbeat', 'RunsFailed', 'ConfigurationUnreadable'])
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: name,
        Dimensions: [
          { Name: 'monitor', Value: monitor },
          { Name: 'service', Value: 'httpd-status-alerts' },
        ],
      });
  });
});

describe('a fleet seeded past the dashboard', () => {
  const targets = Object.fromEntries(
    Array.from({ length: 101 }, (_, i) => [
      `web-${String(i).padStart(3, '0')}`,
      { url: `http://web-${i}/server-status` },
    ]),
  );

  it('101 seeded targets: 100 on the dashboard, a note for the one left off, every target seeded', () => {
    const { template } = synth({ targets: JSON.stringify(targets), dashboardTargets: 'web-100' });
    const dashboard = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0] as {
      Properties: { DashboardBody: unknown };
    };
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    expect(body).toContain(
      '100 target(s); 1 more seeded target(s) not shown (at most 100 fit on one dashboard: name those you want in `dashboardTargets`).',
    );
    // The one named in dashboardTargets is shown; the last seeded by name is the one left off.
    expect(body).toContain('web-100: ');
    expect(body).not.toContain('web-099: ');
    expect(Object.keys(template.findResources('AWS::SSM::Parameter'))).toHaveLength(1); // the rules
    expect(Object.keys(template.findResources('Custom::AWS'))).toHaveLength(101);
    // One role for all the seeded puts: a policy per target would pass IAM's inline policy size on one role.
    expect(
      Object.keys(template.findResources('AWS::IAM::Policy')).filter((id) => id.startsWith('ConfigSeedRole')),
    ).toHaveLength(1);
  });

  it('more than 100 names in dashboardTargets is a one-line option problem', () => {
    const names = Array.from({ length: 101 }, (_, i) => `extra-${i}`).join(',');
    expect(() => readDeployOptions(null, { dashboardTargets: names })).toThrow(
      'dashboardTargets: expected at most 100 names (one dashboard), found 101',
    );
  });
});
