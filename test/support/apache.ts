/**
 * A real Apache httpd for the tests: the Debian `apache2` binary started as a child process with a
 * configuration of its own in a temp dir (never /etc/apache2, never a system service), listening on
 * free loopback ports, with mod_status, an HTTPS listener (a certificate from a throwaway CA made by openssl
 * at start), an SHMCB TLS session cache, name-based vhosts and a slow CGI.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const MODULES_DIR = '/usr/lib/apache2/modules';
const DEFAULT_VHOSTS = ['www.example.test', 'api.example.test', 'static.example.test'] as const;

/** How the test harness runs Apache; every field is optional. */
interface StartApacheOptions {
  /** Multi-processing module (default `prefork`). */
  mpm?: 'prefork' | 'event';
  /** `ExtendedStatus` (default `true`). */
  extendedStatus?: boolean;
  /** Protect /server-status with basic auth (default: open to loopback). */
  statusAuth?: { username: string; password: string };
  /** `SSLSessionCacheTimeout` in seconds (default 300); small values let sessions expire, for misses. */
  sessionCacheTimeoutSecs?: number;
  /** `KeepAliveTimeout` in seconds (default 15): how long idle keep-alive sockets stay `K`. */
  keepAliveTimeoutSecs?: number;
  /** Name-based vhosts on both ports, the first is the default (default www/api/static.example.test). */
  vhosts?: readonly string[];
  /** How long to wait for the server to answer (default 10000 ms). */
  startTimeoutMs?: number;
  /** Keep the temp dir after `stop()` (for debugging). */
  keepDir?: boolean;
  /** Also listen on the IPv6 loopback `[::1]`, same HTTP port (default `false`). */
  ipv6?: boolean;
}

/** A running Apache; call `stop()` in `afterAll`. */
interface ApacheInstance {
  readonly mpm: 'prefork' | 'event';
  readonly pid: number;
  readonly dir: string;
  readonly httpPort: number;
  readonly httpsPort: number;
  /** `http://127.0.0.1:<httpPort>` */
  readonly httpUrl: string;
  /** `https://127.0.0.1:<httpsPort>` */
  readonly httpsUrl: string;
  /** `http://[::1]:<httpPort>` with `ipv6: true`, else null. */
  readonly httpUrl6: string | null;
  /** The test CA that signed the server certificate (PEM): pass it as `ca`. */
  readonly caPem: string;
  readonly vhosts: readonly string[];
  readonly statusAuth: { username: string; password: string } | null;
  /** The error log so far. */
  errorLog(): Promise<string>;
  /** Stop the server and everything it started, then remove the temp dir. Idempotent. */
  stop(): Promise<void>;
}

/** `apache2` could not be found. */
class ApacheNotInstalledError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ApacheNotInstalledError';
  }
}

/** Apache did not come up; the message carries the tail of its error log. */
class ApacheStartError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ApacheStartError';
  }
}

/** The apache2 binary: `$APACHE2_BIN`, /usr/sbin/apache2, or `apache2` on PATH; `null` if none. */
function findApacheBinary(): string | null {
  const candidates = [
    process.env.APACHE2_BIN,
    '/usr/sbin/apache2',
    ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'apache2')),
  ];
  return candidates.find((c) => c !== undefined && c !== '' && existsSync(c)) ?? null;
}

/**
 * Why the real-Apache tests must skip, or `null` when they must run. They skip only when apache2
 * is missing AND `CI` is unset; in CI a missing apache2 makes `startApache` fail the tests.
 */
function apacheSkipReason(): string | null {
  if (findApacheBinary() !== null || process.env.CI) return null;
  return 'apache2 is not installed (apt-get install --no-install-recommends apache2 openssl); CI never skips';
}

// Process groups of running instances, killed if the test process exits without stop().
const liveGroups = new Set<number>();
process.once('exit', () => {
  for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
});

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Free loopback ports: bind port 0, read the port, close. */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
          const s = createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => {
    const address = s.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  });
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

const SLEEP_CGI = `#!/bin/sh
# Hold the worker in "W" for ?N seconds (capped at 30) so tests can see slow requests.
s=\${QUERY_STRING:-5}
case "$s" in ''|*[!0-9]*) s=5 ;; esac
[ "$s" -gt 30 ] && s=30
printf 'Content-Type: text/plain\\r\\n\\r\\n'
sleep "$s"
echo "slept $s"
`;

const DRIP_CGI = `#!/bin/sh
# One line per second for ?N seconds (capped at 30): a slow body.
n=\${QUERY_STRING:-5}
case "$n" in ''|*[!0-9]*) n=5 ;; esac
[ "$n" -gt 30 ] && n=30
printf 'Content-Type: text/plain\\r\\n\\r\\n'
i=0
while [ "$i" -lt "$n" ]; do echo "line $i"; i=$((i + 1)); sleep 1; done
`;

interface ConfigInput {
  dir: string;
  mpm: 'prefork' | 'event';
  httpPort: number;
  httpsPort: number;
  extendedStatus: boolean;
  auth: boolean;
  sessionCacheTimeoutSecs: number;
  keepAliveTimeoutSecs: number;
  vhosts: readonly string[];
  asRoot: boolean;
  ipv6: boolean;
}

function httpdConf(c: ConfigInput): string {
  const d = c.dir;
  const mods = [
    `mpm_${c.mpm}`,
    'authz_core',
    'authz_host',
    'authz_user',
    'authn_core',
    'authn_file',
    'auth_basic',
    'mime',
    'dir',
    'alias',
    'env',
    'ratelimit',
    'status',
    'socache_shmcb',
    'ssl',
    'cgid',
  ];
  const mpm =
    c.mpm === 'prefork'
      ? 'StartServers 16\nMinSpareServers 4\nMaxSpareServers 32\nServerLimit 48\nMaxRequestWorkers 48'
      : 'StartServers 2\nThreadLimit 16\nThreadsPerChild 16\nMinSpareThreads 8\nMaxSpareThreads 32\nServerLimit 4\nMaxRequestWorkers 64';
  const statusAccess = c.auth
    ? `AuthType Basic\n    AuthName "server-status"\n    AuthUserFile "${d}/htpasswd"\n    Require valid-user`
    : 'Require local';
  const tls = `SSLEngine on\n    SSLCertificateFile "${d}/tls/cert.pem"\n    SSLCertificateKeyFile "${d}/tls/key.pem"`;
  const vhost = (port: number, name: string, extra: string) =>
    `<VirtualHost 127.0.0.1:${port}>\n    ServerName ${name}\n    DocumentRoot "${d}/htdocs/${name}"\n${extra}</VirtualHost>`;
  return [
    '# Written by test/support/apache.ts - loopback only.',
    `ServerRoot "${d}"`,
    `DefaultRuntimeDir "${d}/run"`,
    `PidFile "${d}/run/httpd.pid"`,
    `ErrorLog "${d}/logs/error.log"`,
    'LogLevel warn',
    // File-based locks live in the temp dir, so a killed instance leaks no SysV semaphores.
    `Mutex file:${d}/run default`,
    c.asRoot ? 'User www-data\nGroup www-data' : '',
    'ServerName localhost',
    ...mods.map((m) => `LoadModule ${m}_module ${MODULES_DIR}/mod_${m}.so`),
    `ScriptSock "${d}/run/cgisock"`,
    `Listen 127.0.0.1:${c.httpPort}`,
    c.ipv6 ? `Listen [::1]:${c.httpPort}` : '',
    `Listen 127.0.0.1:${c.httpsPort} https`,
    mpm,
    'Timeout 30',
    'KeepAlive On',
    'MaxKeepAliveRequests 100',
    `KeepAliveTimeout ${c.keepAliveTimeoutSecs}`,
    'HostnameLookups Off',
    `ExtendedStatus ${c.extendedStatus ? 'On' : 'Off'}`,
    `TypesConfig "${d}/mime.types"`,
    'DirectoryIndex index.html',
    'SSLRandomSeed startup builtin',
    'SSLRandomSeed connect builtin',
    `SSLSessionCache "shmcb:${d}/run/ssl_scache(512000)"`,
    `SSLSessionCacheTimeout ${c.sessionCacheTimeoutSecs}`,
    // Tickets off: resumption must go through the server-side cache, or its hits stay 0.
    'SSLSessionTickets off',
    `DocumentRoot "${d}/htdocs/${c.vhosts[0]}"`,
    '<Directory />\n    AllowOverride None\n    Require all denied\n</Directory>',
    `<Directory "${d}/htdocs">\n    Require all granted\n</Directory>`,
    `<Directory "${d}/cgi-bin">\n    Options +ExecCGI\n    Require all granted\n</Directory>`,
    `ScriptAlias /cgi-bin/ "${d}/cgi-bin/"`,
    `<Location /server-status>\n    SetHandler server-status\n    ${statusAccess}\n</Location>`,
    // /slow/ is rate limited to 16 KiB/s: another way to hold "W".
    '<Location /slow/>\n    SetOutputFilter RATE_LIMIT\n    SetEnv rate-limit 16\n</Location>',
    ...c.vhosts.map((name) => vhost(c.httpPort, name, '')),
    ...c.vhosts.map((name) => vhost(c.httpsPort, name, `    ${tls}\n`)),
    '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/**
 * A throwaway CA and a server certificate it signed (EC keys: fast to make). A separate CA keeps
 * mod_ssl from warning that the server certificate is a CA.
 */
async function makeCertificate(tlsDir: string, subjectAltNames: readonly string[]): Promise<void> {
  const f = (name: string) => join(tlsDir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await writeFile(f('leaf.ext'), `subjectAltName=${subjectAltNames.join(',')}\nbasicConstraints=CA:FALSE\n`);
  await run(
    'openssl',
    ['req', '-x509', ...ec, '-days', '2', '-subj', '/CN=httpd-status-alerts test CA'].concat([
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.pem'),
    ]),
  );
  await run('openssl', ['req', ...ec, '-subj', '/CN=localhost', '-keyout', f('key.pem'), '-out', f('leaf.csr')]);
  await run(
    'openssl',
    ['x509', '-req', '-in', f('leaf.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key')].concat([
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      f('leaf.ext'),
      '-out',
      f('cert.pem'),
    ]),
  );
}

async function writeTree(c: ConfigInput, auth: StartApacheOptions['statusAuth']): Promise<void> {
  const d = c.dir;
  for (const sub of ['run', 'logs', 'tls', 'cgi-bin', 'htdocs']) await mkdir(join(d, sub));
  for (const name of c.vhosts) {
    await mkdir(join(d, 'htdocs', name, 'slow'), { recursive: true });
    await writeFile(join(d, 'htdocs', name, 'index.html'), `<html><body>${name}</body></html>\n`);
    await writeFile(join(d, 'htdocs', name, 'not-a-report.html'), '<html><title>Welcome</title></html>\n');
    await writeFile(join(d, 'htdocs', name, 'slow', 'big.bin'), Buffer.alloc(512 * 1024, 0x61));
  }
  await writeFile(join(d, 'mime.types'), 'text/html html\ntext/plain txt\napplication/octet-stream bin\n');
  await writeFile(join(d, 'cgi-bin', 'sleep.cgi'), SLEEP_CGI, { mode: 0o755 });
  await writeFile(join(d, 'cgi-bin', 'drip.cgi'), DRIP_CGI, { mode: 0o755 });
  if (auth) {
    // {SHA} lines need no htpasswd binary; Apache's password check accepts them.
    const sha = createHash('sha1').update(auth.password).digest('base64');
    await writeFile(join(d, 'htpasswd'), `${auth.username}:{SHA}${sha}\n`, { mode: 0o644 });
  }
  await makeCertificate(join(d, 'tls'), ['DNS:localhost', 'IP:127.0.0.1', ...c.vhosts.map((v) => `DNS:${v}`)]);
  await writeFile(join(d, 'httpd.conf'), httpdConf(c));
  // The worker user must read the docs and run the CGI; mkdtemp makes the dir 0700.
  await chmod(d, 0o755);
}

/** Poll until /server-status answers (200, or 401 behind auth), Apache exits, or time runs out. */
async function waitUntilUp(child: ChildProcess, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; attempt < 1000 && Date.now() < deadline; attempt++) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`apache2 exited early (code ${child.exitCode}, signal ${child.signalCode})`);
    }
    const status = await new Promise<number>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/server-status?auto', agent: false, timeout: 1000 });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(0));
      req.end();
    });
    if (status === 200 || status === 401) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no answer from 127.0.0.1:${port}/server-status within ${timeoutMs} ms`);
}

async function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForGroupGone(pgid: number, timeoutMs: number): Promise<void> {
  for (let waited = 0; waited < timeoutMs && groupAlive(pgid); waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function startOnce(binary: string, options: StartApacheOptions): Promise<ApacheInstance> {
  const [httpPort = 0, httpsPort = 0] = await freePorts(2);
  const dir = await mkdtemp(join(tmpdir(), 'httpd-status-alerts-apache-'));
  const mpm = options.mpm ?? 'prefork';
  const vhosts = options.vhosts ?? DEFAULT_VHOSTS;
  const input: ConfigInput = {
    dir,
    mpm,
    httpPort,
    httpsPort,
    extendedStatus: options.extendedStatus ?? true,
    auth: options.statusAuth !== undefined,
    sessionCacheTimeoutSecs: options.sessionCacheTimeoutSecs ?? 300,
    keepAliveTimeoutSecs: options.keepAliveTimeoutSecs ?? 15,
    vhosts,
    asRoot: process.getuid?.() === 0,
    ipv6: options.ipv6 ?? false,
  };
  await writeTree(input, options.statusAuth);
  // detached: Apache leads its own process group, so one signal reaches its children and CGIs.
  const child = spawn(binary, ['-f', join(dir, 'httpd.conf'), '-DFOREGROUND'], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const pid = child.pid ?? 0;
  liveGroups.add(pid);
  const errorLog = () => readFile(join(dir, 'logs', 'error.log'), 'utf8').catch(() => '');
  let stopped: Promise<void> | null = null;
  const stop = () => {
    stopped ??= (async () => {
      killGroup(pid, 'SIGTERM');
      if (!(await waitForExit(child, 5000))) {
        killGroup(pid, 'SIGKILL');
        await waitForExit(child, 2000);
      }
      // Sweep what is left in the group (a CGI still sleeping), then wait until it is reaped.
      killGroup(pid, 'SIGKILL');
      await waitForGroupGone(pid, 3000);
      liveGroups.delete(pid);
      if (!options.keepDir) await rm(dir, { recursive: true, force: true });
    })();
    return stopped;
  };
  try {
    await waitUntilUp(child, httpPort, options.startTimeoutMs ?? 10_000);
  } catch (error) {
    const log = (await errorLog()).slice(-2000);
    await stop();
    throw new ApacheStartError(
      `expected apache2 (${mpm}) to answer on 127.0.0.1:${httpPort}, found: ${(error as Error).message}; ` +
        `stderr: ${stderr.trim() || '(empty)'}; error log: ${log.trim() || '(empty)'}`,
      { cause: error },
    );
  }
  return {
    mpm,
    pid,
    dir,
    httpPort,
    httpsPort,
    httpUrl: `http://127.0.0.1:${httpPort}`,
    httpsUrl: `https://127.0.0.1:${httpsPort}`,
    httpUrl6: options.ipv6 ? `http://[::1]:${httpPort}` : null,
    caPem: await readFile(join(dir, 'tls', 'ca.pem'), 'utf8'),
    vhosts,
    statusAuth: options.statusAuth ?? null,
    errorLog,
    stop,
  };
}

/**
 * Start a private Apache httpd on two free loopback ports (HTTP and HTTPS). Retries with new
 * ports if another process grabbed one in between.
 *
 * @example
 * const apache = await startApache({ mpm: 'event', statusAuth: { username: 'ops', password: 's3cret' } });
 * try { ... fetch `${apache.httpUrl}/server-status?auto` ... } finally { await apache.stop(); }
 */
async function startApache(options: StartApacheOptions = {}): Promise<ApacheInstance> {
  const binary = findApacheBinary();
  if (binary === null) {
    throw new ApacheNotInstalledError(
      'expected the apache2 binary ($APACHE2_BIN, /usr/sbin/apache2 or on PATH), found none - apt-get install apache2',
    );
  }
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(binary, options);
    } catch (error) {
      lastError = error;
      if (!String((error as Error).message).includes('Address already in use')) break;
    }
  }
  throw lastError;
}

export type { ApacheInstance, StartApacheOptions };
export { ApacheNotInstalledError, ApacheStartError, apacheSkipReason, findApacheBinary, freePorts, startApache };
