/**
 * A loopback server that echoes the request it received, as debug endpoints and some proxies' and
 * WAFs' error pages do: the Authorization header (so the Basic token) lands in the body, in a
 * header and in a Location. Routes:
 *
 * - `/echo`: 200 `text/plain`, the request's headers and URL as lines; the token in `content-type` too;
 * - `/echo-cut`: the same with the token cut after 40 characters (a proxy's log line);
 * - `/echo-500`, `/echo-401`: the echo with that status;
 * - `/to-echo`: 302 to `/echo?auth=<token>` (same host: followed);
 * - `/away`: 302 to `http://localhost:<port>/echo?auth=<token>` (another host: refused, named in the detail).
 *
 * `leaksIn` says which forms of the credentials a text still holds, read by decoding as an
 * attacker would, not by the scrubber's rules.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const ECHO_ROUTES = ['/echo', '/echo-cut', '/echo-500', '/echo-401', '/to-echo', '/away'] as const;
type EchoRoute = (typeof ECHO_ROUTES)[number];

interface EchoServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  stop(): Promise<void>;
}

function echoLines(req: IncomingMessage, authorization: string): string {
  const lines = [`authorization: ${authorization}`, `url: ${req.url}`];
  for (const [name, value] of Object.entries(req.headers))
    if (name !== 'authorization') lines.push(`${name}: ${value}`);
  return `${lines.join('\n')}\n`;
}

function answer(req: IncomingMessage, res: ServerResponse, port: number): void {
  const authorization = req.headers.authorization ?? 'none';
  const token = authorization.replace(/^Basic /, '');
  const path = (req.url ?? '').replace(/\?.*$/, '');
  if (path === '/to-echo' || path === '/away') {
    const base = path === '/away' ? `http://localhost:${port}` : '';
    res.writeHead(302, { location: `${base}/echo?auth=${token}` });
    res.end();
    return;
  }
  const status = path === '/echo-500' ? 500 : path === '/echo-401' ? 401 : 200;
  const shown = path === '/echo-cut' ? authorization.slice(0, 'Basic '.length + 40) : authorization;
  res.writeHead(status, {
    'content-type': `text/plain; charset=ISO-8859-1; echo=${token}`,
    ...(status === 401 ? { 'www-authenticate': 'Basic realm="status"' } : {}),
  });
  res.end(echoLines(req, shown));
}

async function startEchoServer(): Promise<EchoServer> {
  const server = createServer((req, res) => answer(req, res, (server.address() as { port: number }).port));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Password bytes a piece `[a, b)` of the token gives away: decoded with two fillers, only the bytes both agree on. */
function bytesGivenAway(sent: Buffer, passwordStart: number, a: number, b: number): number {
  const token = sent.toString('base64');
  const decode = (filler: string) => Buffer.from(filler.repeat(a % 4) + token.slice(a, b), 'base64');
  const [one, other] = [decode('A'), decode('/')];
  const first = Math.floor(a / 4) * 3;
  let count = 0;
  for (let i = 0; i < one.length; i++) {
    const at = first + i;
    if (at >= passwordStart && at < sent.length && one[i] === other[i] && one[i] === sent[at]) count++;
  }
  return count;
}

/**
 * What must appear nowhere: the password, the token, the shortest prefix and the shortest suffix of
 * the token that give away more than half of the password (a longer one holds them).
 */
function secretsOf(credentials: { username: string; password: string }): Record<string, string> {
  const sent = Buffer.from(`${credentials.username}:${credentials.password}`);
  const token = sent.toString('base64');
  const passwordStart = Buffer.byteLength(`${credentials.username}:`);
  const half = Buffer.byteLength(credentials.password) / 2;
  let prefix = token;
  for (let b = 1; b <= token.length; b++) {
    if (bytesGivenAway(sent, passwordStart, 0, b) > half) {
      prefix = token.slice(0, b);
      break;
    }
  }
  let suffix = token;
  for (let a = token.length - 1; a >= 0; a--) {
    if (bytesGivenAway(sent, passwordStart, a, token.length) > half) {
      suffix = token.slice(a);
      break;
    }
  }
  return { password: credentials.password, token, prefix, suffix };
}

/** The names of the secrets of `credentials` that `text` holds (none: `[]`). */
function leaksIn(text: string, credentials: { username: string; password: string }): string[] {
  return Object.entries(secretsOf(credentials))
    .filter(([, secret]) => text.includes(secret))
    .map(([name]) => name);
}

export type { EchoRoute, EchoServer };
export { ECHO_ROUTES, leaksIn, secretsOf, startEchoServer };
