/**
 * A fake SSM Parameter Store speaking awsJson1_1 on loopback (no npm emulator exists; see
 * toolchain.md 3c): GetParameter, GetParameters and GetParametersByPath with the real 10-per-page
 * pagination, so the handler's paging and caching are exercised. Counts every call by operation.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** GetParametersByPath returns at most 10 parameters a page, as the real service does. */
const MAX_PAGE = 10;

interface FakeSsm {
  endpoint: string;
  /** Calls per operation since start (or since `reset`). */
  readonly calls: Record<string, number>;
  put(name: string, value: string): void;
  reset(): void;
  stop(): Promise<void>;
}

type Json = Record<string, unknown>;

function parameter(name: string, value: string): Json {
  return { Name: name, Type: 'String', Value: value, Version: 1, DataType: 'text', LastModifiedDate: 0 };
}

/** Start the fake on a random loopback port. */
async function startFakeSsm(): Promise<FakeSsm> {
  const store = new Map<string, string>();
  const calls: Record<string, number> = {};

  function answer(op: string, input: Json): [number, Json] {
    switch (op) {
      case 'GetParameter': {
        const value = store.get(String(input.Name));
        if (value === undefined) return [400, { __type: 'ParameterNotFound', message: `${input.Name} not found` }];
        return [200, { Parameter: parameter(String(input.Name), value) }];
      }
      case 'GetParameters': {
        const names = (input.Names as string[]) ?? [];
        return [
          200,
          {
            Parameters: names.filter((n) => store.has(n)).map((n) => parameter(n, store.get(n) ?? '')),
            InvalidParameters: names.filter((n) => !store.has(n)),
          },
        ];
      }
      case 'GetParametersByPath': {
        const path = `${String(input.Path).replace(/\/+$/, '')}/`;
        const names = [...store.keys()]
          .filter((n) => n.startsWith(path) && (input.Recursive === true || !n.slice(path.length).includes('/')))
          .sort();
        const start = Number(input.NextToken ?? 0);
        const size = Math.min(Number(input.MaxResults ?? MAX_PAGE), MAX_PAGE);
        const page = names.slice(start, start + size);
        const next = start + size < names.length ? { NextToken: String(start + size) } : {};
        return [200, { Parameters: page.map((n) => parameter(n, store.get(n) ?? '')), ...next }];
      }
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
      const [status, body] = answer(op, JSON.parse(Buffer.concat(chunks).toString() || '{}') as Json);
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    put: (name, value) => void store.set(name, value),
    reset: () => {
      for (const key of Object.keys(calls)) delete calls[key];
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export { startFakeSsm };
