/**
 * The configuration read against the SSM stand-in over HTTP (test/support/fakeSsm.ts) throttling
 * as SSM does past its shared 40 calls a second: each page retried with full-jitter backoff within
 * the read's budget; past it, the read is unreadable, and a run keeps the last good configuration
 * with the `ConfigurationUnreadable` metric and no configuration page.
 */
import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStateTable } from '../../src/adapters/memoryStateStore.ts';
import { createSsmConfigSource } from '../../src/adapters/ssmConfigSource.ts';
import { ConfigUnreadableError } from '../../src/app/config/unreadable.ts';
import type { CycleDeps } from '../../src/app/ports.ts';
import { runCycle } from '../../src/app/run.ts';
import type { Notification } from '../../src/core/alerts/types.ts';
import { createMetricsSink } from '../../src/lambda/metricsSink.ts';
import { type FakeSsm, startFakeSsm } from '../support/fakeSsm.ts';

const CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };

describe('ssmConfigSource against an SSM that throttles at 40 calls a second', () => {
  let fake: FakeSsm;
  let client: SSMClient;
  beforeAll(async () => {
    fake = await startFakeSsm();
    client = new SSMClient({ endpoint: fake.endpoint, region: 'eu-west-1', maxAttempts: 1, credentials: CREDENTIALS });
    for (let i = 0; i < 2000; i++)
      fake.put(
        `/t/targets/web-${String(i).padStart(4, '0')}`,
        JSON.stringify({ url: `http://10.0.${i >> 8}.${i & 255}/` }),
      );
    fake.put('/t/rules/defaults', '{"rules":[]}');
  });
  afterAll(async () => {
    client.destroy();
    await fake.stop();
  });

  it('reads 2,000 targets (201 pages) whole, each throttled page retried with full jitter', async () => {
    fake.reset();
    fake.throttle(40);
    const source = createSsmConfigSource(new SSMProvider({ awsSdkV3Client: client }), '/t', 60, { client });
    const raw = await source.loadRaw();
    expect(Object.keys(raw.targets)).toHaveLength(2000);
    expect(raw.rules).toEqual({ '/t/rules/defaults': '{"rules":[]}' });
    // The fake refused some (three folders at once, a page every few ms) and never answered more than 40 a second.
    expect(fake.throttled).toBeGreaterThan(0);
    expect(fake.peakPerSecond).toBeLessThanOrEqual(40);
  }, 60_000);

  it('past its budget the read is unreadable (ConfigUnreadableError), not invalid', async () => {
    fake.reset();
    fake.throttle(40);
    const source = createSsmConfigSource(new SSMProvider({ awsSdkV3Client: client }), '/t', 60, {
      client,
      budgetMs: 1_000,
    });
    const error = await source.loadRaw().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigUnreadableError);
    expect((error as Error).message).toMatch(
      /^expected GetParametersByPath \/t\/targets to answer within 1000 ms, found ThrottlingException: Rate exceeded after \d+ retries$/,
    );
  }, 30_000);
});

describe('a configuration read that fails in a run: the last good configuration, no page, the metric', () => {
  let fake: FakeSsm;
  let client: SSMClient;
  beforeAll(async () => {
    fake = await startFakeSsm();
    client = new SSMClient({ endpoint: fake.endpoint, region: 'eu-west-1', maxAttempts: 1, credentials: CREDENTIALS });
    fake.put('/r/targets/web-1', JSON.stringify({ url: 'http://web-1.test/server-status' }));
  });
  afterAll(async () => {
    client.destroy();
    await fake.stop();
  });

  it.each<[string, number, string[]]>([
    // [case, the fake's limit on the second run's read, that run's metrics]
    ['readable', 1000, ['ConfigurationUnreadable 0', 'Heartbeat 1']],
    ['throttled past the budget', 0, ['ConfigurationUnreadable 1', 'Heartbeat 1']],
  ])('%s', async (_, limit, metrics) => {
    fake.throttle(null);
    const recorded: string[] = [];
    const pages: Notification[] = [];
    const logs: string[] = [];
    const deps: CycleDeps = {
      // maxAge 0: every run reads SSM.
      config: createSsmConfigSource(new SSMProvider({ awsSdkV3Client: client }), '/r', 0, { client, budgetMs: 300 }),
      secretScope: { prefix: '/r', sharedSecretParameters: [] },
      table: createMemoryStateTable(),
      notifier: { publish: async (n) => void pages.push(n) },
      fetch: async (t) => ({
        ok: true,
        body: 'Total Accesses: 1\nUptime: 10\nScoreboard: ____\n',
        status: 200,
        contentType: 'text/plain',
        latencyMs: 1,
        url: t.url,
      }),
      metrics: createMetricsSink({
        namespace: 'N',
        service: 's',
        wantsTargetMetrics: () => false,
        runMetrics: { addMetric: (name, _unit, value) => void recorded.push(`${name} ${value}`) },
        write: () => {},
        clock: () => 0,
      }),
      logger: { info: (m) => void logs.push(m), warn: (m) => void logs.push(m), error: (m) => void logs.push(m) },
      concurrency: 1,
      evaluate: {},
      claimLeaseMs: 60_000,
      warm: new Map(),
      warmConfig: { applied: null },
    };
    await runCycle(deps, new Date('2026-11-22T12:00:00Z'));
    recorded.length = 0;
    fake.throttle(limit);
    const summary = await runCycle(deps, new Date('2026-11-22T12:01:00Z'));
    // The last good configuration is checked either way; no configuration page.
    expect(summary.targets).toBe(1);
    expect(pages).toEqual([]);
    expect(recorded.filter((m) => /^(ConfigurationUnreadable|Heartbeat) /.test(m))).toEqual(metrics);
    expect(logs.includes('configuration unreadable')).toBe(limit === 0);
    expect(logs).not.toContain('invalid configuration');
  });
});
