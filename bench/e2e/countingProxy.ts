/**
 * A loopback reverse proxy that counts AWS API calls by operation before passing them on, so the
 * emulators (dynalite, fauxqs) report what the handler asked of them without being modified.
 * The operation is the `x-amz-target` suffix (JSON protocols) or the `Action` form field (query).
 */
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface CountingProxy {
  endpoint: string;
  readonly calls: Record<string, number>;
  reset(): void;
  stop(): Promise<void>;
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
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const op = operationOf(req.headers['x-amz-target'] as string | undefined, body);
      calls[op] = (calls[op] ?? 0) + 1;
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
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    reset: () => {
      for (const key of Object.keys(calls)) delete calls[key];
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
