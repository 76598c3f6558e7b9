import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { LookupFunction } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchStatusPage } from '../../src/adapters/httpStatusSource.ts';

const NEVER = 'never fetched, whatever the target says: point the target at the server itself';
const OPT_IN = 'set "allowLoopback": true on the target if the server is a sidecar of the monitor';

/**
 * A resolver that answers each name from a script, one answer per call (the last one repeats):
 * a name that moves between fetches, without DNS.
 */
function scriptedLookup(script: readonly (readonly string[])[]): LookupFunction & { calls: number } {
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const answer = script[Math.min(lookup.calls, script.length - 1)] ?? [];
    lookup.calls++;
    const addresses: LookupAddress[] = answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (addresses.length === 0)
      return callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    if (options.all) return callback(null, addresses);
    const [first] = addresses as [LookupAddress];
    callback(null, first.address, first.family);
  }) as LookupFunction & { calls: number };
  lookup.calls = 0;
  return lookup;
}

describe('fetchStatusPage under the address policy', () => {
  // A status page on loopback that counts the connections it accepts: a refusal must make none.
  let connections = 0;
  const server = createServer((req, res) => {
    if (req.url === '/moved') {
      res.writeHead(302, { location: '/ok' });
      return res.end();
    }
    res.end('Scoreboard: W_K\n');
  });
  server.on('connection', () => connections++);
  const port = () => (server.address() as { port: number }).port;

  beforeAll(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)));
  beforeEach(() => {
    connections = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each([
    // The WHATWG URL parser normalizes every IPv4 spelling to dotted decimal, IPv6 to its short form.
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 (link-local: instance metadata)', NEVER],
    ['http://0xA9FEA9FE/', '169.254.169.254 (link-local: instance metadata)', NEVER],
    ['http://2852039166/', '169.254.169.254 (link-local: instance metadata)', NEVER],
    ['http://0251.0376.0251.0376/', '169.254.169.254 (link-local: instance metadata)', NEVER],
    ['http://169.254.43518/', '169.254.169.254 (link-local: instance metadata)', NEVER],
    ['http://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe (link-local: instance metadata)', NEVER],
    ['http://[::ffff:a9fe:a9fe]/', '::ffff:a9fe:a9fe (link-local: instance metadata)', NEVER],
    ['http://[fd00:ec2::254]/latest/meta-data/', 'fd00:ec2::254 (instance-metadata: instance metadata)', NEVER],
    ['http://169.254.170.2/v2/credentials/x', '169.254.170.2 (link-local: ECS container credentials)', NEVER],
    ['http://[fe80::1]:8080/', 'fe80::1 (link-local: link-local address)', NEVER],
    ['http://0/', '0.0.0.0 (unspecified: unspecified address, which reaches the local host)', NEVER],
    ['http://[::]/', ':: (unspecified: unspecified address, which reaches the local host)', NEVER],
    ['http://2130706433/', "127.0.0.1 (loopback: the monitor's own host)", OPT_IN],
    ['http://[::1]/', "::1 (loopback: the monitor's own host)", OPT_IN],
  ])('refuses the literal %s before connecting', async (url, refusal, hint) => {
    // Prepare: a resolver that would fail the test if it were asked
    const lookup = scriptedLookup([]);
    // Act
    const result = await fetchStatusPage({ name: 'web-1', url, timeoutMs: 2000 }, { lookup });
    // Assess
    expect(result).toMatchObject({
      ok: false,
      reason: 'refused-address',
      detail: `refused to connect to ${refusal} for web-1 - ${hint}`,
    });
    expect(lookup.calls).toBe(0);
  });

  it('refuses a loopback server without opt-in and fetches it with allowLoopback', async () => {
    // Act
    const refused = await fetchStatusPage({ name: 'sidecar', url: `http://127.0.0.1:${port()}/` });
    const opted = await fetchStatusPage({ name: 'sidecar', url: `http://127.0.0.1:${port()}/`, allowLoopback: true });
    // Assess
    expect(refused).toMatchObject({
      ok: false,
      reason: 'refused-address',
      detail: `refused to connect to 127.0.0.1 (loopback: the monitor's own host) for sidecar - ${OPT_IN}`,
      url: `http://127.0.0.1:${port()}/`,
    });
    expect(opted).toMatchObject({ ok: true, body: 'Scoreboard: W_K\n' });
    expect(connections).toBe(1);
  });

  it('refuses a name that moved to a refused address after it was validated, at the fetch that sees it', async () => {
    // Prepare: the name answers loopback (allowed for this target), then the instance metadata address
    const lookup = scriptedLookup([['127.0.0.1'], ['169.254.169.254']]);
    const target = { name: 'web-1', url: `http://status.example.test:${port()}/`, allowLoopback: true };
    // Act
    const first = await fetchStatusPage(target, { lookup });
    const second = await fetchStatusPage(target, { lookup });
    // Assess
    expect(first).toMatchObject({ ok: true, body: 'Scoreboard: W_K\n' });
    expect(second).toMatchObject({
      ok: false,
      reason: 'refused-address',
      detail: `refused to connect to 169.254.169.254 (link-local: instance metadata), resolved from status.example.test, for web-1 - ${NEVER}`,
      url: `http://status.example.test:${port()}/`,
    });
    expect(connections).toBe(1);
  });

  it('refuses a name with one refused address among allowed ones: no connection at all', async () => {
    // Prepare
    const lookup = scriptedLookup([['127.0.0.1', 'fd00:ec2::254']]);
    // Act
    const result = await fetchStatusPage(
      { name: 'web-1', url: `http://status.example.test:${port()}/`, allowLoopback: true },
      { lookup },
    );
    // Assess
    expect(result).toMatchObject({
      ok: false,
      reason: 'refused-address',
      detail: `refused to connect to fd00:ec2::254 (instance-metadata: instance metadata), resolved from status.example.test, for web-1 - ${NEVER}`,
    });
    expect(connections).toBe(0);
  });

  it('checks every hop of a redirect: the name, resolved again, moved to a refused address', async () => {
    // Prepare: the first hop reaches the server, the redirect's hop resolves to the instance metadata address
    const lookup = scriptedLookup([['127.0.0.1'], ['::ffff:169.254.169.254']]);
    const target = { name: 'web-1', url: `http://status.example.test:${port()}/moved`, allowLoopback: true };
    // Act
    const result = await fetchStatusPage(target, { lookup });
    // Assess
    expect(result).toMatchObject({
      ok: false,
      reason: 'refused-address',
      detail: `refused to connect to ::ffff:169.254.169.254 (link-local: instance metadata), resolved from status.example.test, for web-1 - ${NEVER}`,
      url: `http://status.example.test:${port()}/ok`,
    });
    expect([lookup.calls, connections]).toEqual([2, 1]);
  });

  it.each([
    ['with allowLoopback', true],
    ['without', false],
  ])('never connects to the Lambda runtime API port, %s', async (_, allowLoopback) => {
    // Prepare: the test server stands in for the runtime API
    const runtimeApi = { host: '127.0.0.1', port: port() };
    // Act
    const result = await fetchStatusPage(
      { name: 'web-1', url: `http://localhost:${port()}/2018-06-01/runtime/invocation/next`, allowLoopback },
      { runtimeApi, lookup: scriptedLookup([['::1', '127.0.0.1']]) },
    );
    // Assess
    expect(result).toMatchObject({
      ok: false,
      reason: 'refused-address',
      detail: `refused to connect to ::1 (lambda-runtime-api: the Lambda runtime API, port ${port()}), resolved from localhost, for web-1 - never fetched, even with allowLoopback: the function would be reading its own invocations`,
    });
    expect(connections).toBe(0);
  });

  it('refuses with the default resolver too: localhost without opt-in', async () => {
    // Act
    const result = await fetchStatusPage({ name: 'web-1', url: `http://localhost:${port()}/` });
    // Assess
    expect(result).toMatchObject({ ok: false, reason: 'refused-address' });
    expect(result.ok ? '' : result.detail).toMatch(
      /^refused to connect to (127\.0\.0\.1|::1) \(loopback: the monitor's own host\), resolved from localhost, for web-1 - /,
    );
    expect(connections).toBe(0);
  });
});
