/**
 * Auto Scaling on loopback (query protocol, API version 2011-01-01): DescribeAutoScalingGroups
 * with `AutoScalingGroupNames.member.N`, `MaxRecords` (1 to 100) and `NextToken`; the answer's
 * `DescribeAutoScalingGroupsResult/AutoScalingGroups/member` with each group's `Instances/member`
 * (InstanceId, AvailabilityZone, LifecycleState, HealthStatus), names that do not exist left out
 * as the real service does.
 */
import {
  type ActionResult,
  el,
  listParam,
  offsetOf,
  pageToken,
  type QueryStandIn,
  startQueryStandIn,
} from './awsQuery.ts';
import type { FakeFleet, FakeGroup } from './fakeFleet.ts';

const NAMESPACE = 'http://autoscaling.amazonaws.com/doc/2011-01-01/';

function groupXml(fleet: FakeFleet, group: FakeGroup): string {
  const zones = [...new Set(group.members.map((m) => fleet.instances.get(m.id)?.availabilityZone ?? 'eu-west-1a'))];
  const members = group.members
    .map((m) => {
      const zone = fleet.instances.get(m.id)?.availabilityZone ?? 'eu-west-1a';
      return `<member>${el('InstanceId', m.id)}${el('InstanceType', 't3.micro')}${el('AvailabilityZone', zone)}${el('LifecycleState', m.lifecycle)}${el('HealthStatus', 'Healthy')}${el('ProtectedFromScaleIn', false)}</member>`;
    })
    .join('');
  const size = group.members.length;
  return `<member>${el('AutoScalingGroupName', group.name)}${el('AutoScalingGroupARN', `arn:aws:autoscaling:eu-west-1:123456789012:autoScalingGroup:00000000-0000-0000-0000-000000000000:autoScalingGroupName/${group.name}`)}${el('MinSize', 0)}${el('MaxSize', Math.max(size, 10))}${el('DesiredCapacity', size)}${el('DefaultCooldown', 300)}<AvailabilityZones>${zones.map((z) => el('member', z)).join('')}</AvailabilityZones>${el('HealthCheckType', 'ELB')}${el('HealthCheckGracePeriod', 300)}${el('CreatedTime', '2024-01-01T00:00:00.000Z')}<Instances>${members}</Instances><Tags/></member>`;
}

function describeGroups(fleet: FakeFleet, form: URLSearchParams): ActionResult {
  const names = listParam(form, 'AutoScalingGroupNames.member');
  const max = form.has('MaxRecords') ? Number(form.get('MaxRecords')) : 50;
  if (!(Number.isInteger(max) && max >= 1 && max <= 100))
    return {
      status: 400,
      code: 'ValidationError',
      message: `1 validation error detected: Value '${form.get('MaxRecords')}' at 'maxRecords' failed to satisfy constraint: Member must have value less than or equal to 100`,
    };
  const groups = [...fleet.groups.values()]
    .filter((g) => names.length === 0 || names.includes(g.name))
    .sort((a, b) => a.name.localeCompare(b.name));
  const start = offsetOf(form.get('NextToken'));
  if (start === null) return { status: 400, code: 'InvalidNextToken', message: 'The token is invalid.' };
  const page = groups.slice(start, start + max);
  const next = start + max < groups.length ? el('NextToken', pageToken(start + max)) : '';
  return `<AutoScalingGroups>${page.map((g) => groupXml(fleet, g)).join('')}</AutoScalingGroups>${next}`;
}

/** Start Auto Scaling over `fleet` on a random loopback port. */
function startFakeAutoScaling(fleet: FakeFleet): Promise<QueryStandIn> {
  return startQueryStandIn({
    style: 'query',
    version: '2011-01-01',
    namespace: NAMESPACE,
    iamPrefix: 'autoscaling',
    throttle: { code: 'Throttling', status: 400, message: 'Rate exceeded' },
    denied: { code: 'AccessDenied', status: 403 },
    actions: { DescribeAutoScalingGroups: (form) => describeGroups(fleet, form) },
  });
}

export { startFakeAutoScaling };
