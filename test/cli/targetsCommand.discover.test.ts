/**
 * `targets discover` against the stand-ins: the discovery documents read from the fake SSM, each
 * listed through the real EC2, Auto Scaling and ELBv2 clients (`AWS_ENDPOINT_URL_*`) answered by
 * the query-protocol stand-ins over one fake fleet.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { QueryStandIn } from '../support/awsQuery.ts';
import { startFakeAutoScaling } from '../support/fakeAutoScaling.ts';
import { startFakeEc2 } from '../support/fakeEc2.ts';
import { startFakeElbv2 } from '../support/fakeElbv2.ts';
import { FakeFleet } from '../support/fakeFleet.ts';
import { type FakeSsm, startFakeSsm } from '../support/fakeSsm.ts';
import { runCli } from './fakeIo.ts';

const PREFIX = '/hsa-discover';
const URL = 'http://{{privateIp}}/server-status?auto';
const WEB = JSON.stringify({
  source: 'ec2',
  filters: { 'tag:Role': ['web'] },
  url: URL,
  name: '{{tag:Name}}',
  labels: { az: '{{availabilityZone}}' },
});
const ASG = JSON.stringify({ source: 'autoscaling', groups: ['web-asg'], url: URL, name: 'asg-{{instanceId}}' });
const I1 = 'i-00000000000000001';
const I2 = 'i-00000000000000002';

let fleet: FakeFleet;
let ssm: FakeSsm;
let services: QueryStandIn[];

beforeAll(async () => {
  fleet = new FakeFleet();
  ssm = await startFakeSsm();
  const [ec2, autoScaling, elb] = await Promise.all([
    startFakeEc2(fleet),
    startFakeAutoScaling(fleet),
    startFakeElbv2(fleet),
  ]);
  services = [ec2, autoScaling, elb];
  vi.stubEnv('AWS_ENDPOINT_URL_SSM', ssm.endpoint);
  vi.stubEnv('AWS_ENDPOINT_URL_EC2', ec2.endpoint);
  vi.stubEnv('AWS_ENDPOINT_URL_AUTO_SCALING', autoScaling.endpoint);
  vi.stubEnv('AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING_V2', elb.endpoint);
  vi.stubEnv('SSM_PREFIX', PREFIX);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await Promise.all([ssm.stop(), ...services.map((s) => s.stop())]);
});
beforeEach(() => {
  fleet.clear();
  for (const s of services) s.reset();
  for (const name of [...ssm.parameters.keys()]) (ssm.parameters as Map<string, unknown>).delete(name);
});

interface Case {
  /** The fleet and the parameters before the command. */
  given(): void;
  args?: string[];
  code: number;
  /** A pattern where the output holds timings (calls made before a budget ran out). */
  out: string | RegExp;
  err: string;
}

const CASES: Record<string, Case> = {
  'an ec2 document: the running web instances, name, URL and labels; one without the Name tag skipped': {
    given() {
      fleet.launch({ tags: { Role: 'web', Name: 'web-a' }, availabilityZone: 'eu-west-1b' });
      fleet.launch({ tags: { Role: 'web' } });
      fleet.launch({ tags: { Role: 'web', Name: 'web-c' }, state: 'stopped' });
      fleet.launch({ tags: { Role: 'db', Name: 'db-d' } });
      ssm.put(`${PREFIX}/discovery/web`, WEB);
    },
    code: 0,
    out: [
      'web (/hsa-discover/discovery/web, source ec2): 1 target(s), 1 call(s)',
      '  web-a  http://127.0.0.2/server-status?auto  labels az=eu-west-1b,discovery=/hsa-discover/discovery/web',
      `  skipped ${I2}: has no {{tag:Name}} (name)`,
      '',
    ].join('\n'),
    err: '',
  },
  'an autoscaling document: the InService instances of its group': {
    given() {
      fleet.launch({ group: 'web-asg' });
      fleet.launch({ group: 'web-asg' });
      fleet.group('web-asg').members[1] = { id: I2, lifecycle: 'Terminating' };
      fleet.launch({ group: 'other-asg' });
      ssm.put(`${PREFIX}/discovery/asg`, ASG);
    },
    code: 0,
    out: [
      'asg (/hsa-discover/discovery/asg, source autoscaling): 1 target(s), 2 call(s)',
      `  asg-${I1}  http://127.0.0.2/server-status?auto  labels discovery=/hsa-discover/discovery/asg`,
      '',
    ].join('\n'),
    err: '',
  },
  'an elbv2 document: targets not draining, on the group port': {
    given() {
      const a = fleet.launch();
      const b = fleet.launch();
      const group = fleet.targetGroup('web-tg', 8080);
      group.targets.push({ id: a.id, port: 8080, state: 'healthy' }, { id: b.id, port: 8080, state: 'draining' });
      ssm.put(
        `${PREFIX}/discovery/lb`,
        JSON.stringify({
          source: 'elbv2',
          targetGroups: [group.arn],
          url: 'http://{{privateIp}}:{{port}}/server-status?auto',
        }),
      );
    },
    code: 0,
    out: [
      'lb (/hsa-discover/discovery/lb, source elbv2): 1 target(s), 3 call(s)',
      `  ${I1}  http://127.0.0.2:8080/server-status?auto  labels discovery=/hsa-discover/discovery/lb`,
      '',
    ].join('\n'),
    err: '',
  },
  'a name a configured target holds, and one two documents render: left out as the Lambda leaves them': {
    given() {
      fleet.launch({ tags: { Role: 'web', Name: 'web-a' } });
      fleet.launch({ tags: { Role: 'web', Name: 'web-b' } });
      ssm.put(`${PREFIX}/targets/web-a`, '{"url":"http://web-a.internal/server-status?auto"}');
      ssm.put(`${PREFIX}/discovery/web`, WEB);
      ssm.put(`${PREFIX}/discovery/web2`, WEB);
    },
    code: 0,
    out: [
      'web (/hsa-discover/discovery/web, source ec2): 1 target(s), 1 call(s)',
      '  web-b  http://127.0.0.3/server-status?auto  labels az=eu-west-1a,discovery=/hsa-discover/discovery/web',
      `  left out: expected a unique target name, found "web-a" again for instance ${I1} (also the configured target web-a)`,
      'web2 (/hsa-discover/discovery/web2, source ec2): 0 target(s), 1 call(s)',
      `  left out: expected a unique target name, found "web-a" again for instance ${I1} (also the configured target web-a)`,
      `  left out: expected a unique target name, found "web-b" again for instance ${I2} (also instance ${I2} of /hsa-discover/discovery/web)`,
      '',
    ].join('\n'),
    err: '',
  },
  'a source that denies access: which source and why, exit 1; the other document still listed': {
    given() {
      fleet.launch({ tags: { Role: 'web', Name: 'web-a' }, group: 'web-asg' });
      services[1]?.denyAccess(true);
      ssm.put(`${PREFIX}/discovery/web`, WEB);
      ssm.put(`${PREFIX}/discovery/asg`, ASG);
    },
    code: 1,
    out: [
      'asg (/hsa-discover/discovery/asg, source autoscaling): FAILING, autoscaling access-denied: DescribeAutoScalingGroups: AccessDenied: User: arn:aws:sts::123456789012:assumed-role/monitor/fn is not authorized to perform: autoscaling:DescribeAutoScalingGroups because no identity-based policy allows the autoscaling:DescribeAutoScalingGroups action',
      'web (/hsa-discover/discovery/web, source ec2): 1 target(s), 1 call(s)',
      '  web-a  http://127.0.0.2/server-status?auto  labels az=eu-west-1a,discovery=/hsa-discover/discovery/web',
      '',
    ].join('\n'),
    err: 'targets discover: 1 listing(s) failed under /hsa-discover/discovery\n',
  },
  'a source throttled past the --timeout budget: throttled, with the calls it made, exit 1': {
    given() {
      fleet.launch({ group: 'web-asg' });
      services[1]?.throttleNext(1_000_000);
      ssm.put(`${PREFIX}/discovery/asg`, ASG);
    },
    args: ['--timeout', '4s'],
    code: 1,
    out: /^asg \(\/hsa-discover\/discovery\/asg, source autoscaling\): FAILING, autoscaling throttled: DescribeAutoScalingGroups: Throttling: Rate exceeded; still throttled when the 4000 ms budget ran out \(\d+ calls, \d+ waits after the SDK's retries\)\n$/,
    err: 'targets discover: 1 listing(s) failed under /hsa-discover/discovery\n',
  },
  'a group that does not exist: not-found, exit 1': {
    given() {
      ssm.put(`${PREFIX}/discovery/asg`, ASG);
    },
    code: 1,
    out: 'asg (/hsa-discover/discovery/asg, source autoscaling): FAILING, autoscaling not-found: DescribeAutoScalingGroups: expected the groups web-asg, found no group web-asg\n',
    err: 'targets discover: 1 listing(s) failed under /hsa-discover/discovery\n',
  },
  "an invalid document: the Lambda's problems, exit 1": {
    given() {
      ssm.put(
        `${PREFIX}/discovery/bad`,
        JSON.stringify({ source: 'ec2', filters: { 'tag:Role': ['web'] }, url: 'http://{{privateIP}}/' }),
      );
    },
    code: 1,
    out: 'bad (/hsa-discover/discovery/bad): INVALID, the Lambda rejects it: field url: expected a field privateIp, privateDns, publicIp, instanceId, availabilityZone, port, tag:<Key>, found "{{privateIP}}" (did you mean privateIp or privateDns?)\n',
    err: 'targets discover: 1 invalid document(s) under /hsa-discover/discovery\n',
  },
  'no documents: said so, exit 0': {
    given() {},
    code: 0,
    out: 'no discovery documents under /hsa-discover/discovery\n',
    err: '',
  },
  '--json: one object, documents by parameter': {
    given() {
      fleet.launch({ tags: { Role: 'web', Name: 'web-a' } });
      ssm.put(`${PREFIX}/discovery/web`, WEB);
      ssm.put(`${PREFIX}/discovery/asg`, ASG);
    },
    args: ['--json'],
    code: 1,
    out: `${JSON.stringify({
      prefix: PREFIX,
      documents: [
        {
          parameter: `${PREFIX}/discovery/asg`,
          name: 'asg',
          source: 'autoscaling',
          status: 'failing',
          failure: {
            source: 'autoscaling',
            why: 'not-found',
            detail: 'DescribeAutoScalingGroups: expected the groups web-asg, found no group web-asg',
          },
        },
        {
          parameter: `${PREFIX}/discovery/web`,
          name: 'web',
          source: 'ec2',
          status: 'listed',
          targets: [
            {
              name: 'web-a',
              url: 'http://127.0.0.2/server-status?auto',
              labels: { az: 'eu-west-1a', discovery: `${PREFIX}/discovery/web` },
            },
          ],
          skipped: [],
          collisions: [],
          calls: 1,
        },
      ],
    })}\n`,
    err: 'targets discover: 1 listing(s) failed under /hsa-discover/discovery\n',
  },
};

describe('cli targets discover (fake SSM, EC2, Auto Scaling and ELBv2 over HTTP)', () => {
  it.each(Object.entries(CASES))('%s', async (_, c) => {
    // Prepare
    c.given();
    // Act
    const result = await runCli(['targets', 'discover', ...(c.args ?? [])], { now: '2026-11-28T12:00:00Z' });
    // Assess
    expect(result).toEqual({
      code: c.code,
      out: typeof c.out === 'string' ? c.out : expect.stringMatching(c.out),
      err: c.err,
    });
  });
});
