import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_CONFIG, readConfig } from '../../infra/config.ts';

const from = (context: Record<string, unknown>) => readConfig((key) => context[key]);

describe('readConfig', () => {
  it('gives the documented defaults for an empty context', () => {
    expect(from({})).toEqual({
      prefix: '/httpd-status-alerts',
      scheduleMinutes: 1,
      memoryMb: 256,
      timeoutSeconds: 60,
      logRetentionDays: 30,
      reserveConcurrency: true,
      emails: [],
      httpsEndpoints: [],
      targets: {},
      dashboardTargets: [],
      dashboardOmitted: 0,
      secretsKeyArn: null,
      sharedSecretParameters: [],
      vpc: null,
      repeatInterval: '4h',
      downAfterFailures: 2,
      configMaxAgeSeconds: 270,
      fetchConcurrency: 16,
      chatbotFormat: false,
      targetMetrics: 'none',
      discoverySources: [],
    });
  });

  it('reads the strings that `cdk deploy -c key=value` passes', () => {
    // Prepare
    const context = {
      prefix: '/ops/apache',
      scheduleMinutes: '5',
      timeoutSeconds: '120',
      reserveConcurrency: 'false',
      emails: 'oncall@example.com, web@example.com',
      httpsEndpoints: '["https://pager.example/hook"]',
      targets:
        '{"web-1":{"url":"https://web-1.internal/server-status?auto","timeoutMs":3000},"web-3":{"url":"http://web-3/","authParameter":"/ops/apache/secrets/fleet-status"}}',
      sharedSecretParameters: '/ops/apache/secrets/fleet-status',
      dashboardTargets: 'web-2,web-1',
      secretsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      vpcId: 'vpc-0123456789abcdef0',
      subnetIds: 'subnet-0123456789abcdef0,subnet-0fedcba9876543210',
      securityGroupIds: 'sg-01234567',
      repeatInterval: '30m',
      chatbotFormat: 'true',
      targetMetrics: 'dashboard',
    };
    // Act
    const config = from(context);
    // Assess
    expect(config).toEqual({
      ...DEFAULT_CONFIG,
      prefix: '/ops/apache',
      scheduleMinutes: 5,
      // Follows the schedule: four and a half intervals.
      configMaxAgeSeconds: 1350,
      timeoutSeconds: 120,
      reserveConcurrency: false,
      emails: ['oncall@example.com', 'web@example.com'],
      httpsEndpoints: ['https://pager.example/hook'],
      targets: {
        'web-1': { url: 'https://web-1.internal/server-status?auto', timeoutMs: 3000 },
        'web-3': { url: 'http://web-3/', authParameter: '/ops/apache/secrets/fleet-status' },
      },
      sharedSecretParameters: ['/ops/apache/secrets/fleet-status'],
      dashboardTargets: ['web-1', 'web-3', 'web-2'],
      secretsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      vpc: {
        vpcId: 'vpc-0123456789abcdef0',
        subnetIds: ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'],
        securityGroupIds: ['sg-01234567'],
      },
      repeatInterval: '30m',
      chatbotFormat: true,
      targetMetrics: ['web-1', 'web-3', 'web-2'],
    });
    expect(DEFAULT_CONFIG.targets).toEqual({});
  });

  it('accepts typed values from cdk.json or cdk.context.json', () => {
    const config = from({
      scheduleMinutes: 2,
      emails: ['a@example.com'],
      targets: { w: { url: 'http://w/server-status' } },
    });
    expect(config).toMatchObject({ scheduleMinutes: 2, emails: ['a@example.com'], dashboardTargets: ['w'] });
  });

  it('seeds a sidecar target opted into loopback; an opt-in that is not a boolean is refused with its key', () => {
    const sidecar = { url: 'http://127.0.0.1:8080/server-status?auto', allowLoopback: true };
    expect(from({ targets: { sidecar } }).targets).toEqual({ sidecar });
    expect(() => from({ targets: { sidecar: { ...sidecar, allowLoopback: 'yes' } } })).toThrow(
      'targets.sidecar.allowLoopback: expected a boolean, found "yes"',
    );
  });

  it('rejects a bad context listing every problem with its key', () => {
    // Prepare
    const context = {
      prefix: 'httpd/',
      scheduleMinutes: '0',
      reserveConcurrency: 'no',
      logRetentionDays: '10',
      emails: 'not-an-address',
      httpsEndpoints: 'http://insecure.example/',
      targets:
        '{"web 1":{"url":"http://x"},"web-2":{},"web-3":{"url":"https:/ops:pw/x@web-3/s"},"web-4":{"url":"http://w4/","authParameter":"/httpd-status-alerts/secrets/web-1"}}',
      sharedSecretParameters: '/elsewhere/fleet-status,/httpd-status-alerts/secrets/fleet-status,not a name',
      secretsKeyArn: 'alias/aws/ssm',
      subnetIds: 'subnet-01234567',
      repeatInterval: '4 hours',
      targetMetrics: 'web-1,every target',
    };
    // Act
    let error: unknown;
    try {
      from(context);
    } catch (caught) {
      error = caught;
    }
    // Assess
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'prefix: expected an SSM path like /httpd-status-alerts (no trailing /), found "httpd/"',
      'scheduleMinutes: expected an integer from 1 to 60, found "0"',
      'logRetentionDays: 10 is not one of 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653',
      'reserveConcurrency: expected true or false, found "no"',
      'emails: "not-an-address" is not an e-mail address',
      'httpsEndpoints: "http://insecure.example/" is not an https:// URL',
      'sharedSecretParameters: "not a name" is not an SSM parameter name',
      'sharedSecretParameters: expected parameter names under /httpd-status-alerts/secrets/ (the only place the function may decrypt), found "/elsewhere/fleet-status"',
      'targets.web 1: expected a target name of letters, digits, _ . -, found "web 1"',
      'targets.web-2.url: expected a string, found nothing (the field is required)',
      'targets.web-3.url: expected a URL without credentials (put "user:password" in a SecureString named by authParameter), found "https:/ops:***@web-3/s"',
      'targets.web-4.authParameter: expected /httpd-status-alerts/secrets/web-4 or a parameter below it, or a shared secret (sharedSecretParameters: /httpd-status-alerts/secrets/fleet-status), found "/httpd-status-alerts/secrets/web-1"',
      'targetMetrics: "every target" is not a target name (or all, none, dashboard)',
      'targetMetrics: expected all, none, dashboard or names of targets (seeded or in dashboardTargets), found "web-1"',
      'secretsKeyArn: expected a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>), found "alias/aws/ssm"',
      'vpcId: required with subnetIds or securityGroupIds',
      'repeatInterval: expected a duration like 30m or 4h, at most 7d, found "4 hours"',
    ]);
  });

  it("refuses a repeat interval past the PagerDuty forwarder's memory of an open incident", () => {
    expect(() => from({ repeatInterval: '8d' })).toThrow(
      'repeatInterval: expected a duration like 30m or 4h, at most 7d, found "8d"',
    );
    expect(from({ repeatInterval: '7d' }).repeatInterval).toBe('7d');
  });

  it('refuses a timeout longer than the schedule, which would let runs queue up', () => {
    expect(() => from({ timeoutSeconds: '61' })).toThrow(
      'timeoutSeconds: 61 s is longer than the 1-minute schedule; runs would queue up',
    );
  });
});
