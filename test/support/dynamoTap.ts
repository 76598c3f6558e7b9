/**
 * A loopback proxy in front of dynalite that counts the writes a process makes and can stop the
 * world at a chosen request: the hook sees each request's operation and body and may answer
 * `kill`, which runs `onKill` (the test kills the Lambda process there) and drops the request,
 * so the function dies between two DynamoDB calls as a crashed or timed-out Lambda would.
 */
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

interface DynamoTap {
  endpoint: string;
  /** Write requests seen since the last `resetWrites`. */
  writes(): number;
  resetWrites(): void;
  /** Decide per request; `kill` drops it after calling `onKill`. */
  hook: ((operation: string, body: string) => 'pass' | 'kill') | null;
  onKill: () => void;
  stop(): Promise<void>;
}

async function startDynamoTap(upstream: string): Promise<DynamoTap> {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let writes = 0;
  const tap: DynamoTap = {
    endpoint: '',
    writes: () => writes,
    resetWrites: () => {
      writes = 0;
    },
    hook: null,
    onKill: () => {},
    stop: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const header = String(req.headers['x-amz-target'] ?? '');
      const operation = header.slice(header.lastIndexOf('.') + 1);
      if (tap.hook?.(operation, body.toString('utf8')) === 'kill') {
        tap.onKill();
        req.socket.destroy();
        return;
      }
      if (WRITES.has(operation)) writes++;
      const out = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
        (upstreamRes) => {
          res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
          upstreamRes.pipe(res);
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
  tap.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  tap.stop = () =>
    new Promise<void>((resolve) => {
      agent.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return tap;
}

export type { DynamoTap };
export { startDynamoTap };
