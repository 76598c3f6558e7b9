/**
 * What `silence add` writes is what the Lambda honours: the command writes to the fake SSM over
 * HTTP (AWS_ENDPOINT_URL_SSM), and the scheduled run reads it back through the real SSM config
 * source (Powertools' SSMProvider), with dynalite for the state, fauxqs for SNS and a loopback
 * status page. Time is stepped explicitly.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDynamoStateTable } from '../../src/adapters/dynamoStateStore.ts';
import { fetchStatusPage } from '../../src/adapters/httpStatusSource.ts';
import { createSnsNotifier } from '../../src/adapters/snsNotifier.ts';
import { createSsmConfigSource } from '../../src/adapters/ssmConfigSource.ts';
import type { CycleDeps } from '../../src/app/ports.ts';
import { runCycle } from '../../src/app/run.ts';
import { DEFAULT_RULES } from '../../src/core/rules/defaultRules.ts';
import { type LocalDynamo, type LocalSns, startDynalite, startSns } from '../support/emulators.ts';
import { type FakeSsm, startFakeSsm } from '../support/fakeSsm.ts';
import { runCli } from './fakeIo.ts';

const PREFIX = '/hsa-silence';
// prefork-busy has 3 slots in C: the rule below fires on every cycle while the page is served.
const BUSY_HTML = readFileSync(
  new URL('../fixtures/apache-2.4.71/prefork-busy/report.html', import.meta.url),
  'latin1',
);
const RULES = {
  // The built-in rules switched off (rules documents add to them), so the one page is this rule's.
  rules: [
    { name: 'closing-seen', metric: 'slots_closing', op: '>=', threshold: 3, severity: 'critical' },
    ...DEFAULT_RULES.filter((r) => r.name !== 'target-down').map((r) => ({ name: r.name, enabled: false })),
  ],
};
const PAGE = '[FIRING critical] web-1: closing-seen (3 >= 3)';
const T0 = Date.parse('2026-11-22T12:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

async function cli(args: string[], now: Date): Promise<{ code: number; out: string; err: string }> {
  return runCli(args, { now: now.toISOString() });
}

describe('silence add/expire as the Lambda sees them (fake SSM, dynalite, fauxqs)', () => {
  let ssm: FakeSsm;
  let dynamo: LocalDynamo;
  let sns: LocalSns;
  let server: Server;
  let pageUrl: string;
  let tables = 0;
  let deps: (now: Date) => CycleDeps;

  beforeAll(async () => {
    [ssm, dynamo, sns] = await Promise.all([startFakeSsm(), startDynalite(), startSns()]);
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=ISO-8859-1' });
      res.end(BUSY_HTML);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/server-status`;
    vi.stubEnv('AWS_ENDPOINT_URL_SSM', ssm.endpoint);
    vi.stubEnv('SSM_PREFIX', PREFIX);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    server.closeAllConnections();
    await Promise.all([ssm.stop(), dynamo.stop(), sns.stop(), new Promise((resolve) => server.close(resolve))]);
  });
  beforeEach(async () => {
    for (const name of [...ssm.parameters.keys()]) (ssm.parameters as Map<string, unknown>).delete(name);
    ssm.put(`${PREFIX}/targets/web-1`, JSON.stringify({ url: pageUrl, timeoutMs: 2000, allowLoopback: true }));
    ssm.put(`${PREFIX}/rules/closing`, JSON.stringify(RULES));
    const tableName = `silence-${++tables}`;
    await dynamo.createTable(tableName);
    await sns.drain();
    const table = createDynamoStateTable(dynamo.doc, tableName);
    const notifier = createSnsNotifier(sns.sns, sns.topicArn, { sleep: async () => {} });
    // A fresh config source per cycle: each simulated minute is past the Lambda's config cache age.
    const warm = new Map();
    deps = () => ({
      config: createSsmConfigSource(new SSMProvider(), PREFIX, 0),
      secretScope: { prefix: PREFIX, sharedSecretParameters: [] },
      table,
      notifier,
      fetch: (t) => fetchStatusPage(t),
      metrics: { target: () => {}, run: () => {} },
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      concurrency: 2,
      evaluate: { repeatIntervalMs: 4 * 3600_000, downAfterFailures: 2 },
      claimLeaseMs: 60_000,
      warm,
      warmConfig: { applied: null },
    });
  });

  async function cycle(minute: number): Promise<string[]> {
    const summary = await runCycle(deps(at(minute)), at(minute));
    expect(summary.configError, `minute ${minute}`).toBeNull();
    return (await sns.drain()).map((m) => m.subject ?? '(no subject)');
  }

  it('holds the page while the silence is in force and sends it on the first run after silence expire', async () => {
    // Prepare
    const added = await cli(
      ['silence', 'add', '--target', 'web-*', '--rule', '*', '--for', '1h', '--comment', 'deploy', '--name', 'deploy'],
      at(0),
    );
    expect(added.code).toBe(0);
    // Act and Assess: silenced for two runs, paged on the run after expiry
    expect(await cycle(0)).toEqual([]);
    expect(await cycle(1)).toEqual([]);
    expect(await cli(['silence', 'expire', 'deploy'], at(2))).toMatchObject({ code: 0, err: '' });
    expect(await cycle(2)).toEqual([PAGE]);
    expect(await cycle(3)).toEqual([]);
  });

  it('pages before a scheduled window starts (startsAt), and holds nothing back inside it for what was already sent', async () => {
    // Prepare
    const added = await cli(
      [
        'silence',
        'add',
        '--target',
        'web-1',
        '--rule',
        '*',
        '--starts-at',
        '2026-11-22T12:30:00Z',
        '--for',
        '1h',
        '--comment',
        'night work',
      ],
      at(0),
    );
    expect(added.code).toBe(0);
    // Act and Assess
    expect(await cycle(0)).toEqual([PAGE]);
    expect(await cycle(31)).toEqual([]);
  });

  it('silences from startsAt on: the page held back inside the window is sent when it ends', async () => {
    // Prepare: the window opens before the condition starts
    await cli(
      [
        'silence',
        'add',
        '--target',
        'web-1',
        '--rule',
        'closing-*',
        '--starts-at',
        '2026-11-22T11:59:00Z',
        '--until',
        '2026-11-22T12:05:00Z',
        '--comment',
        'window',
      ],
      at(-2),
    );
    // Act and Assess
    expect(await cycle(0)).toEqual([]);
    expect(await cycle(4)).toEqual([]);
    expect(await cycle(5)).toEqual([PAGE]);
  });
});
