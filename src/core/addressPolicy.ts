/**
 * Which addresses a target may reach: the fetcher asks this for every address it is about to
 * connect to (each one a name resolved to, and an IP literal in a URL), so a name that moves to a
 * refused address after validation is caught at the next fetch. Pure: `node:net`'s `BlockList`
 * and `isIP` only parse and compare addresses, in every spelling Node accepts (IPv6 with or
 * without zeros, upper case, a zone, an IPv4 tail; IPv4-mapped IPv6 matched by IPv4 rules).
 *
 * Refused always: link-local (IPv4 169.254.0.0/16, IPv6 fe80::/10), which holds the instance
 * metadata service and the container credentials endpoints; AWS's instance services in IPv6
 * (fd00:ec2::/64, a ULA); the unspecified addresses (0.0.0.0/8, `::`: on Linux a connect to them
 * reaches the local host). Refused unless the policy allows it: loopback. Refused whatever the
 * policy: the Lambda runtime API's port on the local host, which a sidecar never needs and which
 * would let a target read or answer the function's own invocations. An IPv4 range is also refused
 * in its IPv4-compatible (`::a.b.c.d`) and NAT64 (`64:ff9b::a.b.c.d`) forms.
 */
import { BlockList, isIP } from 'node:net';

/** The rule that refused an address. */
const ADDRESS_RULES = {
  linkLocal: 'link-local',
  instanceMetadata: 'instance-metadata',
  unspecified: 'unspecified',
  lambdaRuntimeApi: 'lambda-runtime-api',
  loopback: 'loopback',
} as const;
type AddressRule = (typeof ADDRESS_RULES)[keyof typeof ADDRESS_RULES];

/** The local endpoint of the Lambda runtime API (`AWS_LAMBDA_RUNTIME_API`, `127.0.0.1:9001`). */
interface RuntimeApiEndpoint {
  /** As the variable names it: an IP literal (brackets removed) or a name such as `localhost`. */
  host: string;
  port: number;
}

interface AddressPolicy {
  /** Loopback may be reached: the CLI on the monitored host, or a target that opts in (a sidecar). */
  allowLoopback: boolean;
  /** The runtime API of the Lambda the fetch runs in; null outside a Lambda. */
  runtimeApi: RuntimeApiEndpoint | null;
}

type AddressVerdict =
  | { allowed: true }
  | {
      allowed: false;
      rule: AddressRule;
      /** The address as it was given. */
      address: string;
      /** What lives there, for a person: `instance metadata`, `link-local address`. */
      what: string;
      /** What to do about it. */
      hint: string;
    };

/** The most lenient policy the monitor has: the CLI's (loopback allowed, no runtime API). */
const LOOPBACK_ALLOWED: AddressPolicy = { allowLoopback: true, runtimeApi: null };

type Cidr = readonly [network: string, prefix: number];

/**
 * A BlockList of IPv4 and IPv6 ranges; each IPv4 range also in its NAT64 form and, unless told
 * otherwise, its IPv4-compatible form (0.0.0.0/8's would be ::/104, which holds `::1`).
 */
function blockList(ipv4: readonly Cidr[], ipv6: readonly Cidr[] = [], compatible = true): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ipv4) {
    list.addSubnet(network, prefix, 'ipv4');
    // The IPv4-mapped form (::ffff:a.b.c.d) is matched by the IPv4 rule itself.
    if (compatible) list.addSubnet(`::${network}`, 96 + prefix, 'ipv6');
    list.addSubnet(`64:ff9b::${network}`, 96 + prefix, 'ipv6');
  }
  for (const [network, prefix] of ipv6) list.addSubnet(network, prefix, 'ipv6');
  return list;
}

/** Well-known addresses inside the refused ranges, named so that a page says what was aimed at. */
const KNOWN: ReadonlyArray<readonly [BlockList, string]> = [
  [blockList([['169.254.169.254', 32]], [['fd00:ec2::254', 128]]), 'instance metadata'],
  [blockList([['169.254.170.2', 32]]), 'ECS container credentials'],
  [blockList([['169.254.170.23', 32]], [['fd00:ec2::23', 128]]), 'EKS Pod Identity credentials'],
  [blockList([['169.254.169.253', 32]], [['fd00:ec2::253', 128]]), 'Amazon DNS resolver'],
  [blockList([['169.254.169.123', 32]], [['fd00:ec2::123', 128]]), 'Amazon Time Sync'],
];

const NEVER = 'never fetched, whatever the target says: point the target at the server itself';

/** The ranges refused by each rule, in the order they are tried. */
const RANGES: ReadonlyArray<{ rule: AddressRule; list: BlockList; what: string; hint: string }> = [
  {
    rule: ADDRESS_RULES.instanceMetadata,
    list: blockList([], [['fd00:ec2::', 64]]),
    what: "AWS's instance services",
    hint: NEVER,
  },
  {
    rule: ADDRESS_RULES.linkLocal,
    list: blockList([['169.254.0.0', 16]], [['fe80::', 10]]),
    what: 'link-local address',
    hint: NEVER,
  },
  {
    rule: ADDRESS_RULES.unspecified,
    list: blockList([['0.0.0.0', 8]], [['::', 128]], false),
    what: 'unspecified address, which reaches the local host',
    hint: NEVER,
  },
];

const LOOPBACK = blockList([['127.0.0.0', 8]], [['::1', 128]]);

/** `::ffff:7f00:1` and `[::1]` are IPv6, `127.1` is not an address (URLs normalize it first). */
function family(address: string): 'ipv4' | 'ipv6' {
  const version = isIP(address);
  if (version === 4) return 'ipv4';
  if (version === 6) return 'ipv6';
  throw new TypeError(`expected an IPv4 or IPv6 address, found ${JSON.stringify(address)}`);
}

function knownAs(address: string, type: 'ipv4' | 'ipv6'): string | undefined {
  return KNOWN.find(([list]) => list.check(address, type))?.[1];
}

/**
 * Whether a connection to `address` (a resolved address or an IP literal, without brackets) on
 * `port` is allowed under `policy`, and if not, the rule that refuses it.
 *
 * @example
 * classifyAddress('::ffff:a9fe:a9fe', 80, LOOPBACK_ALLOWED);
 * // { allowed: false, rule: 'link-local', address: '::ffff:a9fe:a9fe', what: 'instance metadata', hint: ... }
 * @throws TypeError when `address` is not an IP address
 */
function classifyAddress(address: string, port: number, policy: AddressPolicy): AddressVerdict {
  const type = family(address);
  for (const range of RANGES) {
    if (range.list.check(address, type)) {
      const what = knownAs(address, type) ?? range.what;
      return { allowed: false, rule: range.rule, address, what, hint: range.hint };
    }
  }
  const loopback = LOOPBACK.check(address, type);
  const runtimeApi = policy.runtimeApi;
  // Its port on any loopback address: the API may listen on more than the one the variable names.
  if (runtimeApi !== null && port === runtimeApi.port && (loopback || sameAddress(address, type, runtimeApi.host))) {
    return {
      allowed: false,
      rule: ADDRESS_RULES.lambdaRuntimeApi,
      address,
      what: `the Lambda runtime API, port ${port}`,
      hint: 'never fetched, even with allowLoopback: the function would be reading its own invocations',
    };
  }
  if (loopback && !policy.allowLoopback) {
    return {
      allowed: false,
      rule: ADDRESS_RULES.loopback,
      address,
      what: "the monitor's own host",
      hint: 'set "allowLoopback": true on the target if the server is a sidecar of the monitor',
    };
  }
  return { allowed: true };
}

/** Whether `address` is `host` in another spelling (`host` may be a name: then never). */
function sameAddress(address: string, type: 'ipv4' | 'ipv6', host: string): boolean {
  const version = isIP(host);
  if (version === 0) return false;
  const list = new BlockList();
  list.addAddress(host, version === 4 ? 'ipv4' : 'ipv6');
  return list.check(address, type);
}

/** A refusal in a page's words: `169.254.169.254 (link-local: instance metadata)`. */
function describeRefusal(verdict: Extract<AddressVerdict, { allowed: false }>): string {
  return `${verdict.address} (${verdict.rule}: ${verdict.what})`;
}

/**
 * The runtime API endpoint from `AWS_LAMBDA_RUNTIME_API` (`host:port`, IPv6 in brackets), or null
 * when it is not `host:port`.
 *
 * @example
 * parseRuntimeApi('127.0.0.1:9001'); // { host: '127.0.0.1', port: 9001 }
 */
function parseRuntimeApi(value: string): RuntimeApiEndpoint | null {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (match === null || port < 1 || port > 65_535) return null;
  const host = match[1] ?? match[2] ?? '';
  if (match[1] !== undefined && isIP(host) !== 6) return null;
  return { host, port };
}

export type { AddressPolicy, AddressRule, AddressVerdict, RuntimeApiEndpoint };
export { ADDRESS_RULES, classifyAddress, describeRefusal, LOOPBACK_ALLOWED, parseRuntimeApi };
