/**
 * A loopback server speaking the AWS query protocol, as EC2, Auto Scaling and ELBv2 do: a signed,
 * form-encoded POST (`Action=...&Version=...&...`) answered with XML, errors in each service's
 * real form: EC2's `<Response><Errors><Error>` (throttling as HTTP 503 `RequestLimitExceeded`,
 * access denied as 403 `UnauthorizedOperation`), and the `<ErrorResponse><Error><Type>` of the
 * other query services (throttling as HTTP 400 `Throttling`, access denied as 403 `AccessDenied`).
 * Counts every request by action, can throttle the next n, deny access, or throttle past a rate
 * (a token bucket, as AWS limits its APIs). The stand-ins of test/support/fake*.ts build on it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How a service words its errors. */
type ErrorStyle = 'ec2' | 'query';

interface QueryAnswer {
  status: number;
  xml: string;
}

/** A handler's answer: XML for 200, or an error code and message (with its HTTP status). */
type ActionResult = string | { status: number; code: string; message: string };

interface QueryService {
  style: ErrorStyle;
  /** The `Version` every request must carry (`2016-11-15` for EC2). */
  version: string;
  /** The XML namespace of answers and (query style) errors. */
  namespace: string;
  /** The service's IAM prefix, for access-denied messages (`ec2`, `autoscaling`, `elasticloadbalancing`). */
  iamPrefix: string;
  /** Throttling: the code and HTTP status the real service sends. */
  throttle: { code: string; status: number; message: string };
  denied: { code: string; status: number };
  actions: Record<string, (form: URLSearchParams) => ActionResult>;
}

interface QueryStandIn {
  endpoint: string;
  /** Requests per action since start (or since `reset`), throttled and denied ones included. */
  readonly calls: Record<string, number>;
  /** Every request's decoded form, in order. */
  readonly requests: URLSearchParams[];
  /** Throttle the next `n` requests, after letting `after` through. */
  throttleNext(n: number, after?: number): void;
  /** Throttle requests past `perSecond` (a bucket of `burst`), or no limit. */
  rateLimit(limit: { perSecond: number; burst: number } | null): void;
  /** Answer every request with access denied, or stop. */
  denyAccess(on: boolean): void;
  /** Answer every request with the service's internal error (HTTP 500), or stop. */
  failInternally(on: boolean): void;
  reset(): void;
  stop(): Promise<void>;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `<name>text</name>`, escaped; nothing for undefined. */
function el(name: string, value: string | number | boolean | undefined): string {
  return value === undefined ? '' : `<${name}>${escapeXml(String(value))}</${name}>`;
}

/** `Prefix.1`, `Prefix.2`, ... (EC2) or `Prefix.member.1`, ... (other query services) from a form. */
function listParam(form: URLSearchParams, prefix: string): string[] {
  const out: string[] = [];
  for (let i = 1; form.has(`${prefix}.${i}`); i++) out.push(form.get(`${prefix}.${i}`) as string);
  return out;
}

function errorXml(service: QueryService, code: string, message: string): string {
  const requestId = randomUUID();
  if (service.style === 'ec2')
    return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error>${el('Code', code)}${el('Message', message)}</Error></Errors>${el('RequestID', requestId)}</Response>`;
  const type = code === 'InternalFailure' ? 'Receiver' : 'Sender';
  return `<ErrorResponse xmlns="${service.namespace}"><Error>${el('Type', type)}${el('Code', code)}${el('Message', message)}</Error>${el('RequestId', requestId)}</ErrorResponse>`;
}

/** `<ActionResponse xmlns=...>` around a body: EC2 puts the fields directly in it, the others in `<ActionResult>`. */
function successXml(service: QueryService, action: string, body: string): string {
  const requestId = randomUUID();
  if (service.style === 'ec2')
    return `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${service.namespace}">${el('requestId', requestId)}${body}</${action}Response>`;
  return `<${action}Response xmlns="${service.namespace}"><${action}Result>${body}</${action}Result><ResponseMetadata>${el('RequestId', requestId)}</ResponseMetadata></${action}Response>`;
}

/** Start `service` on a random loopback port. */
async function startQueryStandIn(service: QueryService): Promise<QueryStandIn> {
  const calls: Record<string, number> = {};
  const requests: URLSearchParams[] = [];
  let throttled = 0;
  let passing = 0;
  let denied = false;
  let internal = false;
  let bucket: { perSecond: number; burst: number; tokens: number; at: number } | null = null;

  function overRate(): boolean {
    if (bucket === null) return false;
    const now = Date.now();
    bucket.tokens = Math.min(bucket.burst, bucket.tokens + ((now - bucket.at) / 1000) * bucket.perSecond);
    bucket.at = now;
    if (bucket.tokens < 1) return true;
    bucket.tokens -= 1;
    return false;
  }

  function answer(method: string, headers: Record<string, unknown>, body: string): QueryAnswer {
    const form = new URLSearchParams(body);
    requests.push(form);
    const action = form.get('Action') ?? '';
    calls[action] = (calls[action] ?? 0) + 1;
    const fail = (status: number, code: string, message: string) => ({
      status,
      xml: errorXml(service, code, message),
    });
    if (method !== 'POST' || !String(headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
      return fail(400, 'InvalidRequest', 'expected a form-encoded POST');
    if (!String(headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 '))
      return fail(403, 'MissingAuthenticationToken', 'Request is missing Authentication Token');
    if (form.get('Version') !== service.version)
      return fail(400, 'InvalidParameterValue', `expected Version ${service.version}, found ${form.get('Version')}`);
    const handler = service.actions[action];
    if (handler === undefined)
      return fail(400, 'InvalidAction', `The action ${action} is not valid for this web service.`);
    if (denied)
      return fail(
        service.denied.status,
        service.denied.code,
        `User: arn:aws:sts::123456789012:assumed-role/monitor/fn is not authorized to perform: ${service.iamPrefix}:${action} because no identity-based policy allows the ${service.iamPrefix}:${action} action`,
      );
    // EC2 words it InternalError, the other query services InternalFailure; both HTTP 500.
    if (internal)
      return fail(
        500,
        service.style === 'ec2' ? 'InternalError' : 'InternalFailure',
        'An internal error has occurred. Please try again.',
      );
    if (passing > 0) passing--;
    else if (throttled > 0 || overRate()) {
      if (throttled > 0) throttled--;
      return fail(service.throttle.status, service.throttle.code, service.throttle.message);
    }
    const result = handler(form);
    if (typeof result !== 'string') return fail(result.status, result.code, result.message);
    return { status: 200, xml: successXml(service, action, result) };
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { status, xml } = answer(req.method ?? '', req.headers, Buffer.concat(chunks).toString());
      res.writeHead(status, { 'content-type': 'text/xml;charset=UTF-8', 'x-amzn-requestid': randomUUID() });
      res.end(xml);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    requests,
    throttleNext: (n, after = 0) => {
      throttled = n;
      passing = after;
    },
    rateLimit: (limit) => {
      bucket = limit === null ? null : { ...limit, tokens: limit.burst, at: Date.now() };
    },
    denyAccess: (on) => {
      denied = on;
    },
    failInternally: (on) => {
      internal = on;
    },
    reset: () => {
      for (const key of Object.keys(calls)) delete calls[key];
      requests.length = 0;
      throttled = 0;
      passing = 0;
      denied = false;
      internal = false;
      bucket = null;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Opaque pagination tokens, as AWS's are: an offset the client must not read. */
function pageToken(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64');
}

function offsetOf(token: string | null): number | null {
  if (token === null || token === '') return 0;
  try {
    const offset = (JSON.parse(Buffer.from(token, 'base64').toString()) as { offset?: unknown }).offset;
    return typeof offset === 'number' && Number.isInteger(offset) && offset >= 0 ? offset : null;
  } catch {
    return null;
  }
}

export type { ActionResult, QueryService, QueryStandIn };
export { el, escapeXml, listParam, offsetOf, pageToken, startQueryStandIn };
