/**
 * The CLI with its real outside world: files and standard input under the size cap, and fetches
 * from a loopback HTTPS server with a self-signed certificate and basic auth.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { rm, truncate, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { createNodeIo, readCapped } from '../../src/cli/nodeIo.ts';

const REPORT = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-busy/report.auto.txt', import.meta.url));
const PASSWORD = 's3cret-Pa55';

// Made now: the test tables below name files in it.
const dir = mkdtempSync(join(tmpdir(), 'cli-io-'));
let server: Server;
let base: string;
/** Everything every run in this file wrote, searched for the password at the end. */
const written: string[] = [];

beforeAll(async () => {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'ca.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  await writeFile(join(dir, 'auth'), `ops:${PASSWORD}\n`);
  await writeFile(join(dir, 'wrong-auth'), 'ops:guess\n');
  const expected = `Basic ${Buffer.from(`ops:${PASSWORD}`).toString('base64')}`;
  server = createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'ca.pem')) },
    (req, res) => {
      if (req.url === '/slow') return; // never answers
      if (req.url !== '/server-status?auto') return void res.writeHead(404).end('Not Found');
      if (req.headers.authorization !== expected)
        return void res.writeHead(401, { 'www-authenticate': 'Basic realm="status"' }).end('Unauthorized');
      res.writeHead(200, { 'content-type': 'text/plain; charset=ISO-8859-1' }).end(REPORT);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
  expect(written.join('')).not.toContain(PASSWORD);
});

async function run(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { ...createNodeIo('0.0.0'), env, stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) };
  const code = await main(args, io);
  written.push(...out, ...err);
  return { code, out: out.join(''), err: err.join('') };
}

describe('the CLI against a loopback HTTPS server with a self-signed certificate and basic auth', () => {
  const url = () => `${base}/server-status?auto`;
  const ca = () => ['--ca-file', join(dir, 'ca.pem')];

  it.each([
    ['--ca-file and --auth-file', () => [...ca(), '--auth-file', join(dir, 'auth')], {}],
    ['--ca-file and $HTTPD_STATUS_AUTH_FILE', () => ca(), { HTTPD_STATUS_AUTH_FILE: join(dir, 'auth') }],
    [
      '--auth-file over $HTTPD_STATUS_AUTH_FILE',
      () => [...ca(), '--auth-file', join(dir, 'auth')],
      { HTTPD_STATUS_AUTH_FILE: join(dir, 'wrong-auth') },
    ],
  ])('parse reads the page with %s', async (_, args, env) => {
    const { code, out, err } = await run(['parse', url(), '--json', ...args()], env as Record<string, string>);
    expect([code, err]).toEqual([0, '']);
    expect(JSON.parse(out).server.busyWorkers).toBe(29);
  });

  it('parse refuses user:password in the URL, pointing to --auth-file, never showing the password', async () => {
    const withUser = url().replace('https://', `https://ops:${PASSWORD}@`);
    const { code, out, err } = await run(['parse', withUser, ...ca()]);
    expect([code, out]).toEqual([2, '']);
    expect(err.split('\n')[0]).toBe(
      `parse: expected a URL without credentials (put "user:password" in a file named by --auth-file), found ${withUser.replace(PASSWORD, '***')}`,
    );
    expect(err).not.toContain(PASSWORD);
  });

  it.each([
    [
      'no --ca-file',
      () => ['--auth-file', join(dir, 'auth')],
      /^parse: https:\/\/127\.0\.0\.1:\d+\/server-status\?auto: tls: TLS with 127\.0\.0\.1:\d+ failed: self-signed certificate/,
    ],
    [
      'no credentials',
      () => ca(),
      /: http-status: HTTP 401 Unauthorized from 127\.0\.0\.1:\d+ - the status page asks for credentials and none were sent - give them \(an auth parameter, --auth-file or HTTPD_STATUS_AUTH_FILE\)$/,
    ],
    [
      'wrong credentials',
      () => [...ca(), '--auth-file', join(dir, 'wrong-auth')],
      /: http-status: HTTP 401 Unauthorized/,
    ],
    [
      '--max-bytes below the page',
      () => [...ca(), '--auth-file', join(dir, 'auth'), '--max-bytes', '1KiB'],
      /: too-large: response from 127\.0\.0\.1:\d+ is larger than the 1024-byte cap/,
    ],
    [
      'a missing auth file',
      () => [...ca(), '--auth-file', join(dir, 'nope')],
      /: cannot read the credentials file .*nope: ENOENT/,
    ],
  ])('parse fails with one line with %s (exit 1)', async (_, args, message) => {
    const { code, out, err } = await run(['parse', url(), ...args()]);
    expect([code, out]).toEqual([1, '']);
    expect(err.split('\n')).toHaveLength(2);
    expect(err.trimEnd()).toMatch(message);
  });

  // The CLI's target name is the URL's host when --target is not given.
  it.each([
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 (link-local: instance metadata) for 169.254.169.254'],
    ['http://[::ffff:a9fe:a9fe]/', '::ffff:a9fe:a9fe (link-local: instance metadata) for [::ffff:a9fe:a9fe]'],
  ])('parse refuses %s (loopback is allowed, link-local is not): exit 1', async (target, refusal) => {
    const { code, out, err } = await run(['parse', target]);
    expect([code, out]).toEqual([1, '']);
    expect(err).toBe(
      `parse: ${target}: refused-address: refused to connect to ${refusal} - never fetched, whatever the target says: point the target at the server itself\n`,
    );
  });

  it('parse gives up after --timeout', async () => {
    const { code, err } = await run(['parse', `${base}/slow`, ...ca(), '--timeout', '200ms']);
    expect(code).toBe(1);
    expect(err).toMatch(
      /: timeout: timed out after 200 ms waiting for a response from 127\.0\.0\.1:\d+ - the server may be saturated\n$/,
    );
  });

  it.each([
    ['timeout', '/slow', ['--timeout', '200ms'], 'timeout'],
    ['HTTP 404', '/missing', [], 'http-status'],
  ])('check names the failure (%s): exit 3, then 2 once target-down fires', async (label, path, extra, reason) => {
    const state = join(dir, `state-${reason}.json`);
    const at = (now: string) =>
      run([
        'check',
        '--url',
        `${base}${path}`,
        ...ca(),
        '--state',
        state,
        '--target',
        'web-1',
        '--now',
        now,
        '--json',
        ...extra,
      ]);
    const first = await at('2026-11-22T12:00:00Z');
    const second = await at('2026-11-22T12:01:00Z');
    expect([first.code, second.code]).toEqual([3, 2]);
    expect(second.err.startsWith(`check: web-1: ${reason}: `)).toBe(true);
    expect(JSON.parse(second.out).notifications.map((n: { subject: string }) => n.subject)).toEqual([
      `[FIRING critical] web-1: target-down (${label})`,
    ]);
  });

  it('check --url with the CA and credentials evaluates the page', async () => {
    const { code, out } = await run([
      'check',
      '--url',
      url(),
      ...ca(),
      '--auth-file',
      join(dir, 'auth'),
      '--now',
      '2026-11-22T12:00:00Z',
    ]);
    expect(code).toBe(0);
    expect(out.split('\n')[0]).toBe(
      `OK - ${new URL(base).host}: no alert firing; 29/256 slots busy, 4 idle, 3 closing | idle=4;;;0;256 busy=29;;;0;256 free_ratio=0.8867;;0.05:;0;1 closing=3;19;;0 graceful_ratio=0;0.25;;0;1 stopping=U;0;;0 oldest_request=U;300;;0 top_client=U;19;;0;256 ssl_miss_ratio=0;;;0;1 minutes_to_exhaustion=U;10:;;0 requests_per_second=U;;;0 bytes_per_second=U;;;0 accesses=149680c;;;0 bytes=4716717056c;;;0`,
    );
  });
});

describe('readCapped', () => {
  it('refuses a 200 MB file by its size, before reading it', async () => {
    const path = join(dir, 'huge.html');
    await writeFile(path, '');
    await truncate(path, 200 * 1024 * 1024); // sparse: nothing to read but its size
    await expect(readCapped(path, 4 * 1024 * 1024, Readable.from([]))).rejects.toThrow(
      `${path} is larger than the 4194304-byte cap (--max-bytes) - is this really a status report?`,
    );
  });

  it('stops reading standard input once it passes the cap (an endless stream ends)', async () => {
    let chunks = 0;
    const endless = Readable.from(
      (function* () {
        for (;;) {
          chunks++;
          yield Buffer.alloc(64 * 1024, 0x5f);
        }
      })(),
    );
    await expect(readCapped('-', 1024 * 1024, endless)).rejects.toThrow(
      'standard input is larger than the 1048576-byte cap (--max-bytes) - is this really a status report?',
    );
    expect(chunks).toBe(17);
  });

  it.each([
    ['UTF-8', Buffer.from('Server Built: caf\u00e9\n', 'utf8'), 'Server Built: caf\u00e9\n'],
    [
      'Latin-1, as mod_status sends it',
      Buffer.from('Server Built: caf\u00e9\n', 'latin1'),
      'Server Built: caf\u00e9\n',
    ],
  ])('decodes %s', async (_, bytes, text) => {
    expect(await readCapped('-', 1024, Readable.from([bytes]))).toBe(text);
  });

  it('reads a file under the cap', async () => {
    const path = join(dir, 'page.txt');
    await writeFile(path, REPORT);
    expect(await readCapped(path, REPORT.length, Readable.from([]))).toBe(REPORT.toString('utf8'));
  });
});
