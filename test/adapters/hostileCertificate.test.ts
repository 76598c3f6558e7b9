/**
 * A TLS failure whose certificate names are hostile, followed from a real handshake to every place
 * the failure detail leaves the monitor: a loopback `node:https` server with a certificate made by
 * openssl, fetched through `fetchStatusPage`; Node's hostname-mismatch error quotes the
 * certificate's CN (or its altnames) into the detail; then the observation, the page (text and
 * JSON) and the PagerDuty event.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchStatusPage } from '../../src/adapters/httpStatusSource.ts';
import { stepAlert } from '../../src/core/alerts/step.ts';
import { downObservation } from '../../src/core/downObservation.ts';
import { buildNotification } from '../../src/core/notify/build.ts';
import { EVENTS_PER, pagerDutyEvents } from '../../src/core/pagerduty/events.ts';
import { parseRulesDocuments } from '../../src/core/rules/document.ts';
import type { Rule } from '../../src/core/rules/types.ts';
import { messageFields } from '../support/messages.ts';

const T0 = new Date('2026-11-22T12:00:00Z');
const DOWN_RULE = parseRulesDocuments([
  {
    source: 't',
    text: JSON.stringify({
      rules: [{ name: 'target-down', metric: 'target_up', op: '==', threshold: 0, severity: 'critical' }],
    }),
  },
])[0] as Rule;

/** `localhost` always reaches the loopback server, whatever the machine's resolver says. */
const loopback: LookupFunction = (_host, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

// A Slack mention and link, a Markdown link, an @-mention, a right-to-left override and a zero-width space.
const HOSTILE_CN = '@here <!channel> [x](https://evil.example) \u202Eevil\u200B';
const HOSTILE_SAN = 'DNS:<!channel>.evil.example,URI:https://evil.example/_x_';

let dir: string;
const servers: Server[] = [];

/** A self-signed certificate with `subject` (and `san`, when given), served on loopback: its port and PEM. */
async function serve(name: string, subject: string, san?: string): Promise<{ port: number; pem: string }> {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.pem`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-utf8',
      '-subj',
      subject,
      ...(san === undefined ? [] : ['-addext', `subjectAltName=${san}`]),
    ],
    { stdio: 'pipe' },
  );
  const pem = readFileSync(cert, 'utf8');
  const server = createServer({ key: readFileSync(key), cert: pem }, (_req, res) => res.end('never read'));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, pem };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hostile-cert-'));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

describe('a TLS failure quoting a hostile certificate, through every output', () => {
  it.each([
    {
      case: "the CN (no altnames): Node quotes it after `is not cert's CN:`",
      subject: `/CN=${HOSTILE_CN.replaceAll('/', '\\/')}/O=evil`,
      san: undefined,
      quoted: "is not cert's CN: @here <!channel> [x](https://evil.example) \u202Eevil\u200B",
      data: "is not cert's CN: @here <!channel> [x](https://evil.example) evil",
      page: "is not cert's CN: %40here %3C%21channel%3E %5Bx%5D%28hxxps://evil[.]example%29 evil",
    },
    {
      case: 'the altnames: Node lists them after `is not in the cert altnames:`',
      subject: '/CN=evil/O=evil',
      san: HOSTILE_SAN,
      quoted: "is not in the cert's altnames: DNS:<!channel>.evil.example, URI:https://evil.example/_x_",
      data: "is not in the cert's altnames: DNS:<!channel>.evil.example, URI:https://evil.example/_x_",
      page: "is not in the cert's altnames: DNS:%3C%21channel%3E[.]evil[.]example, URI:hxxps://evil[.]example/%5Fx%5F",
    },
  ])('$case', async ({ subject, san, quoted, data, page }) => {
    // Prepare
    const { port, pem } = await serve(`c${servers.length}`, subject, san);
    const host = `localhost:${port}`;
    const detailOf = (middle: string) =>
      `TLS with ${host} failed: Hostname/IP does not match certificate's altnames: Host: localhost. ${middle} (ERR_TLS_CERT_ALTNAME_INVALID) - check the certificate or the target's CA bundle`;

    // Act: fetch, observe, page, forward.
    const result = await fetchStatusPage(
      { name: 'web-1', url: `https://${host}/server-status?auto`, ca: pem, timeoutMs: 5000, allowLoopback: true },
      { lookup: loopback },
    );
    if (result.ok) throw new Error('expected the handshake to fail');
    const observation = downObservation(result.reason, result.detail);
    const fired = stepAlert(null, DOWN_RULE, 'web-1', { kind: 'value', value: 0, holds: true }, T0);
    const n = buildNotification({
      rule: DOWN_RULE,
      alert: fired,
      reason: 'first',
      target: 'web-1',
      labels: {},
      observation,
      consecutiveFailures: 2,
      now: T0,
    });
    const [event] = pagerDutyEvents(JSON.stringify(n.payload), 'R0UT1NGKEY0000000000000000000000', EVENTS_PER.alert);

    // Assess: Node quotes the names as they are; the observation (logs, state, JSON) keeps them as
    // data; what people read (the text page, PagerDuty) shows them defanged.
    expect([result.reason, result.detail]).toEqual(['tls', detailOf(quoted)]);
    expect(observation).toEqual({ kind: 'down', reason: 'tls', detail: detailOf(data) });
    expect(n.subject).toBe('[FIRING critical] web-1: target-down (TLS)');
    const shown = `TLS with localhost:${port} failed: Hostname/IP does not match certificate's altnames: Host: localhost[.] ${page} %28ERR%5FTLS%5FCERT%5FALTNAME%5FINVALID%29 - check the certificate or the target's CA bundle`;
    expect(n.message.split('\n').find((l) => l.startsWith('Failure: '))).toBe(`Failure: tls: ${shown}`);
    expect(messageFields(n.payload).down).toEqual({ reason: 'tls', detail: detailOf(data), consecutiveFailures: 2 });
    expect(event?.payload.summary).toBe('[FIRING critical] web-1: target-down (tls)');
    expect(event?.payload.custom_details.down).toEqual({ reason: 'tls', detail: shown, consecutiveFailures: 2 });
  });
});
