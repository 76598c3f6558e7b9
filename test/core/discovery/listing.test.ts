import { describe, expect, it } from 'vitest';
import { readDiscoveryDocument } from '../../../src/core/discovery/document.ts';
import { diffTargets, joinTargets } from '../../../src/core/discovery/join.ts';
import { type DiscoveredTarget, renderListing } from '../../../src/core/discovery/listing.ts';
import type { DiscoveredInstance } from '../../../src/core/discovery/template.ts';
import type { ConfigProblem, TargetConfig } from '../../../src/core/monitorConfig.ts';

const SCOPE = { prefix: '/p', sharedSecretParameters: [] };

function documentOf(json: unknown, parameter = '/p/discovery/web') {
  const problems: ConfigProblem[] = [];
  const document = readDiscoveryDocument(parameter, JSON.stringify(json), problems, SCOPE);
  expect(problems).toEqual([]);
  if (document === null) throw new Error('unreachable: no problems and no document');
  return document;
}

const WEB = documentOf({
  source: 'elbv2',
  targetGroups: ['arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/web/0123456789abcdef'],
  url: 'http://{{privateIp}}:{{port}}/server-status?auto',
  name: '{{tag:Name}}-{{instanceId}}',
  labels: { az: '{{availabilityZone}}' },
  authParameter: '/p/secrets/web',
  timeoutMs: 4000,
});

const instance = (n: number, extra: Partial<DiscoveredInstance> = {}): DiscoveredInstance => ({
  instanceId: `i-${n}`,
  privateIp: `10.0.0.${n}`,
  availabilityZone: 'eu-west-1a',
  port: 8080,
  tags: { Name: 'web' },
  ...extra,
});

const target = (n: number): TargetConfig => ({
  name: `web-i-${n}`,
  url: `http://10.0.0.${n}:8080/server-status?auto`,
  labels: { az: 'eu-west-1a', discovery: '/p/discovery/web' },
  authParameter: '/p/secrets/web',
  timeoutMs: 4000,
  origin: '/p/discovery/web',
});

describe('renderListing', () => {
  it.each<[string, DiscoveredInstance[], string[], Array<{ instance: string; reason: string }>]>([
    ['instances rendered in order', [instance(2), instance(1)], ['web-i-2', 'web-i-1'], []],
    ['an instance listed twice (two target groups) is one target', [instance(1), instance(1)], ['web-i-1'], []],
    [
      'an instance without the Name tag is skipped',
      [instance(1), instance(2, { tags: {} })],
      ['web-i-1'],
      [{ instance: 'i-2', reason: 'has no {{tag:Name}} (name)' }],
    ],
    [
      'an IP target has no instance id',
      [{ privateIp: '10.0.1.5', port: 8080, tags: {} }],
      [],
      [{ instance: '10.0.1.5', reason: 'has no {{tag:Name}} (name)' }],
    ],
    [
      'an instance without a zone is skipped for its label',
      [instance(1, { availabilityZone: undefined })],
      [],
      [{ instance: 'i-1', reason: 'has no {{availabilityZone}} (labels.az)' }],
    ],
    [
      'a tag that makes an invalid name',
      [instance(1, { tags: { Name: 'web server' } })],
      [],
      [
        {
          instance: 'i-1',
          reason: 'name: expected a target name of letters, digits, _ . - (at most 63), found "web server-i-1"',
        },
      ],
    ],
  ])('%s', (_, instances, names, skipped) => {
    const listed = renderListing(WEB, instances);
    expect(listed.targets.map((t) => t.target.name)).toEqual(names);
    expect(listed.skipped).toEqual(skipped);
  });

  it('renders every field of a target, as a target parameter would be read', () => {
    expect(renderListing(WEB, [instance(3)]).targets).toEqual([
      { parameter: '/p/discovery/web', instance: 'i-3', target: target(3) },
    ]);
  });

  it('names an IP target after its address with the default name, with a hint', () => {
    const ips = documentOf({
      source: 'elbv2',
      targetGroups: WEB.query.source === 'elbv2' ? WEB.query.targetGroups : [],
      url: 'http://{{privateIp}}/',
    });
    expect(renderListing(ips, [{ privateIp: '10.0.1.5', tags: {} }]).skipped).toEqual([
      { instance: '10.0.1.5', reason: 'has no {{instanceId}} (name) (an IP target: name it after {{privateIp}})' },
    ]);
  });

  it('skips a rendered URL the target validation refuses', () => {
    const byTag = documentOf({
      source: 'ec2',
      filters: { 'tag:Role': ['web'] },
      url: 'http://{{tag:StatusHost}}/server-status',
    });
    expect(renderListing(byTag, [instance(1, { tags: { StatusHost: 'u:p@web-1' } })]).skipped).toEqual([
      {
        instance: 'i-1',
        reason:
          'url: expected a URL without credentials (put "user:password" in a SecureString named by authParameter), found "http://u:***@web-1/server-status"',
      },
    ]);
  });
});

const discovered = (parameter: string, n: number, name = `web-i-${n}`): DiscoveredTarget => ({
  parameter,
  instance: `i-${n}`,
  target: { ...target(n), name },
});

describe('joinTargets', () => {
  it.each<[string, TargetConfig[], DiscoveredTarget[], string[], ConfigProblem[]]>([
    [
      'no collision',
      [{ name: 'db', url: 'http://db/', labels: {} }],
      [discovered('/p/discovery/web', 1)],
      ['db', 'web-i-1'],
      [],
    ],
    [
      'a configured target keeps its name',
      [{ name: 'web-i-1', url: 'http://old/', labels: {} }],
      [discovered('/p/discovery/web', 1)],
      ['web-i-1'],
      [
        {
          parameter: '/p/discovery/web',
          field: 'name',
          message:
            'expected a unique target name, found "web-i-1" again for instance i-1 (also the configured target web-i-1)',
        },
      ],
    ],
    [
      'two documents rendering one name: the first parameter keeps it',
      [],
      [discovered('/p/discovery/zeta', 2, 'web'), discovered('/p/discovery/alpha', 1, 'web')],
      ['web'],
      [
        {
          parameter: '/p/discovery/zeta',
          field: 'name',
          message:
            'expected a unique target name, found "web" again for instance i-2 (also instance i-1 of /p/discovery/alpha)',
        },
      ],
    ],
  ])('%s', (_, configured, found, names, problems) => {
    const joined = joinTargets(configured, found);
    expect(joined.targets.map((t) => t.name)).toEqual(names);
    expect(joined.problems).toEqual(problems);
  });

  it('keeps where each discovered target came from', () => {
    const joined = joinTargets([], [discovered('/p/discovery/web', 1)]);
    expect(joined.origins.get('web-i-1')?.parameter).toBe('/p/discovery/web');
  });
});

describe('diffTargets', () => {
  it.each([
    ['nothing changed', [target(1)], [target(1)], { appeared: [], left: [], changed: [] }],
    [
      'a launch and a scale-in',
      [target(1), target(2)],
      [target(2), target(3)],
      { appeared: ['web-i-3'], left: ['web-i-1'], changed: [] },
    ],
    [
      'a new address under the same name',
      [target(1)],
      [{ ...target(1), url: 'http://10.9.9.9/' }],
      { appeared: [], left: [], changed: ['web-i-1'] },
    ],
    ['everything left', [target(2), target(1)], [], { appeared: [], left: ['web-i-1', 'web-i-2'], changed: [] }],
  ])('%s', (_, before, after, diff) => {
    expect(diffTargets(before, after)).toEqual(diff);
  });
});
