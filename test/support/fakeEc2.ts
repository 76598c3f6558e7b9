/**
 * EC2 on loopback (query protocol, API version 2016-11-15): DescribeInstances with filters
 * (`Filter.N.Name`, `Filter.N.Value.M`, the `*` and `?` wildcards), `InstanceId.N`, `MaxResults`
 * (5 to 1,000, not with instance ids) and `NextToken`; the answer's `reservationSet/item/
 * instancesSet/item` in the `http://ec2.amazonaws.com/doc/2016-11-15/` namespace, as the real
 * service sends it. Reached by pointing an EC2Client's `endpoint` at it.
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
import { type FakeFleet, type FakeInstance, STATE_CODES } from './fakeFleet.ts';

const NAMESPACE = 'http://ec2.amazonaws.com/doc/2016-11-15/';

/** The filters the stand-in knows (the real service knows many more; an unknown one is refused as there). */
const FILTERS: Record<string, (i: FakeInstance) => string | undefined> = {
  'instance-state-name': (i) => i.state,
  'instance-id': (i) => i.id,
  'availability-zone': (i) => i.availabilityZone,
  'private-ip-address': (i) => i.privateIp,
};

function matches(pattern: string, value: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replaceAll('*', '.*')
      .replaceAll('?', '.')}$`,
  );
  return regex.test(value);
}

function filterValue(name: string, instance: FakeInstance): string | undefined | null {
  if (name.startsWith('tag:')) return instance.tags[name.slice(4)];
  const read = FILTERS[name];
  return read === undefined ? null : read(instance);
}

function instanceXml(i: FakeInstance): string {
  const tags = Object.entries(i.tags)
    .map(([key, value]) => `<item>${el('key', key)}${el('value', value)}</item>`)
    .join('');
  const running = i.state !== 'terminated';
  return `<item>${el('instanceId', i.id)}${el('imageId', 'ami-0123456789abcdef0')}<instanceState>${el('code', STATE_CODES[i.state])}${el('name', i.state)}</instanceState>${el('privateDnsName', running ? i.privateDns : '')}${el('dnsName', '')}${el('instanceType', 't3.micro')}<placement>${el('availabilityZone', i.availabilityZone)}${el('tenancy', 'default')}</placement>${running ? el('privateIpAddress', i.privateIp) : ''}${running ? el('ipAddress', i.publicIp) : ''}${tags === '' ? '' : `<tagSet>${tags}</tagSet>`}</item>`;
}

function describeInstances(fleet: FakeFleet, form: URLSearchParams): ActionResult {
  const ids = listParam(form, 'InstanceId');
  const maxResults = form.get('MaxResults');
  if (ids.length > 0 && maxResults !== null)
    return {
      status: 400,
      code: 'InvalidParameterCombination',
      message: 'The parameter instancesSet cannot be used with the parameter maxResults',
    };
  const size = maxResults === null ? Number.POSITIVE_INFINITY : Number(maxResults);
  if (maxResults !== null && !(Number.isInteger(size) && size >= 5 && size <= 1000))
    return {
      status: 400,
      code: 'InvalidParameterValue',
      message: `Value ( ${maxResults} ) for parameter maxResults is invalid. Expecting a value between 5 and 1000.`,
    };
  const filters: Array<{ name: string; values: string[] }> = [];
  for (let n = 1; form.has(`Filter.${n}.Name`); n++)
    filters.push({ name: form.get(`Filter.${n}.Name`) as string, values: listParam(form, `Filter.${n}.Value`) });
  for (const f of filters)
    if (!f.name.startsWith('tag:') && FILTERS[f.name] === undefined)
      return { status: 400, code: 'InvalidParameterValue', message: `The filter '${f.name}' is invalid` };
  const unknown = ids.filter((id) => !fleet.instances.has(id));
  if (unknown.length > 0)
    return {
      status: 400,
      code: 'InvalidInstanceID.NotFound',
      message: `The instance IDs '${unknown.join(', ')}' do not exist`,
    };
  const selected = [...fleet.instances.values()]
    .filter((i) => ids.length === 0 || ids.includes(i.id))
    .filter((i) =>
      filters.every((f) => {
        const value = filterValue(f.name, i);
        return typeof value === 'string' && f.values.some((pattern) => matches(pattern, value));
      }),
    )
    .sort((a, b) => a.id.localeCompare(b.id));
  const start = offsetOf(form.get('NextToken'));
  if (start === null) return { status: 400, code: 'InvalidParameterValue', message: 'Invalid value for nextToken' };
  const page = selected.slice(start, start + size);
  const next = start + size < selected.length ? el('nextToken', pageToken(start + size)) : '';
  const reservations = new Map<string, FakeInstance[]>();
  for (const i of page) reservations.set(i.reservationId, [...(reservations.get(i.reservationId) ?? []), i]);
  const items = [...reservations]
    .map(
      ([id, instances]) =>
        `<item>${el('reservationId', id)}${el('ownerId', '123456789012')}<groupSet/><instancesSet>${instances.map(instanceXml).join('')}</instancesSet></item>`,
    )
    .join('');
  return `<reservationSet>${items}</reservationSet>${next}`;
}

/** Start EC2 over `fleet` on a random loopback port. */
function startFakeEc2(fleet: FakeFleet): Promise<QueryStandIn> {
  return startQueryStandIn({
    style: 'ec2',
    version: '2016-11-15',
    namespace: NAMESPACE,
    iamPrefix: 'ec2',
    throttle: { code: 'RequestLimitExceeded', status: 503, message: 'Request limit exceeded.' },
    denied: { code: 'UnauthorizedOperation', status: 403 },
    actions: { DescribeInstances: (form) => describeInstances(fleet, form) },
  });
}

export { startFakeEc2 };
