/**
 * A loopback stand-in of PagerDuty's Events API v2. Like the real one it enforces the rate limit
 * (at most `perMinute` events per routing key in any 60 s, 429 beyond), refuses a routing key it
 * does not know (400, when `routingKeys` is given), and keeps each incident's state per routing key
 * and `dedup_key` (a trigger opens or adds to it, a resolve closes it), so tests can check
 * PagerDuty's final state. Answers can also be scripted (one status per request, taking precedence;
 * a scripted 202 still opens or closes its incident).
 * Its clock is injectable, so tests can step time.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The status answered. */
  status: number;
  /** The stand-in's clock when it arrived. */
  at: number;
}

interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

interface Incident {
  status: 'triggered' | 'resolved';
  /** The summary of the last trigger. */
  summary: string;
  /** Events accepted for this key (triggers and resolves). */
  events: number;
  /** Times a resolved incident was opened again. */
  reopened: number;
}

interface PagerDutyStandInOptions {
  /** Events accepted per routing key in any 60 s (PagerDuty: about 120). */
  perMinute?: number;
  /** Routing keys that exist; any other is refused with 400. Default: every key exists. */
  routingKeys?: readonly string[];
  now?: () => number;
}

interface PagerDutyStandIn {
  url: string;
  requests: RecordedRequest[];
  /** Incidents by `<routing key> <dedup_key>`. */
  incidents: Map<string, Incident>;
  /** Answers for the next requests, in order. */
  script(...answers: ScriptedAnswer[]): void;
  /** The incident of `dedupKey` under `routingKey`. */
  incident(routingKey: string, dedupKey: string): Incident | undefined;
  /** Requests answered 429. */
  throttled(): number;
  stop(): Promise<void>;
}

const ACCEPTED = JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: null });
const THROTTLED = JSON.stringify({
  status: 'throttle event',
  message: 'Requests for this service are arriving too quickly. Please retry later.',
});
const INVALID_KEY = JSON.stringify({
  status: 'invalid event',
  message: 'Event object is invalid',
  errors: ['Invalid routing key'],
});
const WINDOW_MS = 60_000;

interface EventBody {
  routing_key?: unknown;
  dedup_key?: unknown;
  event_action?: unknown;
  payload?: { summary?: unknown };
}

async function startPagerDutyStandIn(options: PagerDutyStandInOptions = {}): Promise<PagerDutyStandIn> {
  const perMinute = options.perMinute ?? 120;
  const now = options.now ?? Date.now;
  const requests: RecordedRequest[] = [];
  const incidents = new Map<string, Incident>();
  const acceptedAt = new Map<string, number[]>();
  const queue: ScriptedAnswer[] = [];

  /** The answer the real API would give, with its effect on the incidents. */
  function answer(body: EventBody, at: number): ScriptedAnswer {
    const key = typeof body.routing_key === 'string' ? body.routing_key : '';
    if (options.routingKeys !== undefined && !options.routingKeys.includes(key))
      return { status: 400, body: INVALID_KEY };
    const recent = (acceptedAt.get(key) ?? []).filter((t) => t > at - WINDOW_MS);
    if (recent.length >= perMinute) {
      acceptedAt.set(key, recent);
      return { status: 429, body: THROTTLED };
    }
    acceptedAt.set(key, [...recent, at]);
    const id = `${key} ${String(body.dedup_key)}`;
    const before = incidents.get(id);
    if (body.event_action === 'trigger') {
      incidents.set(id, {
        status: 'triggered',
        summary: String(body.payload?.summary ?? ''),
        events: (before?.events ?? 0) + 1,
        reopened: (before?.reopened ?? 0) + (before?.status === 'resolved' ? 1 : 0),
      });
    } else if (body.event_action === 'resolve' && before !== undefined) {
      incidents.set(id, { ...before, status: 'resolved', events: before.events + 1 });
    }
    return { status: 202 };
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      const at = now();
      const scripted = queue.shift();
      // A scripted 202 is an accepted event too: it opens or closes its incident.
      if (scripted?.status === 202) answer((body ?? {}) as EventBody, at);
      const given = scripted ?? answer((body ?? {}) as EventBody, at);
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        status: given.status,
        at,
      });
      const dedupKey = (body as { dedup_key?: string } | null)?.dedup_key ?? null;
      res.writeHead(given.status, { 'content-type': 'application/json', ...given.headers });
      res.end(given.body ?? (given.status === 202 ? ACCEPTED.replace('null', JSON.stringify(dedupKey)) : ''));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v2/enqueue`,
    requests,
    incidents,
    script: (...answers) => queue.push(...answers),
    incident: (routingKey, dedupKey) => incidents.get(`${routingKey} ${dedupKey}`),
    throttled: () => requests.filter((r) => r.status === 429).length,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export { type Incident, type PagerDutyStandIn, type RecordedRequest, startPagerDutyStandIn };
