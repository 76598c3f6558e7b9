/**
 * Status pages served at the instances' own loopback addresses (127.0.0.2, 127.0.0.3, ...: Linux
 * routes all of 127/8 to loopback), all on one port, so that a discovered target's URL
 * `http://{{privateIp}}:<port>/server-status` reaches a real server per instance. An instance's
 * server can be stopped (it refuses connections, as a terminated instance's address does).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface InstancePages {
  /** The port every instance's server listens on. */
  port: number;
  /** Serve `body` at `address` (HTML when it starts with `<`); a server already there changes its page. */
  serve(address: string, body: string): Promise<void>;
  /** Stop the server at `address`: connections are refused from now on. */
  stop(address: string): Promise<void>;
  stopAll(): Promise<void>;
}

function close(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve()); // called with an error when already closed: stopped all the same
  });
}

/** Servers on one port chosen by the first bind (127.0.0.2), one more per address served. */
async function startInstancePages(): Promise<InstancePages> {
  const servers = new Map<string, Server>();
  const bodies = new Map<string, string>();
  const listen = async (address: string, port: number): Promise<Server> => {
    const server = createServer((_req, res) => {
      const body = bodies.get(address) ?? '';
      res.writeHead(200, { 'content-type': body.startsWith('<') ? 'text/html' : 'text/plain' }).end(body);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, address, resolve);
    });
    servers.set(address, server);
    return server;
  };
  const first = await listen('127.0.0.2', 0);
  const port = (first.address() as AddressInfo).port;
  return {
    port,
    async serve(address, body) {
      bodies.set(address, body);
      if (!servers.has(address)) await listen(address, port);
    },
    async stop(address) {
      const server = servers.get(address);
      servers.delete(address);
      if (server !== undefined) await close(server);
    },
    stopAll: () => Promise.all([...servers.values()].map(close)).then(() => servers.clear()),
  };
}

export type { InstancePages };
export { startInstancePages };
