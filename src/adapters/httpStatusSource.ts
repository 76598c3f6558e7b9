/**
 * Fetches one server-status page over HTTP(S) with `node:http`/`node:https` (global fetch cannot
 * take a CA per request without undici). Never rejects: every failure becomes a result with a
 * reason and a one-line detail a person understands. Credentials never appear in a result, in
 * any form, even when the server echoes them (`scrubSecrets`), and the Authorization header goes
 * only to the origin (scheme, host and port) the target names.
 * Every address is put to the address policy (src/core/addressPolicy.ts) before a connection is
 * made to it: an IP literal before the request, a name's addresses as they are resolved.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, STATUS_CODES } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import type { FetchResult, FetchTarget } from '../app/ports.ts';
import {
  type AddressPolicy,
  classifyAddress,
  describeRefusal,
  type RuntimeApiEndpoint,
} from '../core/addressPolicy.ts';
import type { FetchFailureReason } from '../core/downReasons.ts';
import { redactCredentials } from '../core/text/sanitize.ts';
import { secretScrubber } from '../core/text/scrubSecrets.ts';
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS, MAX_REDIRECTS, USER_AGENT } from './httpDefaults.ts';

/** Seams for callers and tests. */
interface FetchOptions {
  /** Aborts the fetch (reported as reason `network`). */
  signal?: AbortSignal;
  /** DNS lookup (default `dns.lookup`); every address it answers goes through the address policy. */
  lookup?: LookupFunction;
  /** The Lambda runtime API this fetch runs beside (`AWS_LAMBDA_RUNTIME_API`): never connected to. */
  runtimeApi?: RuntimeApiEndpoint | null;
}

/** A fetch failure on its way to becoming a result. */
class StatusFetchError extends Error {
  readonly reason: FetchFailureReason;
  readonly status: number | undefined;

  constructor(reason: FetchFailureReason, message: string, options?: ErrorOptions & { status?: number }) {
    super(message, options);
    this.name = 'StatusFetchError';
    this.reason = reason;
    this.status = options?.status;
  }
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const DNS_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|ERR_OSSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;
// Handshake failures that surface with a generic code (ECONNRESET, EPROTO).
const TLS_MESSAGE = /\b(SSL|TLS)\b|certificate/i;

/** Where the request got to, for timeout and truncation messages. */
interface Progress {
  phase: 'connecting to' | 'waiting for a response from' | 'reading the body from';
  bytes: number;
}

const STATUS_HINTS: Record<number, string> = {
  401: "the credentials sent were refused - check the status page's user and password",
  403: 'the server refuses this client - check the Require lines of <Location /server-status>',
  404: 'no status page at this path - is mod_status loaded and mapped with SetHandler server-status?',
  429: 'the server is rate limiting this client',
  503: 'the server may be saturated or in maintenance',
};

/** A 401 without credentials sent asks for them; a missing and a wrong password read differently. */
const NO_CREDENTIALS_HINT =
  'the status page asks for credentials and none were sent - give them (an auth parameter, --auth-file or HTTPD_STATUS_AUTH_FILE)';

function httpStatusError(status: number, where: string, credentialsSent: boolean): StatusFetchError {
  const hint =
    status === 401 && !credentialsSent
      ? NO_CREDENTIALS_HINT
      : (STATUS_HINTS[status] ?? (status >= 500 ? 'the server failed - check its error log' : 'expected 200'));
  const line = [`HTTP ${status}`, STATUS_CODES[status]].filter(Boolean).join(' ');
  return new StatusFetchError('http-status', `${line} from ${where} - ${hint}`, { status });
}

function withoutCredentials(url: URL): string {
  const copy = new URL(url);
  copy.username = '';
  copy.password = '';
  return copy.href;
}

/**
 * The configured credentials (`target.auth`, from an auth parameter or `--auth-file`) as an
 * Authorization header, with the one origin they belong to: the target's own URL. A redirect
 * elsewhere (even another port of the same host) is fetched without them. Credentials in the URL
 * are never used: the configuration refuses them, and nothing else may send them. `scrub` takes
 * every form of them out of a text the fetch returns.
 */
function credentialsFor(
  target: FetchTarget,
  url: URL,
): { origin: string; authorization: string; scrub: (text: string) => string } | undefined {
  const auth = target.auth;
  if (auth === undefined) return undefined;
  const token = Buffer.from(`${auth.username}:${auth.password}`).toString('base64');
  return { origin: url.origin, authorization: `Basic ${token}`, scrub: secretScrubber(auth) };
}

/** Where one request may connect: the address policy, and the target it answers for. */
interface Destination {
  policy: AddressPolicy;
  target: string;
  /** The hostname as the URL names it, brackets removed. */
  hostname: string;
  port: number;
}

/** Throws `refused-address` when the policy refuses `address` (the host's own, or one it resolved to). */
function admit(address: string, to: Destination): void {
  const verdict = classifyAddress(address, to.port, to.policy);
  if (verdict.allowed) return;
  const via = address === to.hostname ? '' : `, resolved from ${to.hostname},`;
  throw new StatusFetchError(
    'refused-address',
    `refused to connect to ${describeRefusal(verdict)}${via} for ${to.target} - ${verdict.hint}`,
  );
}

/**
 * `lookup` that answers only addresses the policy allows: one refused address fails the whole
 * lookup (the connection may try any of them), so no connection is attempted.
 */
function admittingLookup(lookup: LookupFunction, to: Destination): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses: readonly (string | LookupAddress)[] = Array.isArray(address) ? address : [address];
      try {
        for (const one of addresses) admit(typeof one === 'string' ? one : one.address, to);
      } catch (refusal) {
        return callback(refusal as NodeJS.ErrnoException, address, family);
      }
      callback(null, address, family);
    });
  };
}

/** Send one GET; resolves with the response head. */
function exchange(
  url: URL,
  target: FetchTarget,
  credentials: ReturnType<typeof credentialsFor>,
  signal: AbortSignal,
  progress: Progress,
  options: FetchOptions,
) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const { auth: _userinfo, ...base } = urlToHttpOptions(url);
    const hostname = base.hostname ?? '';
    const to: Destination = {
      policy: { allowLoopback: target.allowLoopback === true, runtimeApi: options.runtimeApi ?? null },
      target: target.name,
      hostname,
      port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    };
    // Node resolves no IP literal (it never calls `lookup` for one): the literal is checked here.
    if (isIP(hostname) !== 0) admit(hostname, to);
    const lookup = admittingLookup(options.lookup ?? (dnsLookup as LookupFunction), to);
    const headers: OutgoingHttpHeaders = { 'user-agent': USER_AGENT, accept: 'text/html, text/plain' };
    if (credentials !== undefined && url.origin === credentials.origin)
      headers.authorization = credentials.authorization;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // agent: false: a fresh connection per fetch, closed afterwards; nothing pooled between targets.
    const req = send({
      ...base,
      method: 'GET',
      headers,
      agent: false,
      signal,
      ca: target.ca,
      lookup,
    });
    req.on('socket', (socket) => socket.once('connect', () => (progress.phase = 'waiting for a response from')));
    req.on('response', (res) => {
      progress.phase = 'reading the body from';
      resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Where a body of unknown length starts: a `?auto` page fits, a full page takes a few doublings. */
const INITIAL_BODY_BYTES = 16 * 1024;

/**
 * Each piece of a body (an HTTP chunk, a socket read) costs Node a few microseconds whatever its
 * size, so a body is refused once it came in more pieces than the cap would in pieces of this
 * size: a page sent a byte per chunk ends after `maxBytes / 64` pieces, not `maxBytes`. Apache
 * writes its pages in pieces of kilobytes.
 */
const MIN_MEAN_PIECE_BYTES = 64;
/** Pieces every body may take, whatever its cap (a slow server's small reads). */
const MIN_PIECES = 1024;

/**
 * Read the body, aborting as soon as it passes `maxBytes`. One buffer holds it, sized from the
 * declared length (or `INITIAL_BODY_BYTES`) and doubled up to the cap as the body grows; each
 * chunk is copied in and dropped, so the memory kept is at most twice the cap (during a doubling)
 * whatever the chunking, where a list of chunks kept one object per chunk (millions for a page
 * sent in 1-byte chunks).
 */
function readBody(res: IncomingMessage, maxBytes: number, where: string, progress: Progress): Promise<Buffer> {
  const tooLarge = () =>
    new StatusFetchError(
      'too-large',
      `response from ${where} is larger than the ${maxBytes}-byte cap - is this really a status page?`,
    );
  const declared = Number(res.headers['content-length'] ?? Number.NaN);
  if (declared > maxBytes) {
    res.destroy();
    return Promise.reject(tooLarge());
  }
  const maxPieces = Math.max(MIN_PIECES, Math.floor(maxBytes / MIN_MEAN_PIECE_BYTES));
  return new Promise((resolve, reject) => {
    let body = Buffer.allocUnsafe(Math.min(maxBytes, declared >= 0 ? declared : INITIAL_BODY_BYTES));
    let length = 0;
    let pieces = 0;
    res.on('data', (chunk: Buffer) => {
      progress.bytes += chunk.length;
      if (progress.bytes > maxBytes) {
        res.destroy();
        reject(tooLarge());
        return;
      }
      if (++pieces > maxPieces) {
        res.destroy();
        reject(
          new StatusFetchError(
            'too-large',
            `response from ${where} came in more than ${maxPieces} pieces (${progress.bytes} bytes so far, under ${MIN_MEAN_PIECE_BYTES} bytes a piece) - is this really a status page?`,
          ),
        );
        return;
      }
      if (length + chunk.length > body.length) {
        const grown = Buffer.allocUnsafe(Math.min(maxBytes, Math.max(body.length * 2, length + chunk.length)));
        body.copy(grown, 0, 0, length);
        body = grown;
      }
      length += chunk.copy(body, length);
    });
    res.on('end', () => resolve(body.subarray(0, length)));
    const truncated = (cause?: Error) => {
      const expected = Number.isNaN(declared) ? '' : ` of ${declared}`;
      reject(
        new StatusFetchError(
          'network',
          `connection to ${where} closed after ${progress.bytes}${expected} body bytes - the page is truncated`,
          { cause },
        ),
      );
    };
    res.on('error', truncated);
    res.on('close', () => res.complete || truncated());
  });
}

function classify(
  error: unknown,
  where: string,
  timeoutMs: number,
  timedOut: boolean,
  progress: Progress,
): StatusFetchError {
  // The deadline first: aborting mid-body also surfaces as a truncation error.
  if (timedOut) {
    const soFar = progress.phase === 'reading the body from' ? ` (${progress.bytes} bytes so far)` : '';
    return new StatusFetchError(
      'timeout',
      `timed out after ${timeoutMs} ms ${progress.phase} ${where}${soFar} - the server may be saturated`,
      { cause: error },
    );
  }
  if (error instanceof StatusFetchError) return error;
  const code = String((error as NodeJS.ErrnoException)?.code ?? '');
  const message = (error as Error)?.message ?? String(error);
  const [reason, detail] = describeSocketError(code, message, where);
  return new StatusFetchError(reason, detail, { cause: error });
}

/** A Node socket, DNS or TLS error as a reason and a one-line detail. */
function describeSocketError(code: string, message: string, where: string): [FetchFailureReason, string] {
  if (code === 'ECONNREFUSED') return ['refused', `connection refused by ${where} - Apache may be down or saturated`];
  if (DNS_CODES.has(code)) return ['dns', `cannot resolve the host of ${where} (${code}) - check the target URL`];
  if (TLS_CODE.test(code) || TLS_MESSAGE.test(message)) {
    return ['tls', `TLS with ${where} failed: ${message} (${code}) - check the certificate or the target's CA bundle`];
  }
  if (code === 'ABORT_ERR') return ['network', `fetch from ${where} aborted by the caller`];
  return ['network', `network error with ${where}: ${message}${code ? ` (${code})` : ''}`];
}

/**
 * Fetch one status page: whole-request timeout, size cap while streaming, same-host redirects only
 * (at most `MAX_REDIRECTS`), TLS verified (optionally against the target's CA), basic auth. The body
 * is decoded as latin1, as mod_status sends ISO-8859-1. Never rejects.
 *
 * @example
 * const r = await fetchStatusPage({ name: 'web-1', url: 'http://10.0.0.7/server-status?auto', timeoutMs: 2000 });
 * if (!r.ok) console.log(`${r.reason}: ${r.detail}`);
 */
async function fetchStatusPage(target: FetchTarget, options: FetchOptions = {}): Promise<FetchResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(target.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new TypeError(`unsupported protocol ${url.protocol}`);
  } catch (error) {
    const detail = redactCredentials(
      `expected an http:// or https:// URL for target "${target.name}", found an invalid one (${(error as Error).message})`,
    );
    return { ok: false, reason: 'network', detail, latencyMs: elapsed(), url: '' };
  }
  const timeoutMs = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    deadline.abort();
  }, timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
  const progress: Progress = { phase: 'connecting to', bytes: 0 };
  const credentials = credentialsFor(target, url);
  // Whatever a server echoes (the body, a header, a Location) leaves here without the credentials.
  const scrub = credentials?.scrub ?? ((text: string) => text);
  try {
    for (let redirects = 0; ; redirects++) {
      progress.phase = 'connecting to';
      const res = await exchange(url, target, credentials, signal, progress, options);
      const status = res.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        res.on('error', () => {}).destroy();
        url = nextUrl(url, res.headers.location, status, redirects);
        continue;
      }
      if (status < 200 || status > 299) {
        res.on('error', () => {}).destroy();
        throw httpStatusError(status, url.host, credentials !== undefined && url.origin === credentials.origin);
      }
      const body = await readBody(res, target.maxBytes ?? DEFAULT_MAX_BYTES, url.host, progress);
      const contentType = res.headers['content-type'] ?? null;
      return {
        ok: true,
        body: scrub(body.toString('latin1')),
        status,
        contentType: contentType === null ? null : scrub(contentType),
        latencyMs: elapsed(),
        url: scrub(withoutCredentials(url)),
      };
    }
  } catch (error) {
    const failure = classify(error, url.host, timeoutMs, timedOut, progress);
    const status = failure.status === undefined ? {} : { status: failure.status };
    return {
      ok: false,
      reason: failure.reason,
      // Socket and TLS messages are Node's; whatever they quote, no password leaves here.
      detail: scrub(redactCredentials(failure.message)),
      ...status,
      latencyMs: elapsed(),
      url: scrub(withoutCredentials(url)),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** The URL a redirect leads to, if it may be followed: same host, no https->http downgrade. */
function nextUrl(from: URL, location: string | undefined, status: number, redirects: number): URL {
  if (location === undefined) {
    throw new StatusFetchError(
      'http-status',
      `HTTP ${status} from ${from.host} without a Location header - expected 200`,
      { status },
    );
  }
  if (redirects >= MAX_REDIRECTS) {
    throw new StatusFetchError(
      'redirect',
      `more than ${MAX_REDIRECTS} redirects from ${from.host} - point the target at the final URL`,
      { status },
    );
  }
  let to: URL;
  try {
    to = new URL(location, from);
  } catch (error) {
    throw new StatusFetchError('redirect', `HTTP ${status} from ${from.host} to an invalid Location - expected a URL`, {
      status,
      cause: error,
    });
  }
  const sameHost = to.hostname.toLowerCase() === from.hostname.toLowerCase();
  const downgrade = from.protocol === 'https:' && to.protocol !== 'https:';
  if (!sameHost || downgrade || (to.protocol !== 'http:' && to.protocol !== 'https:')) {
    throw new StatusFetchError(
      'redirect',
      `HTTP ${status} from ${from.host} redirects to ${withoutCredentials(to)} - only same-host redirects without https->http are followed; point the target at the final URL`,
      { status },
    );
  }
  return to;
}

export type { FetchOptions };
export { fetchStatusPage };
