/**
 * Discovery source `elbv2`: the targets of the named target groups whose health is not
 * `draining` or `unused` (DescribeTargetHealth, one call per group: it is not paginated), each
 * group's port and target type from DescribeTargetGroups (paginated), instance targets described
 * by EC2, IP targets taken as they are (their address is `privateIp`).
 */

import type { EC2Client } from '@aws-sdk/client-ec2';
import {
  DescribeTargetHealthCommand,
  type ElasticLoadBalancingV2Client,
  paginateDescribeTargetGroups,
  type TargetGroup,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import type { DiscoverySource } from '../app/discovery/ports.ts';
import type { Skip } from '../core/discovery/listing.ts';
import type { DiscoveredInstance } from '../core/discovery/template.ts';
import { allPages, type Backoff, chunks, DEFAULT_BACKOFF, oneCall } from './discoveryCalls.ts';
import { describeByIds, outcomeOf } from './ec2Discovery.ts';

/** Target groups asked for in one DescribeTargetGroups call. */
const ARNS_PER_CALL = 20;
/** DescribeTargetGroups' largest page. */
const PAGE_SIZE = 400;

/** A target leaving (deregistration delay) or not in use by any load balancer is not watched. */
const NOT_SERVING = new Set(['draining', 'unused']);

/**
 * @example
 * const elb = createElbv2Discovery(new ElasticLoadBalancingV2Client({}), new EC2Client({}));
 * await elb.list({ source: 'elbv2', targetGroups: [arn] }, { budgetMs: 10_000 });
 */
function createElbv2Discovery(
  elb: ElasticLoadBalancingV2Client,
  ec2: EC2Client,
  backoff: Backoff = DEFAULT_BACKOFF,
): DiscoverySource<'elbv2'> {
  return {
    list: (query, budget) =>
      outcomeOf('elbv2', budget, backoff, async (calls) => {
        const groups = new Map<string, TargetGroup>();
        for (const arns of chunks(query.targetGroups, ARNS_PER_CALL)) {
          const pages = await allPages(
            calls,
            'DescribeTargetGroups',
            (startingToken) =>
              paginateDescribeTargetGroups(
                { client: elb, startingToken },
                // This paginator does not pass `pageSize` on: the input carries it.
                { TargetGroupArns: arns, PageSize: PAGE_SIZE },
                { abortSignal: calls.signal },
              ),
            (page) => page.NextMarker,
          );
          for (const page of pages)
            for (const group of page.TargetGroups ?? [])
              if (group.TargetGroupArn !== undefined) groups.set(group.TargetGroupArn, group);
        }
        const skipped: Skip[] = [];
        const byInstance = new Map<string, number | undefined>();
        const ipTargets: DiscoveredInstance[] = [];
        for (const arn of query.targetGroups) {
          const group = groups.get(arn);
          const port = group?.Port;
          const answer = await oneCall(calls, 'DescribeTargetHealth', () =>
            elb.send(new DescribeTargetHealthCommand({ TargetGroupArn: arn }), { abortSignal: calls.signal }),
          );
          for (const description of answer.TargetHealthDescriptions ?? []) {
            const id = description.Target?.Id;
            if (id === undefined || NOT_SERVING.has(description.TargetHealth?.State ?? '')) continue;
            if (group?.TargetType === 'ip')
              ipTargets.push({
                privateIp: id,
                ...(description.Target?.AvailabilityZone === undefined
                  ? {}
                  : { availabilityZone: description.Target.AvailabilityZone }),
                ...(port === undefined ? {} : { port }),
                tags: {},
              });
            else if (group?.TargetType === 'instance' || group?.TargetType === undefined) {
              // An instance in two groups is listed with the first group's port.
              if (!byInstance.has(id)) byInstance.set(id, port);
            } else
              skipped.push({
                instance: id,
                reason: `a ${group.TargetType} target (only instance and ip targets are watched)`,
              });
          }
        }
        const described = await describeByIds(ec2, [...byInstance.keys()], calls);
        const instances = described.instances.map((instance) => {
          const port = byInstance.get(instance.instanceId as string);
          return port === undefined ? instance : { ...instance, port };
        });
        return { instances: [...instances, ...ipTargets], skipped: [...skipped, ...described.skipped] };
      }),
  };
}

export { createElbv2Discovery };
