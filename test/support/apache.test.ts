import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApacheInstance, apacheSkipReason, startApache } from './apache.ts';
import { idleKeepAlive, slowReplies, tlsOfferSession, tlsResumptions } from './load.ts';

interface Got {
  status: number;
  body: string;
}

/** One GET on loopback, no pooling; `tls` adds SNI and the CA. */
function get(port: number, path: string, host: string, tls?: { ca: string }): Promise<Got> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path, headers: { host }, agent: false, timeout: 5000 } as const;
    const req = tls ? httpsRequest({ ...options, ca: tls.ca, servername: host }) : httpRequest(options);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

const skip = apacheSkipReason();

describe.skipIf(skip !== null)(`startApache${skip ? ` (SKIPPED: ${skip})` : ''}`, () => {
  let prefork: ApacheInstance;
  let event: ApacheInstance;

  beforeAll(async () => {
    // Two at once: separate dirs, ports, pid files, locks and caches.
    [prefork, event] = await Promise.all([
      startApache({ mpm: 'prefork' }),
      startApache({ mpm: 'event', extendedStatus: false, sessionCacheTimeoutSecs: 1 }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([prefork?.stop(), event?.stop()]);
  });

  it('runs two instances on distinct loopback ports', () => {
    // Assess
    const ports = new Set([prefork.httpPort, prefork.httpsPort, event.httpPort, event.httpsPort]);
    expect(ports.size).toBe(4);
    expect(prefork.dir).not.toBe(event.dir);
  });

  it.each([
    ['prefork', 'ServerMPM: prefork', true],
    ['event', 'ServerMPM: event', false],
  ])('serves ?auto for %s with ExtendedStatus as configured', async (mpm, line, extended) => {
    // Act
    const got = await get(mpm === 'prefork' ? prefork.httpPort : event.httpPort, '/server-status?auto', 'localhost');
    // Assess
    expect(got.status).toBe(200);
    expect(got.body.split('\n')).toContain(line);
    expect(got.body.includes('\nTotal Accesses: ')).toBe(extended);
  });

  it.each(['www.example.test', 'api.example.test', 'static.example.test'])(
    'routes the name-based vhost %s over HTTP and HTTPS (SNI)',
    async (vhost) => {
      // Act
      const plain = await get(prefork.httpPort, '/', vhost);
      const secure = await get(prefork.httpsPort, '/', vhost, { ca: prefork.caPem });
      // Assess
      expect(plain).toEqual({ status: 200, body: `<html><body>${vhost}</body></html>\n` });
      expect(secure).toEqual(plain);
    },
  );

  it.each([
    ['/cgi-bin/sleep.cgi?1', 'slept 1\n'],
    ['/cgi-bin/drip.cgi?2', 'line 0\nline 1\n'],
  ])('runs the slow CGI %s', async (path, body) => {
    // Act
    const got = await get(event.httpPort, path, 'www.example.test');
    // Assess
    expect(got).toEqual({ status: 200, body });
  });

  it('misses the TLS session cache once a session expired (SSLSessionCacheTimeout 1)', async () => {
    // Prepare
    const first = await tlsResumptions({ port: event.httpsPort, ca: event.caPem, resumptions: 1 });
    // Act: wait past the 1 s timeout (expiry has one-second granularity), then offer the session.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const late = await tlsOfferSession({ port: event.httpsPort, ca: event.caPem, session: first.session, attempts: 1 });
    const auto = await get(event.httpPort, '/server-status?auto', 'localhost');
    // Assess
    expect([first.resumed, late.resumed]).toEqual([1, 0]);
    expect(auto.body).toMatch(/^CacheRetrieveHitCount: 1$/m);
    expect(auto.body).toMatch(/^CacheRetrieveMissCount: 1$/m);
  });
});

describe.skipIf(skip !== null)(`ApacheInstance.stop${skip ? ` (SKIPPED: ${skip})` : ''}`, () => {
  it('kills the server, its children and its CGIs under load, and removes the temp dir', async () => {
    // Prepare
    const apache = await startApache({ mpm: 'prefork' });
    const loads = [
      slowReplies({ port: apache.httpPort }, { count: 2, seconds: 20 }),
      idleKeepAlive({ port: apache.httpPort }, { count: 2, durationMs: 20_000 }),
    ];
    await get(apache.httpPort, '/server-status?auto', 'localhost');
    // Act
    await apache.stop();
    await apache.stop(); // idempotent
    const stats = await Promise.all(loads.map((l) => l.done));
    // Assess
    expect(() => process.kill(-apache.pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    expect(existsSync(apache.dir)).toBe(false);
    await expect(get(apache.httpPort, '/', 'localhost')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(stats.map((s) => s.closed)).toEqual([2, 2]);
  });
});

describe('load generator bounds', () => {
  it.each([
    [0, 1000, 'expected count to be an integer from 1 to 64, found 0'],
    [65, 1000, 'expected count to be an integer from 1 to 64, found 65'],
    [1, 30_001, 'expected durationMs in (0, 30000], found 30001'],
  ])('refuses count %i for %i ms', (count, durationMs, message) => {
    // Act + Assess
    expect(() => idleKeepAlive({ port: 1 }, { count, durationMs })).toThrow(new RangeError(message));
  });
});
