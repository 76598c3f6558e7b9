import { describe, expect, it } from 'vitest';
import { readDiscoveryDocument } from '../../../src/core/discovery/document.ts';
import type { ConfigProblem } from '../../../src/core/monitorConfig.ts';

const PARAMETER = '/p/discovery/web';
const SCOPE = { prefix: '/p', sharedSecretParameters: ['/p/secrets/fleet-status'] };
const FIELDS =
  'source, filters, groups, targetGroups, url, name, labels, allowPublic, refreshSeconds, authParameter, caBundleParameter, timeoutMs, maxBytes, maxRequestWorkers, allowLoopback';
const EC2 = { source: 'ec2', filters: { 'tag:Role': ['web'] }, url: 'http://{{privateIp}}/server-status?auto' };
const ARN = 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/web/0123456789abcdef';

function read(document: unknown, parameter = PARAMETER) {
  const problems: ConfigProblem[] = [];
  const text = typeof document === 'string' ? document : JSON.stringify(document);
  return { document: readDiscoveryDocument(parameter, text, problems, SCOPE), problems };
}

const at = (field: string | null, message: string): ConfigProblem => ({ parameter: PARAMETER, field, message });

describe('readDiscoveryDocument', () => {
  it('reads the contract example, defaults filled', () => {
    const { document, problems } = read({
      ...EC2,
      name: '{{tag:Name}}-{{instanceId}}',
      labels: { team: '{{tag:Team}}', az: '{{availabilityZone}}' },
      authParameter: '/p/secrets/web',
      timeoutMs: 5000,
      maxRequestWorkers: 150,
    });
    expect(problems).toEqual([]);
    expect(document?.query).toEqual({ source: 'ec2', filters: { 'tag:Role': ['web'] } });
    expect(document?.refreshSeconds).toBe(60);
    expect(document?.name).toBe('web');
    expect(document?.targetName.text).toBe('{{tag:Name}}-{{instanceId}}');
    expect(Object.keys(document?.labels ?? {})).toEqual(['team', 'az']);
    expect(document?.shared).toEqual({ authParameter: '/p/secrets/web', timeoutMs: 5000, maxRequestWorkers: 150 });
    // The document's own secret is shared by every target it lists.
    expect(document?.scope).toEqual({
      prefix: '/p',
      sharedSecretParameters: ['/p/secrets/fleet-status', '/p/secrets/web'],
    });
  });

  it.each([
    [
      'autoscaling',
      { source: 'autoscaling', groups: ['web-a', 'web-b'], url: EC2.url },
      { source: 'autoscaling', groups: ['web-a', 'web-b'] },
    ],
    [
      'elbv2 with its port',
      { source: 'elbv2', targetGroups: [ARN], url: 'http://{{privateIp}}:{{port}}/server-status' },
      { source: 'elbv2', targetGroups: [ARN] },
    ],
  ])('reads a source %s', (_, json, query) => {
    const { document, problems } = read(json);
    expect(problems).toEqual([]);
    expect(document?.query).toEqual(query);
  });

  it.each<[string, unknown, ConfigProblem[]]>([
    [
      'not JSON',
      'source=ec2',
      [at(null, 'expected JSON, found "source=ec2" (Unexpected token \'s\', "source=ec2" is not valid JSON)')],
    ],
    ['not an object', [EC2], [at(null, `expected a JSON object, found ${JSON.stringify([EC2]).slice(0, 57)}...`)]],
    [
      'a mistyped field',
      { ...EC2, refresh: 60 },
      [at('refresh', `expected one of the fields ${FIELDS}, found "refresh" (did you mean refreshSeconds?)`)],
    ],
    [
      'an unknown source',
      { ...EC2, source: 'ecs' },
      [at('source', 'expected one of ec2, autoscaling, elbv2, found "ecs"')],
    ],
    [
      'no url',
      { source: 'ec2', filters: EC2.filters },
      [at('url', 'expected a string, found nothing (the field is required)')],
    ],
    [
      'a source without its field',
      { source: 'autoscaling', url: EC2.url },
      [at('groups', 'expected Auto Scaling group names (source autoscaling), found nothing (the field is required)')],
    ],
    [
      "another source's field",
      { ...EC2, targetGroups: [ARN] },
      [at('targetGroups', 'expected targetGroups only with source elbv2, found it with source ec2')],
    ],
    [
      'the state filter',
      { ...EC2, filters: { 'instance-state-name': ['stopped'] } },
      [
        at(
          'filters.instance-state-name',
          'expected no instance-state-name filter (only running instances are targets, the monitor adds it), found ["stopped"]',
        ),
      ],
    ],
    [
      'a target group that is not an ARN',
      { source: 'elbv2', targetGroups: ['web-tg'], url: EC2.url },
      [at('targetGroups.0', 'expected a target group ARN, found "web-tg"')],
    ],
    [
      'a refresh too often',
      { ...EC2, refreshSeconds: 10 },
      [at('refreshSeconds', 'Too small: expected number to be >=30, found 10')],
    ],
    [
      'a template problem in each template',
      { ...EC2, url: 'http://{{privateIP}}/', name: '{{instanceId', labels: { zone: '{{az}}' } },
      [
        at(
          'url',
          'expected a field privateIp, privateDns, publicIp, instanceId, availabilityZone, port, tag:<Key>, found "{{privateIP}}" (did you mean privateIp or privateDns?)',
        ),
        at('name', 'expected "}}" to close the "{{" at character 1, found the end of the template "{{instanceId"'),
        at(
          'labels.zone',
          'expected a field privateIp, privateDns, publicIp, instanceId, availabilityZone, port, tag:<Key>, found "{{az}}"',
        ),
      ],
    ],
    [
      'credentials in the URL, refused by the target validation',
      { ...EC2, url: 'http://admin:secret@{{privateIp}}/server-status' },
      [
        at(
          'url',
          'expected a URL without credentials (put "user:password" in a SecureString named by authParameter), found "http://admin:***@10.0.0.1/server-status" (rendered for an example instance)',
        ),
      ],
    ],
    [
      'a URL that is not http',
      { ...EC2, url: 'ftp://{{privateIp}}/' },
      [at('url', 'expected an http:// or https:// URL, found "ftp://10.0.0.1/" (rendered for an example instance)')],
    ],
    [
      'a name template that cannot be a target name',
      { ...EC2, name: 'web server {{instanceId}}' },
      [
        at(
          'name',
          'expected a target name of letters, digits, _ . - (at most 63), found "web server i-0123456789abcdef0" (rendered for an example instance)',
        ),
      ],
    ],
    [
      "another target's secret",
      { ...EC2, authParameter: '/p/secrets/db' },
      [
        at(
          'authParameter',
          'expected /p/secrets/web or a parameter below it, or a shared secret (sharedSecretParameters: /p/secrets/fleet-status), found "/p/secrets/db"',
        ),
      ],
    ],
    [
      'a shared field of the wrong type',
      { ...EC2, timeoutMs: '5s' },
      [at('timeoutMs', 'expected a number, found "5s"')],
    ],
    [
      'problems of every kind at once',
      { source: 'ec2', url: 'http://{{publicIp}}/', timeoutMs: 5, color: 'red' },
      [
        at('color', `expected one of the fields ${FIELDS}, found "color"`),
        at('filters', 'expected DescribeInstances filters (source ec2), found nothing (the field is required)'),
        at(
          'url',
          'expected allowPublic: true beside {{publicIp}} (a public address is reached across the internet), found no allowPublic',
        ),
        at('timeoutMs', 'Too small: expected number to be >=100, found 5'),
      ],
    ],
  ])('names %s', (_, json, problems) => {
    const result = read(json);
    expect(result.problems).toEqual(problems);
    expect(result.document).toBeNull();
  });

  it('refuses a discovery name that is not a target name', () => {
    expect(read(EC2, '/p/discovery/web fleet').problems).toEqual([
      {
        parameter: '/p/discovery/web fleet',
        field: null,
        message: 'expected a discovery name of letters, digits, _ . -, found "web fleet"',
      },
    ]);
  });
});
