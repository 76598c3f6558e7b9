/**
 * The exhaustion forecast on a real prefork Apache (48 workers), stepped with `check --state
 * --now` one evaluation minute per step while a ramp of slow requests takes 6 more workers a
 * step: the forecast fires at least two evaluation minutes before no slot is free; the status
 * page then times out and `target-down` says `likely saturated`. A flat load never forecasts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { createNodeIo } from '../../src/cli/nodeIo.ts';
import { parseReport } from '../../src/core/report/parse.ts';
import { type ApacheInstance, apacheSkipReason, startApache } from '../support/apache.ts';
import { type SlowRamp, slowRamp } from '../support/load.ts';

const T0 = Date.parse('2026-11-23T12:00:00Z');
const minute = (m: number) => new Date(T0 + m * 60_000).toISOString();
const FORECAST = 'workers-exhaustion-forecast';
const WORKERS = 48; // MaxRequestWorkers of the harness's prefork server

interface CheckJson {
  alerts: Array<{ rule: string; state: string; value: number | null }>;
  notifications: Array<{ status: string; rule: string; subject: string; message: string }>;
}

/** `check --json` in this process; answers its exit status, its parsed output and standard error. */
async function check(args: string[]): Promise<{ code: number; json: CheckJson; err: string }> {
  let out = '';
  let err = '';
  const io = {
    ...createNodeIo('test'),
    stdout: (t: string) => {
      out += t;
    },
    stderr: (t: string) => {
      err += t;
    },
  };
  const code = await main(['check', ...args, '--json'], io);
  return { code, json: JSON.parse(out) as CheckJson, err };
}

/** Busy workers of the ?auto page (the request reading it included). */
function busyWorkers(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/server-status?auto', agent: false, timeout: 3000 },
      (res) => {
        let body = '';
        res.setEncoding('latin1');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve(parseReport(body).server.busyWorkers ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('status page timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** Waits (at most 8 s) until `held` slow requests hold workers; prefork spawns children as they come. */
async function waitBusy(port: number, held: number): Promise<void> {
  for (let i = 0; i < 80 && (await busyWorkers(port)) < held + 1; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const skip = apacheSkipReason();

describe.skipIf(skip !== null)(`the exhaustion forecast on a real Apache${skip ? ` (SKIPPED: ${skip})` : ''}`, () => {
  let apache: ApacheInstance;
  let dir: string;
  let ramp: SlowRamp | undefined;

  beforeAll(async () => {
    apache = await startApache({ mpm: 'prefork' });
    dir = await mkdtemp(join(tmpdir(), 'forecast-'));
  });
  afterEach(async () => {
    await ramp?.stop();
    ramp = undefined;
    // The workers the ramp held come back once their CGI is gone.
    for (let i = 0; i < 100 && (await busyWorkers(apache.httpPort).catch(() => WORKERS)) > 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  afterAll(async () => {
    await apache?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('fires two or more evaluation minutes before no slot is free, then target-down says likely saturated', async () => {
    // Prepare
    const state = join(dir, 'ramp.json');
    const url = `${apache.httpUrl}/server-status?auto`;
    const step = (m: number) =>
      check(['--url', url, '--target', 'web-1', '--state', state, '--now', minute(m), '--timeout', '1500ms']);
    ramp = slowRamp({ port: apache.httpPort }, { step: 6, seconds: 30 });

    // Act: 6 more workers held each evaluation minute until all 48 are, then two more minutes
    const steps: Array<{ minute: number; code: number; json: CheckJson; err: string }> = [];
    for (let m = 0; m < WORKERS / 6; m++) {
      const held = ramp.add();
      if (held < WORKERS) await waitBusy(apache.httpPort, held);
      else await new Promise((resolve) => setTimeout(resolve, 1000));
      steps.push({ minute: m, ...(await step(m)) });
    }
    steps.push({ minute: 8, ...(await step(8)) });

    // Assess
    const forecastFired = steps.find((s) => s.json.notifications.some((n) => n.rule === FORECAST));
    // No slot free: the status page itself finds no worker and times out.
    const fullAt = steps.find((s) => s.err.includes(': timeout: '));
    expect(forecastFired?.json.notifications.find((n) => n.rule === FORECAST)?.message).toContain(
      'At the current trend the free slots run out at',
    );
    expect(fullAt).toBeDefined();
    expect((fullAt?.minute ?? 0) - (forecastFired?.minute ?? 99)).toBeGreaterThanOrEqual(2);
    // The full report before it is the evidence: target-down pages on that first timeout.
    const down = fullAt?.json.notifications.find((n) => n.rule === 'target-down');
    expect(down?.subject).toBe('[FIRING critical] web-1: target-down (saturated)');
    expect(down?.message).toMatch(/Failure: timeout, likely saturated: \d+\/48 slots busy at 2026-11-23T12:06:00.000Z/);
    expect([fullAt?.code, steps.at(-1)?.code]).toEqual([2, 2]);
  }, 90_000);

  it('never forecasts on a flat load', async () => {
    // Prepare: 16 workers held, the same 16 for eight evaluation minutes
    const state = join(dir, 'flat.json');
    const url = `${apache.httpUrl}/server-status?auto`;
    ramp = slowRamp({ port: apache.httpPort }, { step: 16, seconds: 30 });
    await waitBusy(apache.httpPort, ramp.add());

    // Act
    const steps: CheckJson[] = [];
    for (let m = 0; m < 8; m++) {
      steps.push((await check(['--url', url, '--target', 'web-2', '--state', state, '--now', minute(m)])).json);
    }

    // Assess
    expect(steps.flatMap((s) => s.alerts.filter((a) => a.rule === FORECAST))).toEqual([]);
    expect(steps.flatMap((s) => s.notifications)).toEqual([]);
  }, 60_000);
});
