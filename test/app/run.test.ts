/**
 * Whole cycles with real parts: dynalite for the state, fauxqs for SNS (read back through SQS),
 * local HTTP servers for the status pages. Time is stepped explicitly.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDynamoStateTable } from '../../src/adapters/dynamoStateStore.ts';
import { fetchStatusPage } from '../../src/adapters/httpStatusSource.ts';
import { createMemoryStateTable } from '../../src/adapters/memoryStateStore.ts';
import { buildPublishInput } from '../../src/adapters/snsMessage.ts';
import { createSnsNotifier } from '../../src/adapters/snsNotifier.ts';
import type { ConfigSource, CycleDeps, Notifier, StateTable } from '../../src/app/ports.ts';
import { checkShard, runCycle } from '../../src/app/run.ts';
import { PublishFailedError, TargetsFailedError } from '../../src/app/runContext.ts';
import type { Notification } from '../../src/core/alerts/types.ts';
import { buildMonitorConfig, type RawConfig } from '../../src/core/monitorConfig.ts';
import { EVENTS_PER, pagerDutyEvents } from '../../src/core/pagerduty/events.ts';
import { ECHO_ROUTES, type EchoServer, leaksIn, startEchoServer } from '../support/echoServer.ts';
import {
  type LocalDynamo,
  type LocalSns,
  type ReceivedMessage,
  startDynalite,
  startSns,
} from '../support/emulators.ts';
import { onlyTheseRules } from '../support/rulesDocuments.ts';

const BUSY_HTML = readFileSync(
  new URL('../fixtures/apache-2.4.71/prefork-busy/report.html', import.meta.url),
  'latin1',
);
const IDLE_HTML = readFileSync(
  new URL('../fixtures/apache-2.4.71/prefork-idle/report.html', import.meta.url),
  'latin1',
);
const T0 = Date.parse('2026-11-22T12:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

// prefork-busy has 3 slots in C, prefork-idle none. One page per alert (`groupBy: []`): these
// tests follow one alert's lifecycle; grouping has its own (test/app/accounting/groupItems.test.ts).
const CLOSING_RULES = onlyTheseRules([
  {
    groupBy: [],
    name: 'closing-seen',
    metric: 'slots_closing',
    op: '>=',
    threshold: 3,
    severity: 'critical',
    runbook: 'https://wiki.example/closing',
  },
]);

/** A status page whose answer the test sets: a body, a status code, a hang or a cut connection. */
interface PageServer {
  url: string;
  answer: { status: number; body: string; hang?: boolean; cutAfter?: number };
  close(): Promise<void>;
}

async function startPageServer(): Promise<PageServer> {
  const page: PageServer = { url: '', answer: { status: 200, body: BUSY_HTML }, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const { status, body, hang, cutAfter } = page.answer;
    if (hang) return; // never answers: the fetch times out
    if (cutAfter !== undefined) {
      res.writeHead(status, { 'content-type': 'text/html', 'content-length': String(body.length) });
      res.write(body.slice(0, cutAfter));
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    res.writeHead(status, { 'content-type': 'text/html; charset=ISO-8859-1' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  page.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/server-status`;
  page.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return page;
}

function fakeConfig(raw: RawConfig): ConfigSource & { raw: RawConfig } {
  return {
    raw,
    loadRaw: async () => structuredClone(raw),
    getSecret: async (name) => {
      throw new Error(`no secret ${name} in this test`);
    },
  };
}

const quietLogger = { info: () => {}, warn: () => {}, error: () => {} };
const noMetrics = { target: () => {}, run: () => {} };

describe('runCycle with dynalite and fauxqs', () => {
  let dynamo: LocalDynamo;
  let sns: LocalSns;
  let page: PageServer;
  let table: StateTable;
  let tableName: string;
  let tableCount = 0;

  beforeAll(async () => {
    [dynamo, sns] = await Promise.all([startDynalite(), startSns()]);
  });
  afterAll(async () => {
    await Promise.all([dynamo.stop(), sns.stop()]);
  });
  beforeEach(async () => {
    tableName = `state-${++tableCount}`;
    await dynamo.createTable(tableName);
    table = createDynamoStateTable(dynamo.doc, tableName);
    page = await startPageServer();
    await sns.drain();
  });
  afterEach(async () => {
    await page.close();
  });

  function deps(overrides: Partial<CycleDeps> & { raw?: RawConfig } = {}): CycleDeps {
    const raw = overrides.raw ?? {
      targets: {
        '/hsa/targets/web-1': JSON.stringify({ url: page.url, timeoutMs: 500, maxBytes: 100_000, allowLoopback: true }),
      },
      rules: { '/hsa/rules/closing': CLOSING_RULES },
      silences: {},
    };
    return {
      config: fakeConfig(raw),
      secretScope: { prefix: '/hsa', sharedSecretParameters: [] },
      table,
      notifier: createSnsNotifier(sns.sns, sns.topicArn, { sleep: async () => {} }),
      fetch: (t) => fetchStatusPage(t),
      metrics: noMetrics,
      logger: quietLogger,
      concurrency: 4,
      evaluate: { repeatIntervalMs: 4 * 3600_000, downAfterFailures: 2 },
      claimLeaseMs: 60_000,
      warm: new Map(),
      warmConfig: { applied: null },
      ...overrides,
    };
  }
  const subjects = (messages: ReceivedMessage[]) => messages.map((m) => m.subject);

  it('starts fetching while the state is still being read (a fetch needs no state)', async () => {
    // Prepare: the targets' state read waits until a fetch has started; a run that fetched only
    // after it would hang. (The configuration's own reads are not held.)
    let fetchStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      fetchStarted = resolve;
    });
    const slowTable: StateTable = {
      ...table,
      loadMany: async (keys) => {
        if (keys.includes('target#web-1')) await started;
        return table.loadMany(keys);
      },
    };
    const fetch: CycleDeps['fetch'] = (t) => {
      fetchStarted();
      return fetchStatusPage(t);
    };
    page.answer = { status: 200, body: BUSY_HTML };
    // Act
    const summary = await runCycle(deps({ table: slowTable, fetch }), at(0));
    // Assess
    expect(summary).toMatchObject({ targets: 1, sent: 1, down: 0 });
  });

  it("fails the run after the targets were fetched, with the state read's own error as the cause", async () => {
    const broken: StateTable = {
      ...table,
      loadMany: async (keys) => {
        if (keys.includes('target#web-1')) throw new Error('DynamoDB is down');
        return table.loadMany(keys);
      },
    };
    const fetched: string[] = [];
    const fetch: CycleDeps['fetch'] = (t) => {
      fetched.push(t.name);
      return fetchStatusPage(t);
    };
    const failure = await runCycle(deps({ table: broken, fetch }), at(0)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TargetsFailedError);
    expect(((failure as Error).cause as AggregateError).errors).toEqual([new Error('DynamoDB is down')]);
    expect(fetched).toEqual(['web-1']);
  });

  it('starts the targets in fetchPriority order', async () => {
    // Prepare
    const raw = {
      targets: Object.fromEntries(
        ['web-1', 'web-2', 'web-3'].map((name) => [
          `/hsa/targets/${name}`,
          JSON.stringify({ url: page.url, allowLoopback: true }),
        ]),
      ),
      rules: { '/hsa/rules/closing': CLOSING_RULES },
      silences: {},
    };
    const order: string[] = [];
    const fetch: CycleDeps['fetch'] = (t) => {
      order.push(t.name);
      return fetchStatusPage(t);
    };
    const remembered: Record<string, number> = { 'web-1': 5, 'web-2': 1200, 'web-3': 40 };
    // Act
    await runCycle(deps({ raw, fetch, concurrency: 1, fetchPriority: (name) => remembered[name] ?? 0 }), at(0));
    // Assess
    expect(order).toEqual(['web-2', 'web-3', 'web-1']);
  });

  it.each([
    { intent: 'past its patience, a slow target gives its slot to the others', patienceMs: 1, othersFirst: true },
    { intent: 'within its patience, a slow target keeps its slot', patienceMs: 60_000, othersFirst: false },
  ])('$intent', async ({ patienceMs, othersFirst }) => {
    // Prepare: one slot; web-2 starts first and answers once both others were fetched, or after 2 s.
    const raw = {
      targets: Object.fromEntries(
        ['web-1', 'web-2', 'web-3'].map((name) => [
          `/hsa/targets/${name}`,
          JSON.stringify({ url: page.url, allowLoopback: true }),
        ]),
      ),
      rules: { '/hsa/rules/closing': CLOSING_RULES },
      silences: {},
    };
    const fetched = new Set<string>();
    let othersFetched: () => void = () => {};
    const others = new Promise<boolean>((resolve) => {
      othersFetched = () => resolve(true);
    });
    let answeredAfterOthers: boolean | null = null;
    const fetch: CycleDeps['fetch'] = async (t) => {
      fetched.add(t.name);
      if (fetched.has('web-1') && fetched.has('web-3')) othersFetched();
      if (t.name === 'web-2') {
        const fallback = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2000));
        answeredAfterOthers = await Promise.race([others, fallback]);
      }
      return fetchStatusPage(t);
    };
    const first = (name: string) => (name === 'web-2' ? 1 : 0);
    // Act
    const summary = await runCycle(
      deps({ raw, fetch, concurrency: 1, fetchPatienceMs: patienceMs, fetchPriority: first }),
      at(0),
    );
    // Assess
    expect(answeredAfterOthers).toBe(othersFirst);
    expect(summary).toMatchObject({ targets: 3, down: 0 });
  });

  it('pages once when a condition starts, stays quiet while it lasts, resolves once, repeats after 4 h', async () => {
    const d = deps();
    const steps: Array<[number, string, string[]]> = [
      [0, BUSY_HTML, ['[FIRING critical] web-1: closing-seen (3 >= 3)']],
      [1, BUSY_HTML, []],
      [2, BUSY_HTML, []],
      [3, IDLE_HTML, ['[RESOLVED critical] web-1: closing-seen (now 0)']],
      [4, IDLE_HTML, []],
      [5, BUSY_HTML, ['[FIRING critical] web-1: closing-seen (3 >= 3)']],
      [5 + 239, BUSY_HTML, []],
      [5 + 240, BUSY_HTML, ['[FIRING critical] web-1: closing-seen (3 >= 3)']],
    ];
    for (const [minute, body, expected] of steps) {
      page.answer = { status: 200, body };
      await runCycle(d, at(minute));
      expect(subjects(await sns.drain()), `minute ${minute}`).toEqual(expected);
    }
  });

  it('publishes the page with its attributes and the JSON payload', async () => {
    await runCycle(deps(), at(0));
    const [message] = await sns.drain();
    expect(message?.attributes).toEqual({
      severity: 'critical',
      status: 'firing',
      target: 'web-1',
      rule: 'closing-seen',
    });
    const payload = JSON.parse(message?.body as string);
    expect(payload).toMatchObject({ status: 'firing', rule: 'closing-seen', target: 'web-1', value: 3, threshold: 3 });
    expect(payload.runbook).toBe('https://wiki.example/closing');
  });

  it("computes free slots against the target's declared maxRequestWorkers", async () => {
    // prefork-busy: 256 positions printed, 28 in use; with 29 declared workers only 1 is free.
    const rule = { name: 'free-low', metric: 'slots_free_ratio', op: '<', threshold: 0.05, severity: 'critical' };
    const raw = (target: object) => ({
      targets: { '/hsa/targets/web-1': JSON.stringify({ url: page.url, allowLoopback: true, ...target }) },
      rules: { '/hsa/rules/free': onlyTheseRules([rule]) },
      silences: {},
    });
    await runCycle(deps({ raw: raw({}) }), at(0));
    expect(subjects(await sns.drain())).toEqual([]);
    await runCycle(deps({ raw: raw({ maxRequestWorkers: 29 }) }), at(1));
    const [message] = await sns.drain();
    expect(JSON.parse(message?.body as string)).toMatchObject({ rule: 'free-low', value: 1 / 29 });
  });

  it('keeps the forecast samples in the warm container, never in the table, and names a timeout after them "saturated"', async () => {
    // Prepare: prefork-busy has 28 positions in use; 30 declared workers leave 2 free (6.7 %).
    const d = deps({
      raw: {
        targets: {
          '/hsa/targets/web-1': JSON.stringify({
            url: page.url,
            timeoutMs: 300,
            maxRequestWorkers: 30,
            allowLoopback: true,
          }),
        },
        rules: { '/hsa/rules/closing': CLOSING_RULES.replace('"threshold":3', '"threshold":100') },
        silences: {},
      },
    });

    // Act: two good runs, then the status page never answers
    await runCycle(d, at(0));
    await runCycle(d, at(1));
    const scanned = await dynamo.doc.send(new ScanCommand({ TableName: tableName }));
    page.answer = { status: 200, body: '', hang: true };
    await runCycle(d, at(2));
    await runCycle(d, at(3));

    // Assess
    const stored = JSON.stringify(scanned.Items);
    expect(stored).not.toContain('samples');
    expect(stored).not.toContain('lastReport');
    expect(d.warm.get('web-1')?.warmOnly).toEqual({
      samples: [
        { at: at(0).toISOString(), free: 2 },
        { at: at(1).toISOString(), free: 2 },
      ],
      lastReport: { at: at(1).toISOString(), busy: 28, total: 30, minutesToExhaustion: null },
    });
    const [message] = await sns.drain();
    expect(message?.subject).toBe('[FIRING critical] web-1: target-down (saturated)');
    expect(JSON.parse(message?.body as string).failure).toEqual({
      reason: 'timeout',
      likelySaturated: true,
      lastSeen: { busy: 28, total: 30, at: at(1).toISOString() },
    });
  });

  it('two overlapping runs send one page', async () => {
    const [a, b] = await Promise.all([runCycle(deps(), at(0)), runCycle(deps(), at(0))]);
    expect(a.sent + b.sent).toBe(1);
    expect(a.skipped + b.skipped).toBe(1);
    expect(subjects(await sns.drain())).toEqual(['[FIRING critical] web-1: closing-seen (3 >= 3)']);
    await runCycle(deps(), at(1));
    expect(await sns.drain()).toEqual([]);
  });

  it('a target that stays down writes until target-down fires, then not every run', async () => {
    // Prepare: one warm container (the same deps) across the runs.
    const d = deps();
    page.answer = { status: 404, body: 'Not Found' };
    // Act: minute -> (writes of that run, subjects sent)
    const runs: Array<[number, number, Array<string | undefined>]> = [];
    for (const minute of [0, 1, 2, 3, 4]) {
      const summary = await runCycle(d, at(minute));
      runs.push([minute, summary.writes, subjects(await sns.drain())]);
    }
    // Assess: the first run also stores the configuration (2 writes) and the first failure (1);
    // failure 2 claims and commits target-down (2), hands it to its group (1), lists the group as
    // open (1), claims and commits the group's page (2); failures 3-5 change nothing the table keeps.
    expect(runs).toEqual([
      [0, 3, []],
      [1, 6, ['[FIRING critical] web-1: target-down (HTTP 404)']],
      [2, 0, []],
      [3, 0, []],
      [4, 0, []],
    ]);
  });

  it('a page SNS refused fails the run and is sent by the next run, once', async () => {
    const real = createSnsNotifier(sns.sns, sns.topicArn, { sleep: async () => {} });
    let refuse = true;
    const flaky: Notifier = {
      publish: async (n) => {
        if (refuse)
          throw Object.assign(new Error('SNS is down'), { name: 'InternalError', $metadata: { httpStatusCode: 500 } });
        await real.publish(n);
      },
    };
    await expect(runCycle(deps({ notifier: flaky }), at(0))).rejects.toThrow(PublishFailedError);
    expect(await sns.drain()).toEqual([]);
    refuse = false;
    await runCycle(deps({ notifier: flaky }), at(1));
    expect(subjects(await sns.drain())).toEqual(['[FIRING critical] web-1: closing-seen (3 >= 3)']);
    await runCycle(deps({ notifier: flaky }), at(2));
    expect(await sns.drain()).toEqual([]);
  });

  const big = BUSY_HTML.repeat(10);
  it.each([
    ['timeout', { status: 200, body: BUSY_HTML, hang: true }, 'timeout', /timed out after 500 ms/, 'timeout'],
    ['401', { status: 401, body: 'Unauthorized' }, 'http-status', /HTTP 401/, 'HTTP 401'],
    [
      'a 404 page',
      {
        status: 404,
        body: readFileSync(
          new URL('../fixtures/public/http404-2.4.62-status-not-configured.html', import.meta.url),
          'utf8',
        ),
      },
      'http-status',
      /HTTP 404/,
      'HTTP 404',
    ],
    [
      'garbage',
      { status: 200, body: '\x00\x01garbage<<<' },
      'not-a-report',
      /not a server-status report.*\\x00\\x01garbage/,
      'not a report',
    ],
    ['a truncated page', { status: 200, body: BUSY_HTML, cutAfter: 700 }, 'network', /closed after 700 of/, 'network'],
    [
      'a body over the size cap',
      { status: 200, body: big },
      'too-large',
      /larger than the 100000-byte cap/,
      'too large',
    ],
  ])(
    '%s: one target-down page after two failed runs, then quiet, then resolved',
    async (_name, answer, reason, detail, label) => {
      const d = deps();
      await runCycle(d, at(0));
      expect(await sns.drain()).toHaveLength(1); // closing-seen fires on the healthy page
      page.answer = answer;
      await runCycle(d, at(1));
      expect(await sns.drain()).toEqual([]);
      await runCycle(d, at(2));
      const [down, ...rest] = await sns.drain();
      expect(rest).toEqual([]);
      expect(down?.subject).toBe(`[FIRING critical] web-1: target-down (${label})`);
      expect(JSON.parse(down?.body as string).down.detail).toMatch(detail);
      expect(JSON.parse(down?.body as string).down.reason).toBe(reason);
      await runCycle(d, at(3));
      expect(await sns.drain()).toEqual([]); // no second page, closing-seen neither resolved nor re-sent
      page.answer = { status: 200, body: BUSY_HTML };
      await runCycle(d, at(4));
      // The built-in target-down is grouped by rule: its resolve waits for the group interval.
      expect(await sns.drain()).toEqual([]);
      await runCycle(d, at(7));
      expect(subjects(await sns.drain())).toEqual(['[RESOLVED critical] web-1: target-down (now 1)']);
    },
  );

  it('refused: the target-down page names the refused connection', async () => {
    const d = deps();
    await page.close();
    await runCycle(d, at(0));
    await runCycle(d, at(1));
    const [down] = await sns.drain();
    expect(down?.subject).toBe('[FIRING critical] web-1: target-down (refused)');
    expect(JSON.parse(down?.body as string).down.detail).toMatch(/connection refused by 127\.0\.0\.1:\d+/);
  });

  it('refused addresses: the targets under the policy are down (address refused), the other one is checked', async () => {
    // Prepare: web-2 is the same loopback page without the opt-in; web-3 names the instance metadata address
    const raw: RawConfig = {
      targets: {
        '/hsa/targets/web-1': JSON.stringify({ url: page.url, allowLoopback: true }),
        '/hsa/targets/web-2': JSON.stringify({ url: page.url }),
        '/hsa/targets/web-3': JSON.stringify({ url: 'http://0xA9FEA9FE/latest/meta-data/' }),
      },
      rules: { '/hsa/rules/closing': CLOSING_RULES },
      silences: {},
    };
    const warnings: Array<Record<string, unknown>> = [];
    const logger = { ...quietLogger, warn: (_message: string, extra: Record<string, unknown>) => warnings.push(extra) };
    const d = deps({ raw, logger });
    // Act
    const first = await runCycle(d, at(0));
    const second = await runCycle(d, at(1));
    // Assess
    expect([first.targets, first.down, second.targets, second.down]).toEqual([3, 2, 3, 2]);
    const pages = await sns.drain();
    expect(subjects(pages)).toEqual([
      '[FIRING critical] web-1: closing-seen (3 >= 3)',
      '[FIRING critical] target-down on 2 targets: web-2, web-3',
    ]);
    expect(warnings.slice(0, 2).sort((a, b) => String(a.target).localeCompare(String(b.target)))).toEqual([
      {
        target: 'web-2',
        reason: 'refused-address',
        detail: `refused to connect to 127.0.0.1 (loopback: the monitor's own host) for web-2 - set "allowLoopback": true on the target if the server is a sidecar of the monitor`,
      },
      {
        target: 'web-3',
        reason: 'refused-address',
        detail:
          'refused to connect to 169.254.169.254 (link-local: instance metadata) for web-3 - never fetched, whatever the target says: point the target at the server itself',
      },
    ]);
  });

  it('invalid rules: the last valid rules stay in force and one configuration alert is sent', async () => {
    const raw: RawConfig = {
      targets: { '/hsa/targets/web-1': JSON.stringify({ url: page.url, allowLoopback: true }) },
      rules: { '/hsa/rules/closing': CLOSING_RULES },
      silences: {},
    };
    const d = deps({ raw });
    await runCycle(d, at(0));
    expect(await sns.drain()).toHaveLength(1);
    (d.config as ReturnType<typeof fakeConfig>).raw.rules['/hsa/rules/closing'] = JSON.stringify({
      rules: [{ name: 'closing-seen', metric: 'slots_closing', op: '>>', threshold: 'three' }],
    });
    page.answer = { status: 200, body: IDLE_HTML };
    const broken = await runCycle(d, at(1));
    expect(broken.configError).toMatch(/\/hsa\/rules\/closing \(field closing-seen\.op\)/);
    const messages = await sns.drain();
    expect(subjects(messages).sort()).toEqual([
      '[FIRING warning] httpd-status-alerts: invalid configuration',
      '[RESOLVED critical] web-1: closing-seen (now 0)',
    ]);
    await runCycle(d, at(2));
    expect(await sns.drain()).toEqual([]);
    (d.config as ReturnType<typeof fakeConfig>).raw.rules['/hsa/rules/closing'] = CLOSING_RULES;
    await runCycle(d, at(3));
    expect(subjects(await sns.drain())).toEqual(['[RESOLVED warning] httpd-status-alerts: configuration valid again']);
  });

  it('a configuration alert SNS refused does not stop the checks and is sent by the next run', async () => {
    const real = createSnsNotifier(sns.sns, sns.topicArn, { sleep: async () => {} });
    let refuse = false;
    const flaky: Notifier = {
      publish: async (n) => {
        if (refuse)
          throw Object.assign(new Error('SNS is down'), { name: 'InternalError', $metadata: { httpStatusCode: 500 } });
        await real.publish(n);
      },
    };
    const d = deps({ notifier: flaky });
    await runCycle(d, at(0));
    expect(await sns.drain()).toHaveLength(1);
    (d.config as ReturnType<typeof fakeConfig>).raw.silences['/hsa/silences/bad'] = '{"silences":[{}]}';
    refuse = true;
    await expect(runCycle(d, at(1))).rejects.toThrow(PublishFailedError);
    refuse = false;
    const summary = await runCycle(d, at(2));
    expect(summary.targets).toBe(1);
    expect(subjects(await sns.drain())).toEqual(['[FIRING warning] httpd-status-alerts: invalid configuration']);
    await runCycle(d, at(3));
    expect(await sns.drain()).toEqual([]);
  });

  it('credentials in a target URL are invalid configuration: the last valid one is checked, nothing stores or fetches them', async () => {
    const good: RawConfig = {
      targets: { '/hsa/targets/web-1': JSON.stringify({ url: page.url, allowLoopback: true }) },
      rules: { '/hsa/rules/closing': CLOSING_RULES },
      silences: {},
    };
    const d = deps({ raw: good });
    await runCycle(d, at(0));
    await sns.drain();
    const fetched: string[] = [];
    d.fetch = (t) => {
      fetched.push(t.url);
      return fetchStatusPage(t);
    };
    const secretUrl = page.url.replace('http://', 'http://ops:s3cret@');
    (d.config as ReturnType<typeof fakeConfig>).raw.targets['/hsa/targets/web-1'] = JSON.stringify({ url: secretUrl });

    const summary = await runCycle(d, at(1));

    expect(summary.configError).toBe(
      `/hsa/targets/web-1 (field url): expected a URL without credentials (put "user:password" in a SecureString named by authParameter), found "${secretUrl.replace('s3cret', '***')}"`,
    );
    expect(fetched).toEqual([page.url]);
    expect(subjects(await sns.drain())).toEqual(['[FIRING warning] httpd-status-alerts: invalid configuration']);
    const items = await dynamo.doc.send(new ScanCommand({ TableName: tableName }));
    expect(JSON.stringify(items.Items)).not.toContain('s3cret');
  });

  it("checks a target's secrets against the scope again before reading them: out of scope, nothing read or fetched", async () => {
    // Prepare: a configuration validated with a wider scope than the run's (as a shard's message could be)
    const targets = {
      '/hsa/targets/web-1': JSON.stringify({ url: page.url, authParameter: '/hsa/secrets/fleet' }),
    };
    const wider = { prefix: '/hsa', sharedSecretParameters: ['/hsa/secrets/fleet'] };
    const config = buildMonitorConfig({ targets, rules: { '/hsa/rules/closing': CLOSING_RULES }, silences: {} }, wider);
    const read: string[] = [];
    const fetched: string[] = [];
    const warnings: unknown[] = [];
    const d = deps({
      config: {
        loadRaw: async () => ({ targets, rules: {}, silences: {} }),
        getSecret: async (name) => {
          read.push(name);
          return 'ops:pw';
        },
      },
      fetch: (t) => {
        fetched.push(t.url);
        return fetchStatusPage(t);
      },
      logger: { ...quietLogger, warn: (message, attributes) => warnings.push({ message, ...attributes }) },
    });
    // Act
    const summary = await checkShard(d, config, at(0), null);
    // Assess
    expect([summary.targets, summary.down, read, fetched]).toEqual([1, 1, [], []]);
    expect(warnings).toEqual([
      {
        message: 'target down',
        target: 'web-1',
        reason: 'config',
        detail:
          'invalid configuration: target web-1 field authParameter: expected /hsa/secrets/web-1 or a parameter below it, or a shared secret (sharedSecretParameters: none), found "/hsa/secrets/fleet"',
      },
    ]);
  });

  const throttled = () => Object.assign(new Error('throughput exceeded'), { name: 'ThrottlingException' });
  const twoTargets = (): RawConfig => ({
    targets: {
      '/hsa/targets/web-1': JSON.stringify({ url: page.url, allowLoopback: true }),
      '/hsa/targets/web-2': JSON.stringify({ url: page.url, allowLoopback: true }),
    },
    rules: { '/hsa/rules/closing': CLOSING_RULES },
    silences: {},
  });

  it('the state table failing for the configuration alert and one target: the other target and the metrics still happen, the run counted as failed (no heartbeat)', async () => {
    const failing: StateTable = {
      ...table,
      loadMany: async (keys) => {
        if (keys.includes('config#alert')) throw throttled();
        return table.loadMany(keys);
      },
      put: async (key, item, version, now) => {
        if (key === 'target#web-2') throw throttled();
        return table.put(key, item, version, now);
      },
    };
    const runs: unknown[] = [];
    const d = deps({ raw: twoTargets(), table: failing, metrics: { target: () => {}, run: (v) => runs.push(v) } });
    await expect(runCycle(d, at(0))).rejects.toThrow(TargetsFailedError);
    expect(runs).toEqual([{ alertsSent: 1, targets: 2, targetsDown: 0, failed: true }]);
    expect(subjects(await sns.drain())).toEqual(['[FIRING critical] web-1: closing-seen (3 >= 3)']);
  });

  it('a configuration that cannot be stored is not acted on: targets fetched, metrics sent, nothing evaluated', async () => {
    // Why: a target that pages must be in the stored configuration, or its later removal would go unseen.
    const failing: StateTable = {
      ...table,
      getMeta: async () => {
        throw throttled();
      },
    };
    const runs: unknown[] = [];
    const d = deps({ raw: twoTargets(), table: failing, metrics: { target: () => {}, run: (v) => runs.push(v) } });
    await expect(runCycle(d, at(0))).rejects.toThrow(TargetsFailedError);
    expect(runs).toEqual([{ alertsSent: 0, targets: 2, targetsDown: 0, failed: true }]);
    expect(await sns.drain()).toEqual([]);
    await runCycle(deps({ raw: twoTargets() }), at(1)); // the table answers again
    expect(subjects(await sns.drain())).toHaveLength(2);
  });

  it('a cold start with invalid configuration uses the last valid one kept in the table', async () => {
    const good: RawConfig = {
      targets: { '/hsa/targets/web-1': JSON.stringify({ url: page.url, allowLoopback: true }) },
      rules: { '/hsa/rules/closing': CLOSING_RULES },
      silences: {},
    };
    await runCycle(deps({ raw: good }), at(0));
    await sns.drain();
    const coldAndBroken = deps({ raw: { ...good, targets: { '/hsa/targets/web-1': '{"url": 42}' } } });
    const summary = await runCycle(coldAndBroken, at(1));
    expect(summary.targets).toBe(1);
    expect(summary.configError).toBe('/hsa/targets/web-1 (field url): expected a string, found 42');
  });
});

describe('runCycle against servers that echo the request (memory table)', () => {
  const credentials = { username: 'ops', password: 'pa55:w@rd/correct horse battery' };
  let echo: EchoServer;

  beforeAll(async () => {
    echo = await startEchoServer();
  });
  afterAll(async () => {
    await echo.stop();
  });

  it('puts no form of the credentials in any page variant, PagerDuty event, log line or state item', async () => {
    // Prepare: one target per echo route, all with the same secret
    const pages: Notification[] = [];
    const logged: string[] = [];
    const written: string[] = [];
    const memory = createMemoryStateTable();
    const table: StateTable = {
      ...memory,
      put: (key, item, expected, now) => {
        written.push(JSON.stringify([key, item]));
        return memory.put(key, item, expected, now);
      },
      putMeta: (key, value, expected) => {
        written.push(JSON.stringify([key, value]));
        return memory.putMeta(key, value, expected);
      },
    };
    const targets = Object.fromEntries(
      ECHO_ROUTES.map((path) => [
        `/hsa/targets/echo${path.replaceAll('/', '-')}`,
        JSON.stringify({
          url: `${echo.origin}${path}`,
          authParameter: '/hsa/secrets/echo',
          timeoutMs: 2000,
          allowLoopback: true,
        }),
      ]),
    );
    const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
      void logged.push(JSON.stringify({ level, message, ...fields }));
    const deps: CycleDeps = {
      config: {
        loadRaw: async () => ({ targets, rules: {}, silences: {} }),
        getSecret: async (name) => {
          if (name !== '/hsa/secrets/echo') throw new Error(`no secret ${name} in this test`);
          return `${credentials.username}:${credentials.password}`;
        },
      },
      table,
      notifier: { publish: async (n) => void pages.push(n) },
      fetch: (t) => fetchStatusPage(t),
      metrics: noMetrics,
      logger: { info: log('info'), warn: log('warn'), error: log('error') },
      concurrency: 4,
      evaluate: { repeatIntervalMs: 4 * 3600_000, downAfterFailures: 2 },
      claimLeaseMs: 60_000,
      warm: new Map(),
      warmConfig: { applied: null },
      // One secret for every echo target: listed as shared, as a deploy would list it.
      secretScope: { prefix: '/hsa', sharedSecretParameters: ['/hsa/secrets/echo'] },
    };

    // Act: two runs a minute apart, so target-down fires
    await runCycle(deps, at(0));
    await runCycle(deps, at(1));

    // Assess: every target is down for its own reason, named in the log line
    const down = logged.filter((line) => JSON.parse(line).message === 'target down').map((line) => JSON.parse(line));
    expect(down.map((d) => `${d.target} ${d.reason}`).sort()).toEqual(
      [
        'echo-away redirect',
        'echo-echo not-a-report',
        'echo-echo-401 http-status',
        'echo-echo-500 http-status',
        'echo-echo-cut not-a-report',
        'echo-to-echo not-a-report',
      ].flatMap((line) => [line, line]),
    );
    expect(down.find((d) => d.target === 'echo-echo')?.detail).toContain('found "authorization: Basic ***\\n');
    expect(pages.map((p) => p.rule)).toContain('target-down');
    // Every variant of every page as SNS would publish it, and the PagerDuty events made from it.
    const variants = pages.flatMap((n) => {
      const message = JSON.parse(
        buildPublishInput(n, 'arn:aws:sns:eu-west-1:1:t', { chatbotFormat: true }).Message as string,
      );
      return [n.subject, ...Object.values(message as Record<string, string>)];
    });
    const events = pages.flatMap((n) =>
      Object.values(EVENTS_PER).flatMap((per) => pagerDutyEvents(JSON.stringify(n.payload), 'routing-key', per)),
    );
    expect(events.length).toBeGreaterThan(0);
    const everything = [...variants, JSON.stringify(events), ...logged, ...written].join('\n');
    expect(everything).toContain('Basic ***');
    expect(leaksIn(everything, credentials)).toEqual([]);
  });
});
