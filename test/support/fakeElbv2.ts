/**
 * Elastic Load Balancing v2 on loopback (query protocol, API version 2015-12-01):
 * DescribeTargetGroups (`TargetGroupArns.member.N`, `PageSize` 1 to 400, `Marker`/`NextMarker`;
 * an unknown ARN is `TargetGroupNotFound`) and DescribeTargetHealth (`TargetGroupArn`; every
 * target's `Target`, `HealthCheckPort` and `TargetHealth` with `State`, and `Reason` and
 * `Description` for a draining or unused one), as the real service answers.
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
import type { FakeFleet, FakeTargetGroup } from './fakeFleet.ts';

const NAMESPACE = 'http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/';

const REASONS: Record<string, [string, string] | undefined> = {
  draining: ['Target.DeregistrationInProgress', 'Target deregistration is in progress'],
  unused: ['Target.NotInUse', 'Target group is not configured to receive traffic from the load balancer'],
  initial: ['Elb.RegistrationInProgress', 'Target registration is in progress'],
  unhealthy: ['Target.FailedHealthChecks', 'Health checks failed'],
};

const notFound = (): ActionResult => ({
  status: 400,
  code: 'TargetGroupNotFound',
  message: 'One or more target groups not found',
});

function groupXml(g: FakeTargetGroup): string {
  return `<member>${el('TargetGroupArn', g.arn)}${el('TargetGroupName', g.name)}${el('Protocol', 'HTTP')}${el('Port', g.port)}${el('VpcId', 'vpc-0123456789abcdef0')}${el('HealthCheckProtocol', 'HTTP')}${el('HealthCheckPort', 'traffic-port')}${el('HealthCheckEnabled', true)}${el('HealthCheckPath', '/')}${el('TargetType', g.type)}<LoadBalancerArns>${el('member', 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/web/0123456789abcdef')}</LoadBalancerArns>${el('IpAddressType', 'ipv4')}</member>`;
}

function describeTargetGroups(fleet: FakeFleet, form: URLSearchParams): ActionResult {
  const arns = listParam(form, 'TargetGroupArns.member');
  if (arns.some((arn) => !fleet.targetGroups.has(arn))) return notFound();
  const size = form.has('PageSize') ? Number(form.get('PageSize')) : 400;
  if (!(Number.isInteger(size) && size >= 1 && size <= 400))
    return {
      status: 400,
      code: 'ValidationError',
      message: `Value '${form.get('PageSize')}' at 'pageSize' failed to satisfy constraint: Member must have value less than or equal to 400`,
    };
  const groups = [...fleet.targetGroups.values()].filter((g) => arns.length === 0 || arns.includes(g.arn));
  const start = offsetOf(form.get('Marker'));
  if (start === null) return { status: 400, code: 'ValidationError', message: 'Invalid marker' };
  const page = groups.slice(start, start + size);
  const next = start + size < groups.length ? el('NextMarker', pageToken(start + size)) : '';
  return `<TargetGroups>${page.map(groupXml).join('')}</TargetGroups>${next}`;
}

function describeTargetHealth(fleet: FakeFleet, form: URLSearchParams): ActionResult {
  const group = fleet.targetGroups.get(form.get('TargetGroupArn') ?? '');
  if (group === undefined) return notFound();
  const members = group.targets
    .map((t) => {
      const reason = REASONS[t.state];
      const health = `<TargetHealth>${el('State', t.state)}${reason === undefined ? '' : `${el('Reason', reason[0])}${el('Description', reason[1])}`}</TargetHealth>`;
      return `<member>${el('HealthCheckPort', String(t.port))}<Target>${el('Id', t.id)}${el('Port', t.port)}${el('AvailabilityZone', t.availabilityZone)}</Target>${health}</member>`;
    })
    .join('');
  return `<TargetHealthDescriptions>${members}</TargetHealthDescriptions>`;
}

/** Start ELBv2 over `fleet` on a random loopback port. */
function startFakeElbv2(fleet: FakeFleet): Promise<QueryStandIn> {
  return startQueryStandIn({
    style: 'query',
    version: '2015-12-01',
    namespace: NAMESPACE,
    iamPrefix: 'elasticloadbalancing',
    throttle: { code: 'Throttling', status: 400, message: 'Rate exceeded' },
    denied: { code: 'AccessDenied', status: 403 },
    actions: {
      DescribeTargetGroups: (form) => describeTargetGroups(fleet, form),
      DescribeTargetHealth: (form) => describeTargetHealth(fleet, form),
    },
  });
}

export { startFakeElbv2 };
