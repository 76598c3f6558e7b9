import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { LookupFunction } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchStatusPage } from '../../src/adapters/httpStatusSource.ts';
import type { FetchTarget } from '../../src/app/ports.ts';
import { type ApacheInstance, apacheSkipReason, startApache } from '../support/apache.ts';
import { ECHO_ROUTES, type EchoServer, leaksIn, startEchoServer } from '../support/echoServer.ts';
import {
  idleKeepAlive,
  type LoadHandle,
  lingeringClose,
  slowHeaders,
  slowReplies,
  tlsOfferSession,
  tlsResumptions,
} from '../support/load.ts';
import { startTinyChunkServer, type TinyChunkServer } from '../support/tinyChunks.ts';

// Every byte value once: a body that is not a report and not valid UTF-8.
const GARBAGE = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

/** Answers every request with the Authorization header it received (or `none`). */
const echoAuth = createServer((req, res) => res.end(req.headers.authorization ?? 'none'));
const echoPort = () => (echoAuth.address() as { port: number }).port;

/** The Authorization header the fault server's `/echo-auth` last received (null: none). */
let lastAuthorization: string | null = null;

/** Routes of the fault server; `port` is filled in once it listens. */
function faultServer(): { server: Server; port: () => number } {
  const server = createServer((req, res) => {
    const path = req.url ?? '';
    const port = (server.address() as { port: number }).port;
    if (path === '/hang') return; // never answers
    if (path === '/ok') return res.end('Scoreboard: W_K\n');
    if (path === '/not-found') {
      res.statusCode = 404;
      return res.end('<html><title>404 Not Found</title></html>');
    }
    if (path === '/garbage') return res.end(GARBAGE);
    if (path === '/big') return res.end(Buffer.alloc(2048, 0x61));
    if (path === '/big-chunked') {
      for (let i = 0; i < 4; i++) res.write(Buffer.alloc(512, 0x61));
      return res.end(Buffer.alloc(512, 0x61));
    }
    if (path === '/truncated') {
      res.writeHead(200, { 'content-length': '1000' });
      res.write(Buffer.alloc(100, 0x61));
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    if (path === '/stall-body') {
      res.writeHead(200, { 'content-length': '1000' });
      res.write(Buffer.alloc(10, 0x61));
      return; // the rest never comes
    }
    if (path === '/echo-auth') {
      lastAuthorization = req.headers.authorization ?? null;
      return res.end(req.headers.authorization ?? 'none');
    }
    const redirects: Record<string, string> = {
      '/cross-host': `http://localhost:${port}/ok`,
      '/same-host': '/same-host-2',
      '/same-host-2': `http://127.0.0.1:${port}/ok`,
      '/loop': '/loop',
      '/no-location': '',
      '/to-echo-auth': '/echo-auth',
      // Same host, other port: another origin, so no credentials.
      '/to-other-port': `http://127.0.0.1:${echoPort()}/echo-auth`,
      '/to-credentialed': `http://intruder:pw@127.0.0.1:${port}/echo-auth`,
    };
    const location = redirects[path];
    if (location !== undefined) {
      res.writeHead(302, location === '' ? {} : { location });
      return res.end();
    }
    res.statusCode = 500;
    res.end('unexpected path');
  });
  return { server, port: () => (server.address() as { port: number }).port };
}

describe('fetchStatusPage against small local servers', () => {
  const { server, port } = faultServer();
  let closedPort = 0;
  const target = (path: string, extra: Partial<FetchTarget> = {}): FetchTarget => ({
    name: 'local',
    url: `http://127.0.0.1:${port()}${path}`,
    timeoutMs: 2000,
    // Every server of these tests listens on loopback, which the address policy refuses by default.
    allowLoopback: true,
    ...extra,
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => echoAuth.listen(0, '127.0.0.1', resolve));
    // A port that was just free and is closed again: connections are refused.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
  });

  afterAll(async () => {
    server.closeAllConnections();
    echoAuth.closeAllConnections();
    await Promise.all([
      new Promise((resolve) => server.close(resolve)),
      new Promise((resolve) => echoAuth.close(resolve)),
    ]);
  });

  it.each([
    ['/ok', {}, 'Scoreboard: W_K\n', '/ok'],
    ['/same-host', {}, 'Scoreboard: W_K\n', '/ok'],
    ['/garbage', {}, GARBAGE.toString('latin1'), '/garbage'],
    ['/big', { maxBytes: 2048 }, 'a'.repeat(2048), '/big'],
  ])('GET %s %j is ok with the body decoded as latin1', async (path, extra, body, finalPath) => {
    // Act
    const result = await fetchStatusPage(target(path, extra));
    // Assess
    expect(result).toMatchObject({ ok: true, status: 200, body, url: `http://127.0.0.1:${port()}${finalPath}` });
  });

  it.each([
    [
      '/hang',
      { timeoutMs: 300 },
      'timeout',
      (h: string) => `timed out after 300 ms waiting for a response from ${h} - the server may be saturated`,
    ],
    [
      '/stall-body',
      { timeoutMs: 300 },
      'timeout',
      (h: string) =>
        `timed out after 300 ms reading the body from ${h} (10 bytes so far) - the server may be saturated`,
    ],
    [
      '/not-found',
      {},
      'http-status',
      (h: string) =>
        `HTTP 404 Not Found from ${h} - no status page at this path - is mod_status loaded and mapped with SetHandler server-status?`,
    ],
    [
      '/big',
      { maxBytes: 1024 },
      'too-large',
      (h: string) => `response from ${h} is larger than the 1024-byte cap - is this really a status page?`,
    ],
    [
      '/big-chunked',
      { maxBytes: 1024 },
      'too-large',
      (h: string) => `response from ${h} is larger than the 1024-byte cap - is this really a status page?`,
    ],
    [
      '/truncated',
      {},
      'network',
      (h: string) => `connection to ${h} closed after 100 of 1000 body bytes - the page is truncated`,
    ],
    [
      '/cross-host',
      {},
      'redirect',
      (h: string) =>
        `HTTP 302 from ${h} redirects to http://localhost:${h.split(':')[1]}/ok - only same-host redirects without https->http are followed; point the target at the final URL`,
    ],
    ['/loop', {}, 'redirect', (h: string) => `more than 3 redirects from ${h} - point the target at the final URL`],
    ['/no-location', {}, 'http-status', (h: string) => `HTTP 302 from ${h} without a Location header - expected 200`],
  ])('GET %s %j fails with reason %s', async (path, extra, reason, detail) => {
    // Act
    const result = await fetchStatusPage(target(path, extra));
    // Assess
    expect(result).toMatchObject({ ok: false, reason, detail: detail(`127.0.0.1:${port()}`) });
  });

  it('reports an abort by the caller as network', async () => {
    // Act
    const result = await fetchStatusPage(target('/hang'), { signal: AbortSignal.abort() });
    // Assess
    expect(result).toMatchObject({
      ok: false,
      reason: 'network',
      detail: `fetch from 127.0.0.1:${port()} aborted by the caller`,
    });
  });

  it('reports a closed port as refused', async () => {
    // Act
    const result = await fetchStatusPage({
      name: 'down',
      url: `http://127.0.0.1:${closedPort}/server-status`,
      allowLoopback: true,
    });
    // Assess
    expect(result).toMatchObject({
      ok: false,
      reason: 'refused',
      detail: `connection refused by 127.0.0.1:${closedPort} - Apache may be down or saturated`,
      url: `http://127.0.0.1:${closedPort}/server-status`,
    });
  });

  it('reports a name that does not resolve as dns (resolver injected, no network)', async () => {
    // Prepare
    const lookup: LookupFunction = (hostname, _options, callback) =>
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
    // Act
    const result = await fetchStatusPage({ name: 'typo', url: 'http://web-1.example.test/server-status' }, { lookup });
    // Assess
    expect(result).toMatchObject({
      ok: false,
      reason: 'dns',
      detail: 'cannot resolve the host of web-1.example.test (ENOTFOUND) - check the target URL',
    });
  });

  it.each([
    [
      'target.auth',
      'http://127.0.0.1:PORT/echo-auth',
      { auth: { username: 'ops', password: 'p@ss:word' } },
      'ops:p@ss:word',
    ],
    // The configuration refuses credentials in a URL; were one to get here, the fetcher sends nothing of it.
    ['URL userinfo: never', 'http://ops:p%40ss%3Aword@127.0.0.1:PORT/echo-auth', {}, null],
    [
      'target.auth beside URL userinfo: target.auth only',
      'http://url:s3cret@127.0.0.1:PORT/echo-auth',
      { auth: { username: 'ops', password: 'p@ss:word' } },
      'ops:p@ss:word',
    ],
  ])('sends basic auth from %s and never returns the password', async (_how, address, extra, sent) => {
    // Prepare
    const url = address.replace('PORT', String(port()));
    // Act
    const result = await fetchStatusPage({ ...target('/echo-auth'), ...extra, url });
    // Assess: what the server saw in its Authorization header, and its echo scrubbed
    expect(lastAuthorization).toBe(sent === null ? null : `Basic ${Buffer.from(sent).toString('base64')}`);
    expect(result).toMatchObject({ ok: true, body: sent === null ? 'none' : 'Basic ***' });
    expect(result.url).toBe(`http://127.0.0.1:${port()}/echo-auth`);
  });

  // The echo of the token these credentials make, scrubbed: another token would show.
  const BASIC = 'Basic ***';

  it.each([
    [
      'a redirect on the same origin keeps them',
      '/to-echo-auth',
      { auth: { username: 'ops', password: 's3cret' } },
      BASIC,
    ],
    ['URL userinfo, same origin: never used', '/to-echo-auth', {}, 'none'],
    [
      'a redirect to another port of the same host drops them',
      '/to-other-port',
      { auth: { username: 'ops', password: 's3cret' } },
      'none',
    ],
    ['URL userinfo, another port', '/to-other-port', {}, 'none'],
    ['credentials in a Location are never used', '/to-credentialed', { auth: undefined }, 'none'],
  ])('Authorization only for the configured origin: %s', async (_how, path, extra, expected) => {
    // Prepare: credentials in target.auth, or in the URL when extra has no auth key
    const url = 'auth' in extra ? target(path).url : `http://ops:s3cret@127.0.0.1:${port()}${path}`;
    // Act
    const result = await fetchStatusPage({ ...target(path), ...extra, url });
    // Assess
    expect(result).toMatchObject({ ok: true, body: expected });
  });

  it.each(['/hang', '/not-found', '/big', '/cross-host', '/loop', '/no-location', '/garbage', '/to-other-port'])(
    'never returns the password of a credentialed URL (%s)',
    async (path) => {
      const url = `http://ops:s3cret@127.0.0.1:${port()}${path}`;
      const result = await fetchStatusPage({ ...target(path, { timeoutMs: 300, maxBytes: 1024 }), url });
      expect(JSON.stringify(result)).not.toContain('s3cret');
      expect(result.url).not.toContain('ops:');
    },
  );

  it('rejects a URL that is not http(s) without throwing', async () => {
    // Act
    const result = await fetchStatusPage({ name: 'bad', url: 'ftp://127.0.0.1/server-status' });
    // Assess
    expect(result).toMatchObject({
      ok: false,
      reason: 'network',
      detail: 'expected an http:// or https:// URL for target "bad", found an invalid one (unsupported protocol ftp:)',
    });
  });
});

describe('fetchStatusPage against a server that echoes the request', () => {
  const credentials = { username: 'ops', password: 'pa55:w@rd/correct horse battery' };
  let echo: EchoServer;
  const fetchEcho = (path: string) =>
    fetchStatusPage({
      name: 'echo',
      url: `${echo.origin}${path}`,
      auth: credentials,
      timeoutMs: 2000,
      allowLoopback: true,
    });

  beforeAll(async () => {
    echo = await startEchoServer();
  });
  afterAll(async () => {
    await echo.stop();
  });

  it.each(ECHO_ROUTES)('returns no form of the credentials (%s)', async (path) => {
    // Act
    const result = await fetchEcho(path);
    // Assess
    expect(leaksIn(JSON.stringify(result), credentials)).toEqual([]);
  });

  it.each([
    [
      '/echo',
      { ok: true, status: 200, contentType: 'text/plain; charset=ISO-8859-1; echo=***', url: '/echo' },
      ['authorization: Basic ***\n', 'url: /echo\n'],
    ],
    ['/echo-cut', { ok: true, status: 200, url: '/echo-cut' }, ['authorization: Basic ***\n']],
    [
      '/to-echo',
      { ok: true, status: 200, url: '/echo?auth=***' },
      ['authorization: Basic ***\n', 'url: /echo?auth=***\n'],
    ],
  ])('scrubs the body, the content type and the final URL (%s)', async (path, expected, lines) => {
    // Act
    const result = await fetchEcho(path);
    // Assess
    expect(result).toMatchObject({ ...expected, url: `${echo.origin}${expected.url}` });
    for (const line of lines) expect(result.ok && result.body).toContain(line);
  });

  it.each([
    [
      '/echo-500',
      'http-status',
      (h: string) => `HTTP 500 Internal Server Error from ${h} - the server failed - check its error log`,
    ],
    [
      '/echo-401',
      'http-status',
      (h: string) =>
        `HTTP 401 Unauthorized from ${h} - the credentials sent were refused - check the status page's user and password`,
    ],
    [
      '/away',
      'redirect',
      (h: string) =>
        `HTTP 302 from ${h} redirects to http://localhost:${h.split(':')[1]}/echo?auth=*** - only same-host redirects without https->http are followed; point the target at the final URL`,
    ],
  ])('scrubs the failure detail (%s)', async (path, reason, detail) => {
    // Act
    const result = await fetchEcho(path);
    // Assess
    expect(result).toMatchObject({ ok: false, reason, detail: detail(new URL(echo.origin).host) });
  });
});

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MiB = 1024 * 1024;

/** One fetch in a fresh child (`test/support/fetchPeak.ts`): its outcome and the peak RSS it added. */
async function fetchInChild(url: string, maxBytes: number): Promise<{ reason: string | null; peakAddedMB: number }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', 'test/support/fetchPeak.ts', url, String(maxBytes), '20000'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return JSON.parse(stdout);
}

describe('fetchStatusPage against a server that sends tiny chunks', () => {
  const servers: TinyChunkServer[] = [];
  const serve = async (...args: Parameters<typeof startTinyChunkServer>) => {
    const server = await startTinyChunkServer(...args);
    servers.push(server);
    return server;
  };

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  // Every byte value, in an order that does not repeat within a chunk.
  const page = Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 7 + (i >> 8)) & 0xff));

  it.each([
    [1, 1000],
    [3, 3000],
    [7, page.length],
    [1000, page.length],
  ])('returns a page of %i-byte chunks (%i bytes) byte for byte', async (chunkBytes, bytes) => {
    // Prepare
    const body = page.subarray(0, bytes);
    const server = await serve({ body, chunkBytes });
    // Act
    const result = await fetchStatusPage({ name: 'chunks', url: server.url, timeoutMs: 10_000, allowLoopback: true });
    // Assess
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(result.ok && Buffer.from(result.body, 'latin1').equals(body)).toBe(true);
  });

  it('refuses 20 MiB offered as 1-byte chunks after maxBytes / 64 pieces, not maxBytes', async () => {
    // Prepare
    const server = await serve({ body: Buffer.alloc(64 * 1024, 'W'), chunkBytes: 1, repeat: 320 });
    // Act
    const result = await fetchStatusPage({
      name: 'trickle',
      url: server.url,
      maxBytes: MiB,
      timeoutMs: 10_000,
      allowLoopback: true,
    });
    // Assess
    const host = new URL(server.url).host;
    expect(result).toMatchObject({
      ok: false,
      reason: 'too-large',
      detail: `response from ${host} came in more than 16384 pieces (16385 bytes so far, under 64 bytes a piece) - is this really a status page?`,
    });
  });

  // The peak is read in a fresh child: a list of chunks kept 400 bytes and more per 1-byte chunk
  // (about 400 MB at a 1 MiB cap); one buffer doubled up to the cap keeps a small multiple of it.
  it.each([
    ['1-byte chunks, 1 MiB cap', 1, MiB, 24],
    ['128-byte chunks, 4 MiB cap', 128, 4 * MiB, 40],
  ])('keeps the memory of a fetch of 20 MiB offered as %s bounded', async (_case, chunkBytes, maxBytes, boundMB) => {
    // Prepare
    const server = await serve({ body: Buffer.alloc(64 * 1024, 'W'), chunkBytes, repeat: 320 });
    // Act
    const { reason, peakAddedMB } = await fetchInChild(server.url, maxBytes);
    // Assess
    expect(reason).toBe('too-large');
    expect(peakAddedMB).toBeLessThan(boundMB);
  });
});

const skip = apacheSkipReason();

describe.skipIf(skip !== null)(`fetchStatusPage against a real Apache${skip ? ` (SKIPPED: ${skip})` : ''}`, () => {
  const credentials = { username: 'ops', password: 'n0t-in-any-detail' };
  let prefork: ApacheInstance;
  let event: ApacheInstance;
  const loads: LoadHandle[] = [];

  beforeAll(async () => {
    [prefork, event] = await Promise.all([
      startApache({ mpm: 'prefork' }),
      startApache({ mpm: 'event', statusAuth: credentials }),
    ]);
  });

  afterAll(async () => {
    await Promise.all(loads.map((l) => l.stop()));
    await Promise.all([prefork?.stop(), event?.stop()]);
  });

  it.each([
    [
      'prefork',
      '',
      'text/html; charset=ISO-8859-1',
      ['<title>Apache Status</title>', 'Server MPM: prefork', 'Scoreboard Key'],
    ],
    ['prefork', '?auto', 'text/plain; charset=ISO-8859-1', ['ServerMPM: prefork', 'Scoreboard: ', 'CacheType: SHMCB']],
    [
      'event',
      '',
      'text/html; charset=ISO-8859-1',
      ['<title>Apache Status</title>', 'Server MPM: event', 'Scoreboard Key'],
    ],
    ['event', '?auto', 'text/plain; charset=ISO-8859-1', ['ServerMPM: event', 'Scoreboard: ', 'ConnsTotal: ']],
  ])('fetches the %s report%s', async (mpm, query, contentType, markers) => {
    // Prepare
    const apache = mpm === 'prefork' ? prefork : event;
    const auth = apache.statusAuth ?? undefined;
    // Act
    const result = await fetchStatusPage({
      name: mpm,
      url: `${apache.httpUrl}/server-status${query}`,
      auth,
      allowLoopback: true,
    });
    // Assess
    expect(result).toMatchObject({ ok: true, status: 200, contentType });
    for (const marker of markers) expect(result.ok && result.body).toContain(marker);
  });

  it.each([
    [
      'no credentials, which it asks for',
      undefined,
      'the status page asks for credentials and none were sent - give them (an auth parameter, --auth-file or HTTPD_STATUS_AUTH_FILE)',
    ],
    [
      'a wrong password, which it says was refused',
      { username: 'ops', password: 'wrong' },
      "the credentials sent were refused - check the status page's user and password",
    ],
  ])('gets 401 with %s', async (_case, auth, hint) => {
    // Act
    const result = await fetchStatusPage({
      name: 'event',
      url: `${event.httpUrl}/server-status?auto`,
      auth,
      allowLoopback: true,
    });
    // Assess
    expect(result).toMatchObject({
      ok: false,
      reason: 'http-status',
      status: 401,
      detail: `HTTP 401 Unauthorized from 127.0.0.1:${event.httpPort} - ${hint}`,
    });
  });

  it.each([
    ['with the test CA', true, { ok: true, status: 200 }],
    ['without it', false, { ok: false, reason: 'tls' }],
  ])('fetches over HTTPS %s', async (_case, withCa, expected) => {
    // Act
    const result = await fetchStatusPage({
      name: 'event-tls',
      url: `${event.httpsUrl}/server-status?auto`,
      auth: credentials,
      allowLoopback: true,
      ...(withCa ? { ca: event.caPem } : {}),
    });
    // Assess
    expect(result).toMatchObject(expected);
    expect(JSON.stringify(result)).not.toContain(credentials.password);
    if (!result.ok) {
      expect(result.detail).toBe(
        `TLS with 127.0.0.1:${event.httpsPort} failed: unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE) - check the certificate or the target's CA bundle`,
      );
    }
  });

  it('sees W, K, C and R on the prefork scoreboard while load runs', async () => {
    // Prepare: 3 sleeping CGIs (W), 3 idle keep-alives (K), 3 lingering closes (C), 2 slow headers (R).
    const t = { port: prefork.httpPort };
    const running = [
      slowReplies(t, { count: 3, seconds: 6 }),
      idleKeepAlive(t, { count: 3, durationMs: 6000 }),
      lingeringClose(t, { count: 3, durationMs: 6000 }),
      slowHeaders(t, { count: 2, durationMs: 6000 }),
    ];
    loads.push(...running);
    const counts = (board: string) => ({
      W: board.split('W').length - 1,
      K: board.split('K').length - 1,
      C: board.split('C').length - 1,
      R: board.split('R').length - 1,
    });
    // Act: poll ?auto until every load shows up (bounded: 25 polls, 200 ms apart).
    let seen = { W: 0, K: 0, C: 0, R: 0 };
    for (let i = 0; i < 25; i++) {
      const result = await fetchStatusPage({
        name: 'prefork',
        url: `${prefork.httpUrl}/server-status?auto`,
        allowLoopback: true,
      });
      seen = counts(result.ok ? (/^Scoreboard: (.*)$/m.exec(result.body)?.[1] ?? '') : '');
      if (seen.W >= 4 && seen.K >= 3 && seen.C >= 3 && seen.R >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const stats = await Promise.all(running.map((l) => l.stop()));
    // Assess: the status request itself is one more W.
    expect(seen.W).toBeGreaterThanOrEqual(4);
    expect(seen.K).toBeGreaterThanOrEqual(3);
    expect(seen.C).toBeGreaterThanOrEqual(3);
    expect(seen.R).toBeGreaterThanOrEqual(2);
    expect(stats.map((s) => [s.opened, s.closed])).toEqual([
      [3, 3],
      [3, 3],
      [3, 3],
      [2, 2],
    ]);
  });

  it('counts TLS session cache hits and misses in ?auto', async () => {
    // Prepare: a session from the event instance is unknown to the prefork one.
    const foreign = await tlsResumptions({ port: event.httpsPort, ca: event.caPem, resumptions: 1 });
    // Act
    const hits = await tlsResumptions({ port: prefork.httpsPort, ca: prefork.caPem, resumptions: 5 });
    const misses = await tlsOfferSession({
      port: prefork.httpsPort,
      ca: prefork.caPem,
      session: foreign.session,
      attempts: 3,
    });
    const result = await fetchStatusPage({
      name: 'prefork',
      url: `${prefork.httpUrl}/server-status?auto`,
      allowLoopback: true,
    });
    // Assess
    expect({ hitsResumed: hits.resumed, missesResumed: misses.resumed }).toEqual({ hitsResumed: 5, missesResumed: 0 });
    const counter = (key: string) => Number(result.ok && new RegExp(`^${key}: (\\d+)$`, 'm').exec(result.body)?.[1]);
    expect(counter('CacheRetrieveHitCount')).toBeGreaterThanOrEqual(5);
    expect(counter('CacheRetrieveMissCount')).toBeGreaterThanOrEqual(3);
  });
});
