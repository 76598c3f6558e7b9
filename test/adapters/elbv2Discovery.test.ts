import { EC2Client } from '@aws-sdk/client-ec2';
import {
  DescribeTargetHealthCommand,
  ElasticLoadBalancingV2Client,
  paginateDescribeTargetGroups,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createElbv2Discovery } from '../../src/adapters/elbv2Discovery.ts';
import type { QueryStandIn } from '../support/awsQuery.ts';
import { startFakeEc2 } from '../support/fakeEc2.ts';
import { startFakeElbv2 } from '../support/fakeElbv2.ts';
import { FakeFleet } from '../support/fakeFleet.ts';

const FAST = { baseMs: 20, capMs: 80, random: () => 0.5 };
const CLIENT = { region: 'eu-west-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' } };

let fleet: FakeFleet;
let ec2: QueryStandIn;
let elb: QueryStandIn;
let elbClient: ElasticLoadBalancingV2Client;
let ec2Client: EC2Client;

beforeAll(async () => {
  fleet = new FakeFleet();
  [ec2, elb] = await Promise.all([startFakeEc2(fleet), startFakeElbv2(fleet)]);
  elbClient = new ElasticLoadBalancingV2Client({ ...CLIENT, endpoint: elb.endpoint });
  ec2Client = new EC2Client({ ...CLIENT, endpoint: ec2.endpoint });
});
afterAll(() => Promise.all([ec2.stop(), elb.stop()]));
beforeEach(() => {
  fleet.clear();
  ec2.reset();
  elb.reset();
});

describe('the ELBv2 stand-in through the real ElasticLoadBalancingV2Client', () => {
  it('answers every field the adapter reads', async () => {
    const group = fleet.targetGroup('web', 8080, 'ip');
    group.targets.push(
      { id: '10.0.1.5', port: 8080, state: 'healthy', availabilityZone: 'eu-west-1b' },
      { id: '10.0.1.6', port: 8080, state: 'draining', availabilityZone: 'eu-west-1a' },
    );
    const answer = await elbClient.send(new DescribeTargetHealthCommand({ TargetGroupArn: group.arn }));
    expect(elb.requests.map(String)).toEqual([
      `Action=DescribeTargetHealth&Version=2015-12-01&TargetGroupArn=${encodeURIComponent(group.arn)}`,
    ]);
    expect(answer.TargetHealthDescriptions).toEqual([
      {
        Target: { Id: '10.0.1.5', Port: 8080, AvailabilityZone: 'eu-west-1b' },
        HealthCheckPort: '8080',
        TargetHealth: { State: 'healthy' },
      },
      {
        Target: { Id: '10.0.1.6', Port: 8080, AvailabilityZone: 'eu-west-1a' },
        HealthCheckPort: '8080',
        TargetHealth: {
          State: 'draining',
          Reason: 'Target.DeregistrationInProgress',
          Description: 'Target deregistration is in progress',
        },
      },
    ]);
  });

  it('pages target groups with Marker and NextMarker', async () => {
    for (const name of ['a', 'b', 'c']) fleet.targetGroup(name, 80);
    const pages: Array<Array<[string | undefined, number | undefined, string | undefined]>> = [];
    for await (const page of paginateDescribeTargetGroups({ client: elbClient }, { PageSize: 2 }))
      pages.push(page.TargetGroups?.map((g) => [g.TargetGroupName, g.Port, g.TargetType]) ?? []);
    expect(pages).toEqual([
      [
        ['a', 80, 'instance'],
        ['b', 80, 'instance'],
      ],
      [['c', 80, 'instance']],
    ]);
    expect(elb.requests.map((r) => r.has('Marker'))).toEqual([false, true]);
  });

  it('names an unknown target group as ELBv2 does, and throttles as it does (Throttling, HTTP 400)', async () => {
    const missing = await elbClient
      .send(
        new DescribeTargetHealthCommand({
          TargetGroupArn: 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/x/1',
        }),
      )
      .catch((e: Error) => e);
    expect([(missing as Error).name, (missing as Error).message]).toEqual([
      'TargetGroupNotFoundException',
      'One or more target groups not found',
    ]);
    elb.throttleNext(3);
    const group = fleet.targetGroup('web', 80);
    const throttled = (await elbClient
      .send(new DescribeTargetHealthCommand({ TargetGroupArn: group.arn }))
      .catch((e: unknown) => e)) as {
      name: string;
      $metadata: { httpStatusCode: number; attempts: number };
    };
    expect([throttled.name, throttled.$metadata.httpStatusCode, throttled.$metadata.attempts]).toEqual([
      'Throttling',
      400,
      3,
    ]);
  });
});

describe('createElbv2Discovery', () => {
  it('lists serving instance targets with their EC2 fields and the group port, IP targets as addresses', async () => {
    const web = fleet.targetGroup('web', 8080);
    const ips = fleet.targetGroup('ips', 9090, 'ip');
    const a = fleet.launch({ tags: { Name: 'web-a' } });
    const b = fleet.launch({ availabilityZone: 'eu-west-1b' });
    const draining = fleet.launch();
    const unused = fleet.launch();
    web.targets.push(
      { id: a.id, port: 8080, state: 'healthy' },
      { id: b.id, port: 8080, state: 'unhealthy' },
      { id: draining.id, port: 8080, state: 'draining' },
      { id: unused.id, port: 8080, state: 'unused' },
      { id: a.id, port: 8081, state: 'healthy' },
    );
    ips.targets.push({ id: '10.0.1.5', port: 9090, state: 'initial', availabilityZone: 'eu-west-1c' });
    const outcome = await createElbv2Discovery(elbClient, ec2Client, FAST).list(
      { source: 'elbv2', targetGroups: [web.arn, ips.arn] },
      { budgetMs: 5000 },
    );
    if (!outcome.ok) throw outcome.error;
    expect(outcome.listing.instances).toEqual([
      {
        instanceId: a.id,
        privateIp: '127.0.0.2',
        privateDns: 'ip-127-0-0-2.eu-west-1.compute.internal',
        availabilityZone: 'eu-west-1a',
        port: 8080,
        tags: { Name: 'web-a' },
      },
      {
        instanceId: b.id,
        privateIp: '127.0.0.3',
        privateDns: 'ip-127-0-0-3.eu-west-1.compute.internal',
        availabilityZone: 'eu-west-1b',
        port: 8080,
        tags: {},
      },
      { privateIp: '10.0.1.5', availabilityZone: 'eu-west-1c', port: 9090, tags: {} },
    ]);
    expect(outcome.listing.skipped).toEqual([]);
    expect(elb.calls).toEqual({ DescribeTargetGroups: 1, DescribeTargetHealth: 2 });
    expect(elb.requests[0]?.get('PageSize')).toBe('400');
    expect(ec2.requests.map((r) => r.get('Filter.1.Name'))).toEqual(['instance-id']);
  });

  it('skips a Lambda target and an instance that is not running', async () => {
    const lambda = fleet.targetGroup('fn', 0, 'lambda');
    lambda.targets.push({ id: 'arn:aws:lambda:eu-west-1:123456789012:function:f', port: 0, state: 'healthy' });
    const web = fleet.targetGroup('web', 80);
    const stopped = fleet.launch({ state: 'stopped' });
    web.targets.push({ id: stopped.id, port: 80, state: 'unhealthy' });
    const outcome = await createElbv2Discovery(elbClient, ec2Client, FAST).list(
      { source: 'elbv2', targetGroups: [lambda.arn, web.arn] },
      { budgetMs: 5000 },
    );
    if (!outcome.ok) throw outcome.error;
    expect(outcome.listing.instances).toEqual([]);
    expect(outcome.listing.skipped).toEqual([
      {
        instance: 'arn:aws:lambda:eu-west-1:123456789012:function:f',
        reason: 'a lambda target (only instance and ip targets are watched)',
      },
      {
        instance: stopped.id,
        reason: 'not a running instance in DescribeInstances (launching, stopping, or not visible yet)',
      },
    ]);
  });

  it('waits after DescribeTargetHealth is throttled past the SDK retries', async () => {
    const web = fleet.targetGroup('web', 80, 'ip');
    web.targets.push({ id: '10.0.1.5', port: 80, state: 'healthy' });
    elb.throttleNext(3, 1);
    const outcome = await createElbv2Discovery(elbClient, ec2Client, FAST).list(
      { source: 'elbv2', targetGroups: [web.arn] },
      { budgetMs: 10_000 },
    );
    if (!outcome.ok) throw outcome.error;
    expect([outcome.listing.instances.length, outcome.listing.calls, outcome.listing.throttledRetries]).toEqual([
      1, 5, 1,
    ]);
  });

  it('fails whole for a target group that does not exist', async () => {
    const arn = 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/gone/1';
    const outcome = await createElbv2Discovery(elbClient, ec2Client, FAST).list(
      { source: 'elbv2', targetGroups: [arn] },
      { budgetMs: 5000 },
    );
    if (outcome.ok) throw new Error('expected a failed listing');
    expect([outcome.error.why, outcome.error.detail]).toEqual([
      'not-found',
      'DescribeTargetGroups: TargetGroupNotFoundException: One or more target groups not found',
    ]);
  });
});
