/**
 * A loopback stand-in of PagerDuty's Events API v2: records every request and answers from a
 * script (one status per request; 202 with PagerDuty's body once the script is used up).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

interface PagerDutyStandIn {
  url: string;
  requests: RecordedRequest[];
  /** Answers for the next requests, in order. */
  script(...answers: ScriptedAnswer[]): void;
  stop(): Promise<void>;
}

const ACCEPTED = JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: null });

async function startPagerDutyStandIn(): Promise<PagerDutyStandIn> {
  const requests: RecordedRequest[] = [];
  const queue: ScriptedAnswer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const answer = queue.shift() ?? { status: 202 };
      const dedupKey = (body as { dedup_key?: string } | null)?.dedup_key ?? null;
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body ?? (answer.status === 202 ? ACCEPTED.replace('null', JSON.stringify(dedupKey)) : ''));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v2/enqueue`,
    requests,
    script: (...answers) => queue.push(...answers),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export { type PagerDutyStandIn, type RecordedRequest, startPagerDutyStandIn };
