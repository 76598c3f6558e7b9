import { DescribeInstancesCommand, EC2Client, paginateDescribeInstances } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEc2Discovery } from '../../src/adapters/ec2Discovery.ts';
import type { ListingOutcome } from '../../src/core/discovery/listing.ts';
import type { QueryStandIn } from '../support/awsQuery.ts';
import { startFakeEc2 } from '../support/fakeEc2.ts';
import { FakeFleet } from '../support/fakeFleet.ts';

/** Waits of 10 to 40 ms after throttling: the test does not wait for production's seconds. */
const FAST = { baseMs: 20, capMs: 80, random: () => 0.5 };
const CLIENT = { region: 'eu-west-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' } };

let fleet: FakeFleet;
let ec2: QueryStandIn;
let client: EC2Client;

beforeAll(async () => {
  fleet = new FakeFleet();
  ec2 = await startFakeEc2(fleet);
  client = new EC2Client({ ...CLIENT, endpoint: ec2.endpoint });
});
afterAll(() => ec2.stop());
beforeEach(() => {
  fleet.clear();
  ec2.reset();
});

const query = { source: 'ec2' as const, filters: { 'tag:Role': ['web'] } };
const okListing = (outcome: ListingOutcome) => {
  if (!outcome.ok) throw outcome.error;
  return outcome.listing;
};

describe('the EC2 stand-in through the real EC2Client', () => {
  it('sends the query protocol and answers every field the adapter reads', async () => {
    const web = fleet.launch({
      tags: { Role: 'web', Name: 'web-1' },
      availabilityZone: 'eu-west-1b',
      publicIp: '203.0.113.7',
    });
    const answer = await client.send(
      new DescribeInstancesCommand({ Filters: [{ Name: 'tag:Role', Values: ['web'] }], MaxResults: 5 }),
    );
    expect(ec2.requests.map(String)).toEqual([
      'Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=tag%3ARole&Filter.1.Value.1=web&MaxResults=5',
    ]);
    const instance = answer.Reservations?.[0]?.Instances?.[0];
    expect(instance).toMatchObject({
      InstanceId: web.id,
      PrivateIpAddress: '127.0.0.2',
      PrivateDnsName: 'ip-127-0-0-2.eu-west-1.compute.internal',
      PublicIpAddress: '203.0.113.7',
      Placement: { AvailabilityZone: 'eu-west-1b' },
      State: { Code: 16, Name: 'running' },
      Tags: [
        { Key: 'Role', Value: 'web' },
        { Key: 'Name', Value: 'web-1' },
      ],
    });
  });

  it('pages with NextToken across pages of MaxResults', async () => {
    for (let i = 0; i < 12; i++) fleet.launch({ tags: { Role: 'web' } });
    const sizes: number[] = [];
    for await (const page of paginateDescribeInstances({ client, pageSize: 5 }, {}))
      sizes.push(page.Reservations?.flatMap((r) => r.Instances ?? []).length ?? 0);
    expect(sizes).toEqual([5, 5, 2]);
    expect(ec2.requests.map((r) => r.has('NextToken'))).toEqual([false, true, true]);
  });

  it.each([
    [
      'an unknown filter',
      { Filters: [{ Name: 'tag-colour', Values: ['x'] }] },
      "InvalidParameterValue: The filter 'tag-colour' is invalid",
    ],
    [
      'MaxResults with ids',
      { InstanceIds: ['i-1'], MaxResults: 5 },
      'InvalidParameterCombination: The parameter instancesSet cannot be used with the parameter maxResults',
    ],
    [
      'an id EC2 does not know',
      { InstanceIds: ['i-404'] },
      "InvalidInstanceID.NotFound: The instance IDs 'i-404' do not exist",
    ],
  ])('refuses %s as EC2 does', async (_, input, error) => {
    const thrown = await client.send(new DescribeInstancesCommand(input)).catch((e: Error) => e);
    expect(`${(thrown as Error).name}: ${(thrown as Error).message}`).toBe(error);
  });

  it('throttles as EC2 does: RequestLimitExceeded, HTTP 503, retried by the SDK', async () => {
    ec2.throttleNext(2);
    const answer = await client.send(new DescribeInstancesCommand({}));
    expect(answer.$metadata.attempts).toBe(3);
    ec2.throttleNext(3);
    const thrown = (await client.send(new DescribeInstancesCommand({})).catch((e: unknown) => e)) as {
      name: string;
      $metadata: { httpStatusCode: number; attempts: number };
    };
    expect([thrown.name, thrown.$metadata.httpStatusCode, thrown.$metadata.attempts]).toEqual([
      'RequestLimitExceeded',
      503,
      3,
    ]);
  });
});

describe('createEc2Discovery', () => {
  it('lists the running instances of the filters, with their fields', async () => {
    const a = fleet.launch({ tags: { Role: 'web', Name: 'a' }, publicIp: '203.0.113.1' });
    fleet.launch({ tags: { Role: 'db' } });
    fleet.launch({ tags: { Role: 'web' }, state: 'stopped' });
    const gone = fleet.launch({ tags: { Role: 'web' } });
    fleet.terminate(gone.id);
    const listing = okListing(await createEc2Discovery(client, FAST).list(query, { budgetMs: 5000 }));
    expect(listing).toEqual({
      instances: [
        {
          instanceId: a.id,
          privateIp: '127.0.0.2',
          privateDns: 'ip-127-0-0-2.eu-west-1.compute.internal',
          publicIp: '203.0.113.1',
          availabilityZone: 'eu-west-1a',
          tags: { Role: 'web', Name: 'a' },
        },
      ],
      skipped: [],
      calls: 1,
      throttledRetries: 0,
    });
    expect(ec2.requests.map(String)).toEqual([
      'Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=tag%3ARole&Filter.1.Value.1=web&Filter.2.Name=instance-state-name&Filter.2.Value.1=running&MaxResults=1000',
    ]);
  });

  it('lists 2,500 instances in three pages of 1,000', async () => {
    for (let i = 0; i < 2500; i++) fleet.launch({ tags: { Role: 'web' } });
    const listing = okListing(await createEc2Discovery(client, FAST).list(query, { budgetMs: 10_000 }));
    expect(listing.instances.length).toBe(2500);
    expect(new Set(listing.instances.map((i) => i.privateIp)).size).toBe(2500);
    expect(ec2.calls).toEqual({ DescribeInstances: 3 });
  });

  it('waits after throttling past the SDK retries, and resumes from the page it reached', async () => {
    for (let i = 0; i < 1500; i++) fleet.launch({ tags: { Role: 'web' } });
    // The first page comes, then the SDK's three attempts at the second are throttled.
    ec2.throttleNext(3, 1);
    const listing = okListing(await createEc2Discovery(client, FAST).list(query, { budgetMs: 10_000 }));
    expect(listing.instances.length).toBe(1500);
    expect(listing.throttledRetries).toBe(1);
    // 1 page, 3 throttled attempts, then the second page again from its token: 5 calls, no restart.
    expect(listing.calls).toBe(5);
    expect(ec2.requests.map((r) => r.get('NextToken') !== null)).toEqual([false, true, true, true, true]);
  });

  it('surfaces a rate limit as throttling retried until the listing completes', async () => {
    for (let i = 0; i < 40; i++) fleet.launch({ tags: { Role: 'web' } });
    // Two a second: three lists started together find the bucket empty however slowly the machine
    // runs them (at twenty a second a loaded machine could space them out and never be throttled).
    ec2.rateLimit({ perSecond: 2, burst: 1 });
    const discovery = createEc2Discovery(client, FAST);
    const lists = await Promise.all([1, 2, 3].map(() => discovery.list(query, { budgetMs: 10_000 })));
    for (const outcome of lists) expect(okListing(outcome).instances.length).toBe(40);
    const attempts = ec2.calls.DescribeInstances ?? 0;
    expect(attempts).toBeGreaterThan(3);
  });

  it.each<[string, (s: QueryStandIn) => void, { budgetMs: number; signal?: AbortSignal }, string, RegExp]>([
    [
      'throttled for longer than the budget',
      (s) => s.throttleNext(1000),
      { budgetMs: 4000 },
      'throttled',
      /^DescribeInstances: RequestLimitExceeded: Request limit exceeded\.; still throttled when the 4000 ms budget ran out \(\d+ calls, [1-9]\d* waits after the SDK's retries\)$/,
    ],
    [
      'access denied',
      (s) => s.denyAccess(true),
      { budgetMs: 5000 },
      'access-denied',
      /^DescribeInstances: UnauthorizedOperation: User: arn:aws:sts::123456789012:assumed-role\/monitor\/fn is not authorized to perform: ec2:DescribeInstances/,
    ],
    [
      'aborted by the run',
      () => undefined,
      { budgetMs: 5000, signal: AbortSignal.abort() },
      'timeout',
      /^DescribeInstances did not complete within the 5000 ms budget \(\d+ calls, 0 waits after throttling\)$/,
    ],
  ])('fails whole when %s', async (_, arrange, budget, why, detail) => {
    fleet.launch({ tags: { Role: 'web' } });
    arrange(ec2);
    const outcome = await createEc2Discovery(client, FAST).list(query, budget);
    if (outcome.ok) throw new Error('expected a failed listing');
    expect(outcome.error.name).toBe('DiscoveryListingError');
    expect([outcome.error.source, outcome.error.why]).toEqual(['ec2', why]);
    expect(outcome.error.detail).toMatch(detail);
  });
});
