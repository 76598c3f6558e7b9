/**
 * A loopback reverse proxy that counts AWS API calls by operation before passing them on, so the
 * emulators (dynalite, fauxqs) report what the handler asked of them without being modified.
 * The operation is the `x-amz-target` suffix (JSON protocols) or the `Action` form field (query).
 * For DynamoDB it also asks for `ReturnConsumedCapacity: TOTAL` and adds up the capacity units
 * dynalite reports (item sizes and consistency included), which is what on-demand mode bills.
 * (dynalite does not check signatures, so adding the field to a signed body is harmless here.)
 */
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** DynamoDB operations billed as reads; the other capacity-consuming ones are writes. */
const READ_OPERATIONS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);

interface CountingProxy {
  endpoint: string;
  readonly calls: Record<string, number>;
  /** DynamoDB capacity units consumed since start (or `reset`). */
  readonly capacity: { read: number; write: number };
  reset(): void;
  stop(): Promise<void>;
}

/** The request body with `ReturnConsumedCapacity: TOTAL` added, for DynamoDB's JSON operations. */
function withCapacity(target: string | undefined, body: Buffer): Buffer {
  if (target === undefined || !target.startsWith('DynamoDB_')) return body;
  const input = JSON.parse(body.toString() || '{}') as Record<string, unknown>;
  if (input.ReturnConsumedCapacity !== undefined) return body;
  return Buffer.from(JSON.stringify({ ...input, ReturnConsumedCapacity: 'TOTAL' }));
}

/** Capacity units in a DynamoDB response: one object, or one per table for batch operations. */
function unitsOf(response: Buffer): number {
  try {
    const consumed = (JSON.parse(response.toString()) as { ConsumedCapacity?: unknown }).ConsumedCapacity;
    const list = (Array.isArray(consumed) ? consumed : consumed === undefined ? [] : [consumed]) as Array<{
      CapacityUnits?: number;
    }>;
    return list.reduce((total, c) => total + (c.CapacityUnits ?? 0), 0);
  } catch {
    return 0;
  }
}

function operationOf(target: string | undefined, body: Buffer): string {
  if (target !== undefined) return target.slice(target.lastIndexOf('.') + 1);
  return new URLSearchParams(body.toString()).get('Action') ?? 'unknown';
}

/** Proxy `upstream` (an `http://127.0.0.1:port` endpoint) on a random loopback port. */
async function startCountingProxy(upstream: string): Promise<CountingProxy> {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const calls: Record<string, number> = {};
  const capacity = { read: 0, write: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const amzTarget = req.headers['x-amz-target'] as string | undefined;
      const body = withCapacity(amzTarget, Buffer.concat(chunks));
      const op = operationOf(amzTarget, body);
      calls[op] = (calls[op] ?? 0) + 1;
      const headers = { ...req.headers, 'content-length': String(body.length) };
      const out = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent },
        (upstreamRes) => {
          const parts: Buffer[] = [];
          upstreamRes.on('data', (c: Buffer) => parts.push(c));
          upstreamRes.on('end', () => {
            const response = Buffer.concat(parts);
            if (amzTarget?.startsWith('DynamoDB_'))
              capacity[READ_OPERATIONS.has(op) ? 'read' : 'write'] += unitsOf(response);
            res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
            res.end(response);
          });
        },
      );
      out.on('error', (error) => {
        res.writeHead(502);
        res.end(error.message);
      });
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    capacity,
    reset: () => {
      for (const key of Object.keys(calls)) delete calls[key];
      capacity.read = 0;
      capacity.write = 0;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export { startCountingProxy };
