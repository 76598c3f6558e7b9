/**
 * Discovery source `ec2`: the running instances that match a document's DescribeInstances
 * filters, through the SDK's DescribeInstances paginator (pages of 1,000). Also how the other
 * sources learn the addresses and tags of the instances they name.
 */
import { type EC2Client, type Filter, type Instance, paginateDescribeInstances } from '@aws-sdk/client-ec2';
import type { DiscoverySource, ListingBudget } from '../app/discovery/ports.ts';
import type { DiscoverySourceName } from '../core/discovery/document.ts';
import { DiscoveryListingError, type ListingOutcome, type Skip } from '../core/discovery/listing.ts';
import type { DiscoveredInstance } from '../core/discovery/template.ts';
import { allPages, type Backoff, type CallBudget, chunks, DEFAULT_BACKOFF, startBudget } from './discoveryCalls.ts';

/** DescribeInstances' largest page. */
const PAGE_SIZE = 1000;
/** Values sent in one filter: instance ids and group names are asked for this many at a time. */
const FILTER_VALUES = 200;

const RUNNING: Filter = { Name: 'instance-state-name', Values: ['running'] };

/** An EC2 instance as discovery sees it: its addresses, zone and tags; empty values left out. */
function toDiscovered(instance: Instance): DiscoveredInstance {
  const tags: Record<string, string> = {};
  for (const tag of instance.Tags ?? []) if (tag.Key !== undefined) tags[tag.Key] = tag.Value ?? '';
  const out: DiscoveredInstance = { tags };
  const set = (key: 'instanceId' | 'privateIp' | 'privateDns' | 'publicIp' | 'availabilityZone', value?: string) => {
    if (value !== undefined && value !== '') out[key] = value;
  };
  set('instanceId', instance.InstanceId);
  set('privateIp', instance.PrivateIpAddress);
  set('privateDns', instance.PrivateDnsName);
  set('publicIp', instance.PublicIpAddress);
  set('availabilityZone', instance.Placement?.AvailabilityZone);
  return out;
}

/** The running instances matching `filters`, every page of them. */
async function describeRunning(
  client: EC2Client,
  filters: Filter[],
  budget: CallBudget,
): Promise<DiscoveredInstance[]> {
  const pages = await allPages(
    budget,
    'DescribeInstances',
    (startingToken) =>
      paginateDescribeInstances(
        { client, pageSize: PAGE_SIZE, startingToken },
        { Filters: [...filters, RUNNING] },
        { abortSignal: budget.signal },
      ),
    (page) => page.NextToken,
  );
  const out: DiscoveredInstance[] = [];
  for (const page of pages)
    for (const reservation of page.Reservations ?? [])
      for (const instance of reservation.Instances ?? []) out.push(toDiscovered(instance));
  return out;
}

/**
 * The running instances among `ids`, asked by an `instance-id` filter rather than `InstanceIds`:
 * an id EC2 does not know yet (just launched: its API is eventually consistent) fails a call by
 * `InstanceIds` whole, and is only absent from a filtered answer. The ones absent are skipped.
 */
async function describeByIds(
  client: EC2Client,
  ids: readonly string[],
  budget: CallBudget,
): Promise<{ instances: DiscoveredInstance[]; skipped: Skip[] }> {
  const instances: DiscoveredInstance[] = [];
  for (const slice of chunks([...new Set(ids)], FILTER_VALUES))
    instances.push(...(await describeRunning(client, [{ Name: 'instance-id', Values: slice }], budget)));
  const found = new Set(instances.map((i) => i.instanceId));
  const skipped = ids
    .filter((id) => !found.has(id))
    .map((id) => ({
      instance: id,
      reason: 'not a running instance in DescribeInstances (launching, stopping, or not visible yet)',
    }));
  return { instances, skipped };
}

/** A listing's outcome from the work `run` does within `budget`. */
async function outcomeOf(
  source: DiscoverySourceName,
  budget: ListingBudget,
  backoff: Backoff,
  run: (calls: CallBudget) => Promise<{ instances: DiscoveredInstance[]; skipped: Skip[] }>,
): Promise<ListingOutcome> {
  const calls = startBudget(source, budget, backoff);
  try {
    const { instances, skipped } = await run(calls);
    return { ok: true, listing: { instances, skipped, calls: calls.calls, throttledRetries: calls.throttledRetries } };
  } catch (error) {
    if (error instanceof DiscoveryListingError) return { ok: false, error };
    throw error;
  }
}

/**
 * @example
 * const ec2 = createEc2Discovery(new EC2Client({}));
 * await ec2.list({ source: 'ec2', filters: { 'tag:Role': ['web'] } }, { budgetMs: 10_000 });
 */
function createEc2Discovery(client: EC2Client, backoff: Backoff = DEFAULT_BACKOFF): DiscoverySource<'ec2'> {
  return {
    list: (query, budget) =>
      outcomeOf('ec2', budget, backoff, async (calls) => {
        const filters = Object.entries(query.filters).map(([Name, Values]) => ({ Name, Values }));
        return { instances: await describeRunning(client, filters, calls), skipped: [] };
      }),
  };
}

export { createEc2Discovery, describeByIds, describeRunning, FILTER_VALUES, outcomeOf, toDiscovered };
