/**
 * Page accounting end to end through the synthesized bundle under the Lambda runtime interface
 * client: removal resolves, a crash between publish and commit, an impossible number in a
 * report, a rules parameter of thousands of problems, 3,000 targets, and how little a steady
 * run writes. DynamoDB is reached through a tap that counts writes and can kill the function
 * between two calls.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { synth } from '../infra/synth.ts';
import { type DynamoTap, startDynamoTap } from '../support/dynamoTap.ts';
import { credentials, type LocalDynamo, type LocalSns, region, startDynalite, startSns } from '../support/emulators.ts';
import { type FakeSsm, type LambdaProcess, startFakeSsm, startLambda } from '../support/fakeLambda.ts';
import { onlyTheseRules } from '../support/rulesDocuments.ts';

const BUSY = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-busy/report.html', import.meta.url), 'latin1');
const IDLE = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-idle/report.html', import.meta.url), 'latin1');
const SCHEDULED_EVENT = { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} };
// One page per alert (`groupBy: []`): these follow each alert's accounting; grouping through the
// bundle has its own test (lambdaBundle.grouping.test.ts).
const rule = (name: string) => ({
  name,
  metric: 'slots_closing',
  op: '>=',
  threshold: 3,
  severity: 'critical',
  groupBy: [],
});

describe('page accounting through the synthesized bundle', () => {
  let dynamo: LocalDynamo;
  let tap: DynamoTap;
  let sns: LocalSns;
  let ssm: FakeSsm;
  let lambda: LambdaProcess;
  let assetDir: string;
  let page: Server;
  let pageUrl: string;
  const bodies = new Map<string, string>();

  const env = () => ({
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_ENDPOINT_URL_SSM: ssm.endpoint,
    AWS_ENDPOINT_URL_SNS: sns.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: tap.endpoint,
    SSM_PREFIX: '/acc',
    TOPIC_ARN: sns.topicArn,
    STATE_TABLE: 'accounting',
    CONFIG_MAX_AGE_SECONDS: '0', // every run reads the parameters the test just changed
    TARGET_METRICS: 'none',
    FETCH_CONCURRENCY: '32',
  });

  const run = async () => {
    try {
      return (await lambda.invoke(SCHEDULED_EVENT)) as Record<string, unknown>;
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${lambda.output().slice(-3000)}`);
    }
  };
  const subjects = async (prefix: string) =>
    (await sns.drain()).map((m) => m.subject ?? '').filter((s) => s.includes(prefix));
  const setTargets = (names: string[]) => {
    for (const key of [...ssm.parameters.keys()]) if (key.startsWith('/acc/targets/')) ssm.parameters.delete(key);
    for (const name of names)
      ssm.parameters.set(
        `/acc/targets/${name}`,
        JSON.stringify({ url: `${pageUrl}/${name}`, timeoutMs: 2000, allowLoopback: true }),
      );
  };
  const setRules = (...names: string[]) => ssm.parameters.set('/acc/rules/main', onlyTheseRules(names.map(rule)));

  beforeAll(async () => {
    const { template, outdir } = synth({}, { bundle: true });
    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0] as {
      Properties: { Code: { S3Key: string } };
    };
    assetDir = join(outdir, `asset.${fn.Properties.Code.S3Key.replace(/\.zip$/, '')}`);
    [dynamo, sns, ssm] = await Promise.all([startDynalite(), startSns(), startFakeSsm()]);
    tap = await startDynamoTap(dynamo.endpoint);
    await dynamo.createTable('accounting');
    page = createServer((req, res) => {
      const name = (req.url ?? '').slice(1);
      const body = bodies.get(name) ?? IDLE;
      res.writeHead(200, { 'content-type': body.startsWith('<') ? 'text/html' : 'text/plain' }).end(body);
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    setRules('closing-seen');
    lambda = await startLambda(assetDir, env());
  }, 180_000);

  afterAll(async () => {
    await lambda?.stop();
    page?.closeAllConnections();
    await Promise.all([
      tap?.stop(),
      dynamo?.stop(),
      sns?.stop(),
      ssm?.stop(),
      new Promise<void>((resolve) => (page ? page.close(() => resolve()) : resolve())),
    ]);
  });

  it('a target removed while firing is resolved, saying why', async () => {
    bodies.set('web-a', BUSY);
    setTargets(['web-a', 'web-keep']);
    await run();
    expect(await subjects('web-a')).toEqual(['[FIRING critical] web-a: closing-seen (3 >= 3)']);
    setTargets(['web-keep']);
    await run();
    expect(await subjects('web-a')).toEqual([
      '[RESOLVED critical] web-a: closing-seen (target removed from configuration)',
    ]);
    await run();
    expect(await subjects('web-a')).toEqual([]);
  }, 60_000);

  it('a rule renamed while firing: the old alert resolved (rule removed), the new one fires', async () => {
    bodies.set('web-b', BUSY);
    setTargets(['web-b']);
    await run();
    expect(await subjects('web-b')).toEqual(['[FIRING critical] web-b: closing-seen (3 >= 3)']);
    setRules('closing-renamed');
    await run();
    expect((await subjects('web-b')).sort()).toEqual([
      '[FIRING critical] web-b: closing-renamed (3 >= 3)',
      '[RESOLVED critical] web-b: closing-seen (rule removed)',
    ]);
    setRules('closing-seen');
    bodies.set('web-b', IDLE);
    await run();
    expect((await subjects('web-b')).sort()).toEqual(['[RESOLVED critical] web-b: closing-renamed (rule removed)']);
  }, 60_000);

  it('the function dies after SNS accepted a page: the next run sends it again, then the resolve', async () => {
    bodies.set('web-c', BUSY);
    setTargets(['web-c']);
    let claimed = false;
    const killed = new Promise<void>((resolve) => {
      tap.onKill = () => {
        void lambda.stop();
        resolve();
      };
    });
    // The claim on web-c passes, and the read of the configuration pointer a new item makes before
    // its pages go out (a removal raced with is owed); the next write (the commit, after the
    // publish) kills the function.
    tap.hook = (operation, body) => {
      if (claimed && operation !== 'GetItem') return 'kill';
      if (operation === 'PutItem' && body.includes('target#web-c') && body.includes('"claim"')) claimed = true;
      return 'pass';
    };
    void lambda.invoke(SCHEDULED_EVENT).catch(() => {});
    await killed;
    tap.hook = null;
    expect(await subjects('web-c')).toEqual(['[FIRING critical] web-c: closing-seen (3 >= 3)']);

    // The lease (5 minutes) passes: stepped by moving the claim's expiry into the past.
    await dynamo.doc.send(
      new UpdateCommand({
        TableName: 'accounting',
        Key: { pk: 'target#web-c' },
        UpdateExpression: 'SET claim.expiresAtMs = :past',
        ExpressionAttributeValues: { ':past': Date.now() - 1 },
      }),
    );
    bodies.set('web-c', IDLE);
    lambda = await startLambda(assetDir, env()); // a cold start
    await run();
    expect(await subjects('web-c')).toEqual([
      '[FIRING critical] web-c: closing-seen (3 >= 3)', // the page in flight, sent again: the one duplicate
      '[RESOLVED critical] web-c: closing-seen (now 0)',
    ]);
    await run();
    expect(await subjects('web-c')).toEqual([]);
  }, 90_000);

  it('Total Accesses: 1e+999 in one report fails nothing: that target is checked and stored, the others too', async () => {
    const auto = readFileSync(
      new URL('../fixtures/apache-2.4.71/prefork-busy/report.auto.txt', import.meta.url),
      'latin1',
    ).replace(/^Total Accesses: .*$/m, 'Total Accesses: 1e+999');
    bodies.set('web-d', auto);
    bodies.set('web-d2', BUSY);
    setTargets(['web-d', 'web-d2']);
    const result = await run();
    expect(result).toMatchObject({ targets: 2, failed: 0 });
    expect((await subjects('web-d')).sort()).toEqual([
      '[FIRING critical] web-d2: closing-seen (3 >= 3)',
      expect.stringMatching(/^\[FIRING critical\] web-d: closing-seen/),
    ]);
    const second = await run();
    expect(second).toMatchObject({ targets: 2, failed: 0 });
    bodies.set('web-d', IDLE);
    bodies.set('web-d2', IDLE);
    await run();
    expect(await subjects('web-d')).toHaveLength(2);
  }, 60_000);

  it('a 4 KB rules parameter of empty rules: one configuration alert that fits SNS, resolved when fixed', async () => {
    setTargets(['web-e']);
    let text = '{"rules":[{}';
    while (text.length < 4096 - 6) text += ',{}';
    ssm.parameters.set('/acc/rules/empty', `${text}]}`);
    await run();
    const messages = (await sns.drain()).filter((m) => m.subject?.includes('httpd-status-alerts'));
    expect(messages.map((m) => m.subject)).toEqual(['[FIRING warning] httpd-status-alerts: invalid configuration']);
    const payload = JSON.parse(messages[0]?.body as string) as { problemCount: number; problems: string[] };
    expect(payload.problemCount).toBeGreaterThan(5000);
    expect(payload.problems.at(-1)).toBe(`... and ${payload.problemCount - 50} more`);
    expect(Buffer.byteLength(messages[0]?.body as string)).toBeLessThan(32 * 1024);
    await run();
    expect(await subjects('httpd-status-alerts')).toEqual([]);
    ssm.parameters.delete('/acc/rules/empty');
    await run();
    expect(await subjects('httpd-status-alerts')).toEqual([
      '[RESOLVED warning] httpd-status-alerts: configuration valid again',
    ]);
  }, 60_000);

  it('steady runs of 20 targets write at most one item per ten targets a run', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `steady-${String(i).padStart(2, '0')}`);
    setTargets(names);
    await run(); // new targets are written once
    await run(); // the removals of the earlier cases' targets are done by now
    tap.resetWrites();
    for (let i = 0; i < 5; i++) await run();
    // Steady runs write almost nothing: at most one write per ten targets per run on average: 2 a run here. New targets are
    // first written spread over 15 minutes, so a few may land in these runs; nothing else writes.
    expect(tap.writes()).toBeLessThanOrEqual(10);
    await sns.drain();
  }, 60_000);

  it('3,000 targets in default mode: configuration accepted and stored, every target run', async () => {
    const names = Array.from({ length: 3000 }, (_, i) => `fleet-${String(i).padStart(4, '0')}`);
    const auto = readFileSync(
      new URL('../fixtures/apache-2.4.71/prefork-idle/report.auto.txt', import.meta.url),
      'latin1',
    );
    for (const name of names) bodies.set(name, auto);
    setTargets(names);
    await lambda.stop();
    // Why the longer deadline and the cache: the fake SSM answers one parameter per page (3,000
    // calls where SSM makes 300), and this machine's shared cores are slower than the stack's
    // timeout assumes; what is tested here is that the configuration is accepted and stored.
    lambda = await startLambda(assetDir, { ...env(), CONFIG_MAX_AGE_SECONDS: '300' }, { deadlineMs: 600_000 });
    let started = Date.now();
    const first = await run();
    const firstMs = Date.now() - started;
    expect(first).toMatchObject({ targets: 3000, down: 0, failed: 0, configError: null });
    tap.resetWrites();
    started = Date.now();
    const steady = await run();
    const steadyMs = Date.now() - started;
    expect(steady).toMatchObject({ targets: 3000, down: 0, failed: 0 });
    // Steady runs write almost nothing: at most one write per ten targets a run (new targets' first writes spread over 15 minutes).
    expect(tap.writes()).toBeLessThanOrEqual(300);
    console.log(
      `3,000 targets through the bundle: first run ${firstMs} ms, second ${steadyMs} ms, ${tap.writes()} writes`,
    );
    await sns.drain();
  }, 900_000);
});
