import {
  AutoScalingClient,
  DescribeAutoScalingGroupsCommand,
  paginateDescribeAutoScalingGroups,
} from '@aws-sdk/client-auto-scaling';
import { EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAutoScalingDiscovery } from '../../src/adapters/autoScalingDiscovery.ts';
import type { QueryStandIn } from '../support/awsQuery.ts';
import { startFakeAutoScaling } from '../support/fakeAutoScaling.ts';
import { startFakeEc2 } from '../support/fakeEc2.ts';
import { FakeFleet } from '../support/fakeFleet.ts';

const FAST = { baseMs: 20, capMs: 80, random: () => 0.5 };
const CLIENT = { region: 'eu-west-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' } };

let fleet: FakeFleet;
let ec2: QueryStandIn;
let autoScaling: QueryStandIn;
let asgClient: AutoScalingClient;
let ec2Client: EC2Client;

beforeAll(async () => {
  fleet = new FakeFleet();
  [ec2, autoScaling] = await Promise.all([startFakeEc2(fleet), startFakeAutoScaling(fleet)]);
  asgClient = new AutoScalingClient({ ...CLIENT, endpoint: autoScaling.endpoint });
  ec2Client = new EC2Client({ ...CLIENT, endpoint: ec2.endpoint });
});
afterAll(() => Promise.all([ec2.stop(), autoScaling.stop()]));
beforeEach(() => {
  fleet.clear();
  ec2.reset();
  autoScaling.reset();
});

describe('the Auto Scaling stand-in through the real AutoScalingClient', () => {
  it('sends the query protocol and answers every field the adapter reads', async () => {
    const web = fleet.launch({ group: 'web', availabilityZone: 'eu-west-1c' });
    fleet.group('web').members.push({ id: 'i-pending', lifecycle: 'Pending' });
    const answer = await asgClient.send(
      new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: ['web', 'gone'] }),
    );
    expect(autoScaling.requests.map(String)).toEqual([
      'Action=DescribeAutoScalingGroups&Version=2011-01-01&AutoScalingGroupNames.member.1=web&AutoScalingGroupNames.member.2=gone',
    ]);
    expect(answer.AutoScalingGroups?.map((g) => g.AutoScalingGroupName)).toEqual(['web']);
    expect(answer.AutoScalingGroups?.[0]?.Instances).toEqual([
      expect.objectContaining({
        InstanceId: web.id,
        AvailabilityZone: 'eu-west-1c',
        LifecycleState: 'InService',
        HealthStatus: 'Healthy',
      }),
      expect.objectContaining({ InstanceId: 'i-pending', LifecycleState: 'Pending' }),
    ]);
  });

  it('pages with NextToken across pages of MaxRecords', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) fleet.group(name);
    const names: string[][] = [];
    for await (const page of paginateDescribeAutoScalingGroups({ client: asgClient, pageSize: 2 }, {}))
      names.push(page.AutoScalingGroups?.map((g) => g.AutoScalingGroupName ?? '') ?? []);
    expect(names).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('throttles as Auto Scaling does: Throttling, HTTP 400, retried by the SDK; denies as AccessDenied, 403', async () => {
    autoScaling.throttleNext(1);
    expect((await asgClient.send(new DescribeAutoScalingGroupsCommand({}))).$metadata.attempts).toBe(2);
    autoScaling.denyAccess(true);
    const thrown = (await asgClient.send(new DescribeAutoScalingGroupsCommand({})).catch((e: unknown) => e)) as {
      name: string;
      $metadata: { httpStatusCode: number };
    };
    expect([thrown.name, thrown.$metadata.httpStatusCode]).toEqual(['AccessDenied', 403]);
    autoScaling.denyAccess(false);
    autoScaling.throttleNext(3);
    const throttled = (await asgClient.send(new DescribeAutoScalingGroupsCommand({})).catch((e: unknown) => e)) as {
      name: string;
      $metadata: { httpStatusCode: number };
    };
    expect([throttled.name, throttled.$metadata.httpStatusCode]).toEqual(['Throttling', 400]);
  });
});

describe('createAutoScalingDiscovery', () => {
  const query = { source: 'autoscaling' as const, groups: ['web', 'api'] };

  it('lists the InService instances of the groups with their EC2 fields, skipping what EC2 does not show yet', async () => {
    const a = fleet.launch({ group: 'web', tags: { Name: 'web' } });
    const b = fleet.launch({ group: 'api', availabilityZone: 'eu-west-1b' });
    const leaving = fleet.launch({ group: 'web' });
    (fleet.group('web').members.find((m) => m.id === leaving.id) as { lifecycle: string }).lifecycle = 'Terminating';
    fleet.launch({ group: 'other' });
    fleet.group('web').members.push({ id: 'i-0000000000000abcd', lifecycle: 'InService' });
    const outcome = await createAutoScalingDiscovery(asgClient, ec2Client, FAST).list(query, { budgetMs: 5000 });
    if (!outcome.ok) throw outcome.error;
    expect(outcome.listing.instances.map((i) => [i.instanceId, i.privateIp, i.availabilityZone, i.tags.Name])).toEqual([
      [a.id, '127.0.0.2', 'eu-west-1a', 'web'],
      [b.id, '127.0.0.3', 'eu-west-1b', undefined],
    ]);
    expect(outcome.listing.skipped).toEqual([
      {
        instance: 'i-0000000000000abcd',
        reason: 'InService in its group but not a running instance in DescribeInstances (not visible yet)',
      },
    ]);
    expect(ec2.requests.map(String)).toEqual([
      'Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=tag%3Aaws%3Aautoscaling%3AgroupName&Filter.1.Value.1=web&Filter.1.Value.2=api&Filter.2.Name=instance-state-name&Filter.2.Value.1=running&MaxResults=1000',
    ]);
    expect(outcome.listing.calls).toBe(2);
  });

  it('an empty group is a successful empty listing', async () => {
    fleet.group('web');
    fleet.group('api');
    const outcome = await createAutoScalingDiscovery(asgClient, ec2Client, FAST).list(query, { budgetMs: 5000 });
    expect(outcome).toEqual({ ok: true, listing: { instances: [], skipped: [], calls: 1, throttledRetries: 0 } });
  });

  it.each<[string, () => void, string, string]>([
    [
      'a group that does not exist',
      () => fleet.group('web'),
      'not-found',
      'DescribeAutoScalingGroups: expected the groups web, api, found no group api',
    ],
    [
      'access denied',
      () => autoScaling.denyAccess(true),
      'access-denied',
      'DescribeAutoScalingGroups: AccessDenied: User: arn:aws:sts::123456789012:assumed-role/monitor/fn is not authorized to perform: autoscaling:DescribeAutoScalingGroups because no identity-based policy allows the autoscaling:DescribeAutoScalingGroups action',
    ],
    [
      'EC2 denied after the groups were listed',
      () => {
        fleet.launch({ group: 'web' });
        fleet.group('api');
        ec2.denyAccess(true);
      },
      'access-denied',
      'DescribeInstances: UnauthorizedOperation: User: arn:aws:sts::123456789012:assumed-role/monitor/fn is not authorized to perform: ec2:DescribeInstances because no identity-based policy allows the ec2:DescribeInstances action',
    ],
  ])('fails whole for %s', async (_, arrange, why, detail) => {
    arrange();
    const outcome = await createAutoScalingDiscovery(asgClient, ec2Client, FAST).list(query, { budgetMs: 5000 });
    if (outcome.ok) throw new Error('expected a failed listing');
    expect([outcome.error.source, outcome.error.why, outcome.error.detail]).toEqual(['autoscaling', why, detail]);
  });
});
