/**
 * Discovery source `autoscaling`: the `InService` instances of the named Auto Scaling groups
 * (DescribeAutoScalingGroups, paginated), described by EC2 (DescribeInstances filtered on the tag
 * `aws:autoscaling:groupName` Auto Scaling puts on every instance it launches: one paginated
 * listing for the whole fleet instead of one call per 200 ids).
 */
import { type AutoScalingClient, paginateDescribeAutoScalingGroups } from '@aws-sdk/client-auto-scaling';
import type { EC2Client } from '@aws-sdk/client-ec2';
import type { DiscoverySource } from '../app/discovery/ports.ts';
import { DiscoveryListingError, LISTING_FAILURES, type Skip } from '../core/discovery/listing.ts';
import { allPages, type Backoff, chunks, DEFAULT_BACKOFF } from './discoveryCalls.ts';
import { describeRunning, FILTER_VALUES, outcomeOf } from './ec2Discovery.ts';

/** DescribeAutoScalingGroups' largest page. */
const MAX_RECORDS = 100;
/** Group names asked for in one call. */
const NAMES_PER_CALL = 50;

/** The lifecycle state of an instance that serves (not Pending, Terminating, Standby, Warmed:*). */
const IN_SERVICE = 'InService';

/**
 * @example
 * const asg = createAutoScalingDiscovery(new AutoScalingClient({}), new EC2Client({}));
 * await asg.list({ source: 'autoscaling', groups: ['web-prod'] }, { budgetMs: 10_000 });
 */
function createAutoScalingDiscovery(
  autoScaling: AutoScalingClient,
  ec2: EC2Client,
  backoff: Backoff = DEFAULT_BACKOFF,
): DiscoverySource<'autoscaling'> {
  return {
    list: (query, budget) =>
      outcomeOf('autoscaling', budget, backoff, async (calls) => {
        const inService = new Set<string>();
        const found = new Set<string>();
        for (const names of chunks(query.groups, NAMES_PER_CALL)) {
          const pages = await allPages(
            calls,
            'DescribeAutoScalingGroups',
            (startingToken) =>
              paginateDescribeAutoScalingGroups(
                { client: autoScaling, pageSize: MAX_RECORDS, startingToken },
                { AutoScalingGroupNames: names },
                { abortSignal: calls.signal },
              ),
            (page) => page.NextToken,
          );
          for (const page of pages)
            for (const group of page.AutoScalingGroups ?? []) {
              if (group.AutoScalingGroupName !== undefined) found.add(group.AutoScalingGroupName);
              for (const instance of group.Instances ?? [])
                if (instance.LifecycleState === IN_SERVICE && instance.InstanceId !== undefined)
                  inService.add(instance.InstanceId);
            }
        }
        // A group that does not exist is a failure, not an empty group: a mistyped or replaced
        // group must page, not remove its instances without a word.
        const missing = query.groups.filter((g) => !found.has(g));
        if (missing.length > 0)
          throw new DiscoveryListingError(
            'autoscaling',
            LISTING_FAILURES.notFound,
            `DescribeAutoScalingGroups: expected the groups ${query.groups.join(', ')}, found no group ${missing.join(', ')}`,
          );
        if (inService.size === 0) return { instances: [], skipped: [] };
        const instances = [];
        for (const names of chunks(query.groups, FILTER_VALUES))
          for (const instance of await describeRunning(
            ec2,
            [{ Name: 'tag:aws:autoscaling:groupName', Values: names }],
            calls,
          ))
            if (instance.instanceId !== undefined && inService.has(instance.instanceId)) instances.push(instance);
        const described = new Set(instances.map((i) => i.instanceId));
        const skipped: Skip[] = [...inService]
          .filter((id) => !described.has(id))
          .map((id) => ({
            instance: id,
            reason: 'InService in its group but not a running instance in DescribeInstances (not visible yet)',
          }));
        return { instances, skipped };
      }),
  };
}

export { createAutoScalingDiscovery };
