import { describe, expect, it } from 'vitest';
import {
  type AddressPolicy,
  classifyAddress,
  describeRefusal,
  LOOPBACK_ALLOWED,
  parseRuntimeApi,
} from '../../src/core/addressPolicy.ts';

/** The Lambda's policy for a target that did not opt in. */
const LAMBDA: AddressPolicy = { allowLoopback: false, runtimeApi: { host: '127.0.0.1', port: 9001 } };
/** The Lambda's policy for a target with `allowLoopback: true`. */
const LAMBDA_OPTED_IN: AddressPolicy = { ...LAMBDA, allowLoopback: true };

/** The verdict in one line: `allowed`, or `rule: what`. */
function verdict(address: string, port: number, policy: AddressPolicy): string {
  const v = classifyAddress(address, port, policy);
  return v.allowed ? 'allowed' : `${v.rule}: ${v.what}`;
}

describe('classifyAddress', () => {
  // One row per spelling: [address, port, the Lambda's verdict, with allowLoopback, the CLI's].
  it.each([
    [
      '169.254.169.254',
      80,
      'link-local: instance metadata',
      'link-local: instance metadata',
      'link-local: instance metadata',
    ],
    [
      '169.254.170.2',
      80,
      'link-local: ECS container credentials',
      'link-local: ECS container credentials',
      'link-local: ECS container credentials',
    ],
    [
      '169.254.170.23',
      80,
      'link-local: EKS Pod Identity credentials',
      'link-local: EKS Pod Identity credentials',
      'link-local: EKS Pod Identity credentials',
    ],
    [
      '169.254.169.253',
      53,
      'link-local: Amazon DNS resolver',
      'link-local: Amazon DNS resolver',
      'link-local: Amazon DNS resolver',
    ],
    [
      '169.254.1.1',
      80,
      'link-local: link-local address',
      'link-local: link-local address',
      'link-local: link-local address',
    ],
    [
      'fe80::1',
      80,
      'link-local: link-local address',
      'link-local: link-local address',
      'link-local: link-local address',
    ],
    [
      'FE80::1%eth0',
      80,
      'link-local: link-local address',
      'link-local: link-local address',
      'link-local: link-local address',
    ],
    [
      'febf:ffff::1',
      80,
      'link-local: link-local address',
      'link-local: link-local address',
      'link-local: link-local address',
    ],
    [
      'fd00:ec2::254',
      80,
      'instance-metadata: instance metadata',
      'instance-metadata: instance metadata',
      'instance-metadata: instance metadata',
    ],
    [
      'fd00:0ec2:0:0:0:0:0:254',
      80,
      'instance-metadata: instance metadata',
      'instance-metadata: instance metadata',
      'instance-metadata: instance metadata',
    ],
    [
      'fd00:ec2::23',
      80,
      'instance-metadata: EKS Pod Identity credentials',
      'instance-metadata: EKS Pod Identity credentials',
      'instance-metadata: EKS Pod Identity credentials',
    ],
    [
      'fd00:ec2::7',
      80,
      "instance-metadata: AWS's instance services",
      "instance-metadata: AWS's instance services",
      "instance-metadata: AWS's instance services",
    ],
    [
      '::ffff:169.254.169.254',
      80,
      'link-local: instance metadata',
      'link-local: instance metadata',
      'link-local: instance metadata',
    ],
    [
      '::ffff:a9fe:a9fe',
      80,
      'link-local: instance metadata',
      'link-local: instance metadata',
      'link-local: instance metadata',
    ],
    [
      '0:0:0:0:0:FFFF:A9FE:AA02',
      80,
      'link-local: ECS container credentials',
      'link-local: ECS container credentials',
      'link-local: ECS container credentials',
    ],
    [
      '::a9fe:a9fe',
      80,
      'link-local: instance metadata',
      'link-local: instance metadata',
      'link-local: instance metadata',
    ],
    [
      '64:ff9b::169.254.169.254',
      80,
      'link-local: instance metadata',
      'link-local: instance metadata',
      'link-local: instance metadata',
    ],
    [
      '0.0.0.0',
      80,
      'unspecified: unspecified address, which reaches the local host',
      'unspecified: unspecified address, which reaches the local host',
      'unspecified: unspecified address, which reaches the local host',
    ],
    [
      '0.1.2.3',
      80,
      'unspecified: unspecified address, which reaches the local host',
      'unspecified: unspecified address, which reaches the local host',
      'unspecified: unspecified address, which reaches the local host',
    ],
    [
      '::',
      80,
      'unspecified: unspecified address, which reaches the local host',
      'unspecified: unspecified address, which reaches the local host',
      'unspecified: unspecified address, which reaches the local host',
    ],
    [
      '::ffff:0.0.0.0',
      80,
      'unspecified: unspecified address, which reaches the local host',
      'unspecified: unspecified address, which reaches the local host',
      'unspecified: unspecified address, which reaches the local host',
    ],
    ['127.0.0.1', 80, "loopback: the monitor's own host", 'allowed', 'allowed'],
    ['127.1.2.3', 8080, "loopback: the monitor's own host", 'allowed', 'allowed'],
    ['::1', 80, "loopback: the monitor's own host", 'allowed', 'allowed'],
    ['0:0:0:0:0:0:0:1', 80, "loopback: the monitor's own host", 'allowed', 'allowed'],
    ['::ffff:127.0.0.1', 80, "loopback: the monitor's own host", 'allowed', 'allowed'],
    ['::ffff:7f00:1', 80, "loopback: the monitor's own host", 'allowed', 'allowed'],
    [
      '127.0.0.1',
      9001,
      'lambda-runtime-api: the Lambda runtime API, port 9001',
      'lambda-runtime-api: the Lambda runtime API, port 9001',
      'allowed',
    ],
    [
      '127.0.0.2',
      9001,
      'lambda-runtime-api: the Lambda runtime API, port 9001',
      'lambda-runtime-api: the Lambda runtime API, port 9001',
      'allowed',
    ],
    [
      '::1',
      9001,
      'lambda-runtime-api: the Lambda runtime API, port 9001',
      'lambda-runtime-api: the Lambda runtime API, port 9001',
      'allowed',
    ],
    [
      '::ffff:7f00:1',
      9001,
      'lambda-runtime-api: the Lambda runtime API, port 9001',
      'lambda-runtime-api: the Lambda runtime API, port 9001',
      'allowed',
    ],
    ['10.0.0.7', 9001, 'allowed', 'allowed', 'allowed'],
    ['10.0.0.7', 80, 'allowed', 'allowed', 'allowed'],
    ['192.168.1.10', 443, 'allowed', 'allowed', 'allowed'],
    ['169.255.0.1', 80, 'allowed', 'allowed', 'allowed'],
    ['126.255.255.255', 80, 'allowed', 'allowed', 'allowed'],
    ['2001:db8::1', 80, 'allowed', 'allowed', 'allowed'],
    ['fd00:ec3::254', 80, 'allowed', 'allowed', 'allowed'],
    ['fec0::1', 80, 'allowed', 'allowed', 'allowed'],
    ['::ffff:10.0.0.7', 80, 'allowed', 'allowed', 'allowed'],
  ])('%s port %i: %s in the Lambda, %s opted in, %s in the CLI', (address, port, lambda, optedIn, cli) => {
    expect([
      verdict(address, port, LAMBDA),
      verdict(address, port, LAMBDA_OPTED_IN),
      verdict(address, port, LOOPBACK_ALLOWED),
    ]).toEqual([lambda, optedIn, cli]);
  });

  it.each([
    [
      'a runtime API on another loopback address',
      { host: '127.0.0.5', port: 9001 },
      '127.0.0.1',
      9001,
      'lambda-runtime-api',
    ],
    ['a runtime API named, not numbered', { host: 'localhost', port: 9001 }, '::1', 9001, 'lambda-runtime-api'],
    [
      'a runtime API off loopback, in its mapped form',
      { host: '10.1.2.3', port: 9001 },
      '::ffff:10.1.2.3',
      9001,
      'lambda-runtime-api',
    ],
    ['another port of a runtime API off loopback', { host: '10.1.2.3', port: 9001 }, '10.1.2.3', 9002, 'allowed'],
    ['another host on the runtime API port', { host: '10.1.2.3', port: 9001 }, '10.1.2.4', 9001, 'allowed'],
  ])('%s', (_, runtimeApi, address, port, expected) => {
    const v = classifyAddress(address, port, { allowLoopback: true, runtimeApi });
    expect(v.allowed ? 'allowed' : v.rule).toBe(expected);
  });

  it.each(['169.254.169.254.nip.io', '0xA9FEA9FE', '[::1]', '', '127.1'])(
    'refuses to classify %j: not an address',
    (text) => {
      expect(() => classifyAddress(text, 80, LAMBDA)).toThrow(
        new TypeError(`expected an IPv4 or IPv6 address, found ${JSON.stringify(text)}`),
      );
    },
  );

  it('describes a refusal by address, rule and what lives there, with a hint', () => {
    const v = classifyAddress('::ffff:a9fe:a9fe', 80, LAMBDA);
    expect(v).toEqual({
      allowed: false,
      rule: 'link-local',
      address: '::ffff:a9fe:a9fe',
      what: 'instance metadata',
      hint: 'never fetched, whatever the target says: point the target at the server itself',
    });
    if (v.allowed) throw new Error('expected a refusal');
    expect(describeRefusal(v)).toBe('::ffff:a9fe:a9fe (link-local: instance metadata)');
  });
});

describe('parseRuntimeApi', () => {
  it.each([
    ['127.0.0.1:9001', { host: '127.0.0.1', port: 9001 }],
    ['localhost:9001', { host: 'localhost', port: 9001 }],
    ['[::1]:9001', { host: '::1', port: 9001 }],
    ['127.0.0.1:80', { host: '127.0.0.1', port: 80 }],
    ['127.0.0.1', null],
    ['127.0.0.1:0', null],
    ['127.0.0.1:65536', null],
    ['::1:9001', null],
    ['[localhost]:9001', null],
    ['http://127.0.0.1:9001', null],
    ['', null],
  ])('%j', (text, expected) => {
    expect(parseRuntimeApi(text)).toEqual(expected);
  });
});
