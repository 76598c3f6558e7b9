/**
 * A fake SSM Parameter Store speaking awsJson1_1 on loopback (no npm emulator exists; see
 * toolchain.md 3c), reached with `AWS_ENDPOINT_URL_SSM`. The operations the monitor and its CLI
 * use, with the real service's answers: GetParameter, GetParameters, GetParametersByPath (at most
 * 10 a page, NextToken), PutParameter (ParameterAlreadyExists without Overwrite, a version per
 * write, the tiers' size limits and no downgrade from Advanced, each a ValidationException as SSM
 * words it), DescribeParameters (by name: the tier), DeleteParameter (ParameterNotFound) and
 * DeleteParameters. Counts every call by operation. Shared by the
 * tests and the end-to-end benchmark. With `throttle(n)` it answers past n calls in any second
 * as SSM does past its throughput quota (40 a second by default, shared by the account and
 * region): HTTP 400 `{"__type":"ThrottlingException","message":"Rate exceeded"}` in AWS JSON 1.1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** GetParametersByPath returns at most 10 parameters a page, as the real service does. */
const MAX_PAGE = 10;
/** A standard-tier parameter holds at most 4 KB (4,096 characters); more needs the advanced tier (8 KB). */
const MAX_VALUE_CHARS = { Standard: 4096, Advanced: 8192 } as const;

type Tier = keyof typeof MAX_VALUE_CHARS;

interface StoredParameter {
  value: string;
  type: string;
  version: number;
  tier: Tier;
}

const TIERS_PAGE =
  'https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-advanced-parameters.html';

/** SSM's answers to a value its tier cannot hold, and to a downgrade (HTTP 400, ValidationException). */
const TIER_REFUSALS = {
  Standard: `Standard tier parameters support a maximum parameter value of 4096 characters. To create a larger parameter value, upgrade the parameter to use the advanced-parameter tier. For more information, see ${TIERS_PAGE}`,
  Advanced: 'Advanced tier parameters support a maximum parameter value of 8192 characters.',
  downgrade:
    "This parameter uses the advanced-parameter tier. You can't downgrade a parameter from the advanced-parameter tier to the standard-parameter tier. If necessary, you can delete the advanced parameter and recreate it as a new standard parameter.",
} as const;

interface FakeSsm {
  endpoint: string;
  /** Calls per operation since start (or since `reset`). */
  readonly calls: Record<string, number>;
  /** The stored parameters by name (read it in assertions; write with `put`). */
  readonly parameters: ReadonlyMap<string, StoredParameter>;
  put(name: string, value: string, type?: string, tier?: Tier): void;
  /**
   * Run `act` once, right before the next `op` call is answered: another writer's edit landing
   * at that moment (a concurrent `targets add`, a console edit).
   */
  before(op: string, act: () => void): void;
  /** Refuse calls past `callsPerSecond` in any one-second window (null: no limit). */
  throttle(callsPerSecond: number | null): void;
  /** Calls refused with ThrottlingException since start (or since `reset`). */
  readonly throttled: number;
  /** The most calls answered (not refused) in any one-second window since start (or since `reset`). */
  readonly peakPerSecond: number;
  reset(): void;
  stop(): Promise<void>;
}

type Json = Record<string, unknown>;
type Answer = [number, Json];

function parameter(name: string, stored: StoredParameter): Json {
  return {
    Name: name,
    Type: stored.type,
    Value: stored.value,
    Version: stored.version,
    DataType: 'text',
    LastModifiedDate: 0,
  };
}

const notFound = (name: unknown): Answer => [
  400,
  { __type: 'ParameterNotFound', message: `${String(name)} not found` },
];

/** Start the fake on a random loopback port. */
async function startFakeSsm(): Promise<FakeSsm> {
  const store = new Map<string, StoredParameter>();
  const calls: Record<string, number> = {};
  let limit: number | null = null;
  const pending = new Map<string, () => void>();
  /** When each call answered in the last second was received. */
  let window: number[] = [];
  let throttled = 0;
  let peakPerSecond = 0;

  /** Whether a call now is within the quota (and counts it if so), as a sliding one-second window. */
  function admit(): boolean {
    const now = performance.now();
    window = window.filter((t) => now - t < 1000);
    if (limit !== null && window.length >= limit) return false;
    window.push(now);
    peakPerSecond = Math.max(peakPerSecond, window.length);
    return true;
  }

  function put(input: Json): Answer {
    const name = String(input.Name ?? '');
    const value = input.Value;
    if (!name.startsWith('/') || typeof value !== 'string')
      return [400, { __type: 'ValidationException', message: 'expected a Name starting with / and a string Value' }];
    const previous = store.get(name);
    if (previous !== undefined && input.Overwrite !== true)
      return [400, { __type: 'ParameterAlreadyExists', message: `${name} already exists` }];
    // No Tier: the region's default (Standard), an existing parameter keeping its own.
    const asked = input.Tier ?? previous?.tier ?? 'Standard';
    if (asked === 'Standard' && previous?.tier === 'Advanced')
      return [400, { __type: 'ValidationException', message: TIER_REFUSALS.downgrade }];
    const tier: Tier =
      asked === 'Advanced' || previous?.tier === 'Advanced'
        ? 'Advanced'
        : asked === 'Intelligent-Tiering' && value.length > MAX_VALUE_CHARS.Standard
          ? 'Advanced'
          : 'Standard';
    if (value.length > MAX_VALUE_CHARS[tier])
      return [400, { __type: 'ValidationException', message: TIER_REFUSALS[tier] }];
    const version = (previous?.version ?? 0) + 1;
    store.set(name, { value, type: String(input.Type ?? previous?.type ?? 'String'), version, tier });
    return [200, { Version: version, Tier: tier }];
  }

  /** DescribeParameters by `Name` `Equals` filters (what the CLI asks): each parameter's metadata. */
  function describeParameters(input: Json): Answer {
    const filters = (input.ParameterFilters as Array<{ Key: string; Option?: string; Values: string[] }>) ?? [];
    if (filters.some((f) => f.Key !== 'Name' || (f.Option ?? 'Equals') !== 'Equals'))
      return [400, { __type: 'InvalidAction', message: 'the fake describes parameters by Name Equals only' }];
    const names = filters.flatMap((f) => f.Values).filter((n) => store.has(n));
    return [
      200,
      {
        Parameters: names.map((n) => {
          const stored = store.get(n) as StoredParameter;
          return { Name: n, Type: stored.type, Version: stored.version, Tier: stored.tier, DataType: 'text' };
        }),
      },
    ];
  }

  function byPath(input: Json): Answer {
    const path = `${String(input.Path).replace(/\/+$/, '')}/`;
    const names = [...store.keys()]
      .filter((n) => n.startsWith(path) && (input.Recursive === true || !n.slice(path.length).includes('/')))
      .sort();
    const start = Number(input.NextToken ?? 0);
    const size = Math.min(Number(input.MaxResults ?? MAX_PAGE), MAX_PAGE);
    const page = names.slice(start, start + size);
    const next = start + size < names.length ? { NextToken: String(start + size) } : {};
    return [200, { Parameters: page.map((n) => parameter(n, store.get(n) as StoredParameter)), ...next }];
  }

  function answer(op: string, input: Json): Answer {
    switch (op) {
      case 'GetParameter': {
        const stored = store.get(String(input.Name));
        return stored === undefined
          ? notFound(input.Name)
          : [200, { Parameter: parameter(String(input.Name), stored) }];
      }
      case 'GetParameters': {
        const names = (input.Names as string[]) ?? [];
        const found = names.filter((n) => store.has(n));
        return [
          200,
          {
            Parameters: found.map((n) => parameter(n, store.get(n) as StoredParameter)),
            InvalidParameters: names.filter((n) => !store.has(n)),
          },
        ];
      }
      case 'GetParametersByPath':
        return byPath(input);
      case 'PutParameter':
        return put(input);
      case 'DeleteParameter':
        return store.delete(String(input.Name)) ? [200, {}] : notFound(input.Name);
      case 'DeleteParameters': {
        const names = (input.Names as string[]) ?? [];
        if (names.length > 10)
          return [400, { __type: 'ValidationException', message: 'Member must have length less than or equal to 10' }];
        const deleted = names.filter((n) => store.delete(n));
        return [200, { DeletedParameters: deleted, InvalidParameters: names.filter((n) => !deleted.includes(n)) }];
      }
      case 'DescribeParameters':
        return describeParameters(input);
      default:
        return [400, { __type: 'InvalidAction', message: `${op} is not implemented by the fake` }];
    }
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const op = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSSM\./, '');
      calls[op] = (calls[op] ?? 0) + 1;
      let answered: Answer = [400, { __type: 'ThrottlingException', message: 'Rate exceeded' }];
      const act = pending.get(op);
      pending.delete(op);
      act?.();
      if (admit()) answered = answer(op, JSON.parse(Buffer.concat(chunks).toString() || '{}') as Json);
      else throttled++;
      const [status, body] = answered;
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    parameters: store,
    put: (name, value, type = 'String', tier = 'Standard') =>
      void store.set(name, { value, type, version: (store.get(name)?.version ?? 0) + 1, tier }),
    before: (op, act) => void pending.set(op, act),
    throttle: (callsPerSecond) => {
      limit = callsPerSecond;
    },
    get throttled() {
      return throttled;
    },
    get peakPerSecond() {
      return peakPerSecond;
    },
    reset: () => {
      for (const key of Object.keys(calls)) delete calls[key];
      throttled = 0;
      peakPerSecond = 0;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type { FakeSsm, StoredParameter };
export { startFakeSsm };
