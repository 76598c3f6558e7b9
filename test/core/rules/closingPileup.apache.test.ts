/**
 * A closing pile-up on a real event-MPM Apache: clients that send a request and then neither read
 * nor close keep their connections in lingering close, held by the listener thread in no worker
 * slot. The default `closing-pileup` rule must page on it through the real parser and rules.
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluateTarget } from '../../../src/core/evaluate.ts';
import { parseReport } from '../../../src/core/report/parse.ts';
import type { StatusReport } from '../../../src/core/report/types.ts';
import { DEFAULT_RULES } from '../../../src/core/rules/document.ts';
import { type ApacheInstance, apacheSkipReason, startApache } from '../../support/apache.ts';

const LINGERING = 40;
const T0 = new Date('2026-11-23T12:00:00Z');
const AFTER_FOR = new Date('2026-11-23T12:03:00Z'); // closing-pileup's for: 3m

function get(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve(body));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** Sends one HTTP/1.0 request, then neither reads nor closes: Apache lingers after replying. */
function lingeringClient(port: number): Socket {
  const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
  socket.on('error', () => {});
  socket.on('connect', () => socket.write('GET /index.html HTTP/1.0\r\nHost: www.example.test\r\n\r\n'));
  socket.pause();
  return socket;
}

const skip = apacheSkipReason();

describe.skipIf(skip !== null)(`closing-pileup on an event server${skip ? ` (SKIPPED: ${skip})` : ''}`, () => {
  let apache: ApacheInstance;
  const sockets: Socket[] = [];
  let ticker: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    // KeepAliveTimeout 1 plus a keep-alive request every 250 ms: the event MPM refreshes its
    // per-process counters only when a timeout queue expires (see event-closing/notes.md).
    apache = await startApache({ mpm: 'event', keepAliveTimeoutSecs: 1 });
    ticker = setInterval(() => {
      const k = connect({ host: '127.0.0.1', port: apache.httpPort });
      k.on('error', () => {});
      k.resume();
      k.on('connect', () => k.write('GET /index.html HTTP/1.1\r\nHost: api.example.test\r\n\r\n'));
      sockets.push(k);
    }, 250);
    for (let i = 0; i < LINGERING; i++) sockets.push(lingeringClient(apache.httpPort));
  });

  afterAll(async () => {
    clearInterval(ticker);
    for (const s of sockets) s.destroy();
    await apache?.stop();
  });

  /**
   * The report once the listener's counters show most of the lingering clients. Bounded at 20 s:
   * on a loaded machine the counters lag (they refresh when a timeout queue expires).
   */
  async function pileUp(path: string): Promise<StatusReport> {
    let report = parseReport(await get(apache.httpPort, path));
    for (let i = 0; i < 200 && (report.connections?.asyncClosing ?? 0) < LINGERING / 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      report = parseReport(await get(apache.httpPort, path));
    }
    return report;
  }

  it.each(['/server-status?auto', '/server-status'])(
    'pages through %s, which the scoreboard alone would miss',
    async (path) => {
      // Prepare
      const first = await pileUp(path);
      const closing = (first.connections?.asyncClosing ?? 0) + first.counts.C;
      // Act: the condition holds at T0 and again once `for` has elapsed.
      const pending = evaluateTarget({
        target: 'event-1',
        observation: { kind: 'report', report: first },
        rules: DEFAULT_RULES,
        silences: [],
        previous: null,
        now: T0,
      });
      const second = await pileUp(path);
      const firing = evaluateTarget({
        target: 'event-1',
        observation: { kind: 'report', report: second },
        rules: DEFAULT_RULES,
        silences: [],
        previous: pending.state,
        now: AFTER_FOR,
      });
      // Assess
      expect(first.server.mpm).toBe('event');
      expect(first.counts.C).toBeLessThan(20); // slots_closing, the rule's old metric, stays quiet
      expect(closing).toBeGreaterThanOrEqual(LINGERING / 2);
      expect(pending.alerts.find((a) => a.rule === 'closing-pileup')).toMatchObject({
        state: 'pending',
        value: closing,
      });
      expect(pending.notifications).toEqual([]);
      const secondClosing = (second.connections?.asyncClosing ?? 0) + second.counts.C;
      expect(firing.alerts.find((a) => a.rule === 'closing-pileup')).toMatchObject({
        state: 'firing',
        value: secondClosing,
      });
      expect(firing.notifications.map((n) => n.subject)).toEqual([
        `[FIRING warning] event-1: closing-pileup (${secondClosing} >= 20)`,
      ]);
    },
  );
});
