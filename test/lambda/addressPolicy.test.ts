/**
 * The address policy in the unmodified handler: the Lambda runtime API comes from
 * AWS_LAMBDA_RUNTIME_API, loopback needs the target's opt-in, link-local is never reached, and a
 * refused target is one more target down beside the others, which are still checked.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { PublishCommand, type PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';
import { GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalDynamo, startDynalite } from '../support/emulators.ts';

const PREFIX = '/hsa-addresses';
const IDLE = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-idle/report.html', import.meta.url), 'latin1');

const context = {
  functionName: 'httpd-status-alerts',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:httpd-status-alerts',
  memoryLimitInMB: '256',
  awsRequestId: 'req-addresses',
  logGroupName: '/aws/lambda/httpd-status-alerts',
  logStreamName: 'stream',
  getRemainingTimeInMillis: () => 60_000,
  callbackWaitsForEmptyEventLoop: false,
} as unknown as Context;

describe('handler: the address policy', () => {
  // The status page of a sidecar, and a stand-in for the runtime API; each counts its connections.
  const connections = { page: 0, runtimeApi: 0 };
  const page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(IDLE));
  const runtimeApi = createServer((_req, res) => res.end('{}'));
  page.on('connection', () => connections.page++);
  runtimeApi.on('connection', () => connections.runtimeApi++);
  const portOf = (server: typeof page) => (server.address() as { port: number }).port;
  let dynamo: LocalDynamo;
  const ssm = mockClient(SSMClient);
  const sns = mockClient(SNSClient);
  const written: string[] = [];

  beforeAll(async () => {
    await Promise.all(
      [page, runtimeApi].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))),
    );
    dynamo = await startDynalite();
    await dynamo.createTable('alerts');
    const targets = {
      sidecar: { url: `http://127.0.0.1:${portOf(page)}/server-status`, allowLoopback: true },
      'no-opt-in': { url: `http://127.0.0.1:${portOf(page)}/server-status` },
      'runtime-api': {
        url: `http://127.0.0.1:${portOf(runtimeApi)}/2018-06-01/runtime/invocation/next`,
        allowLoopback: true,
      },
      metadata: { url: 'http://[::ffff:a9fe:a9fe]/latest/meta-data/', allowLoopback: true },
    };
    ssm.on(GetParametersByPathCommand).callsFake((input: { Path: string }) => ({
      Parameters:
        input.Path === `${PREFIX}/targets`
          ? Object.entries(targets).map(([name, value]) => ({
              Name: `${PREFIX}/targets/${name}`,
              Value: JSON.stringify({ ...value, timeoutMs: 2000 }),
              Type: 'String',
            }))
          : [],
    }));
    sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
    for (const stream of [process.stdout, process.stderr]) {
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      });
    }
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamo.endpoint);
    vi.stubEnv('AWS_LAMBDA_RUNTIME_API', `127.0.0.1:${portOf(runtimeApi)}`);
    vi.stubEnv('SSM_PREFIX', PREFIX);
    vi.stubEnv('TOPIC_ARN', 'arn:aws:sns:eu-west-1:123456789012:alerts');
    vi.stubEnv('STATE_TABLE', 'alerts');
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
  }, 60_000);

  afterAll(async () => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    ssm.restore();
    sns.restore();
    for (const server of [page, runtimeApi]) server.closeAllConnections();
    await Promise.all([
      ...[page, runtimeApi].map((server) => new Promise((resolve) => server.close(resolve))),
      dynamo?.stop(),
    ]);
  });

  it('checks the sidecar, refuses the other three without connecting, and pages them down', async () => {
    // Act: two runs, as target-down waits for a second failure
    const { handler } = await import('../../src/lambda/handler.ts');
    await handler({}, context);
    await handler({}, context);
    // Assess
    expect(connections).toEqual({ page: 2, runtimeApi: 0 });
    const published = sns.commandCalls(PublishCommand).map((c) => c.args[0].input as PublishCommandInput);
    expect(published.map((p) => p.Subject)).toEqual([
      '[FIRING critical] target-down on 3 targets: metadata, no-opt-in, runtime-api',
    ]);
    const down = written
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('"target down"'))
      .map((line) => JSON.parse(line) as { target: string; reason: string; detail: string })
      .slice(0, 3)
      .map(({ target, reason, detail }) => ({ target, reason, detail }))
      .sort((a, b) => a.target.localeCompare(b.target));
    expect(down).toEqual([
      {
        target: 'metadata',
        reason: 'refused-address',
        detail:
          'refused to connect to ::ffff:a9fe:a9fe (link-local: instance metadata) for metadata - never fetched, whatever the target says: point the target at the server itself',
      },
      {
        target: 'no-opt-in',
        reason: 'refused-address',
        detail: `refused to connect to 127.0.0.1 (loopback: the monitor's own host) for no-opt-in - set "allowLoopback": true on the target if the server is a sidecar of the monitor`,
      },
      {
        target: 'runtime-api',
        reason: 'refused-address',
        detail: `refused to connect to 127.0.0.1 (lambda-runtime-api: the Lambda runtime API, port ${portOf(runtimeApi)}) for runtime-api - never fetched, even with allowLoopback: the function would be reading its own invocations`,
      },
    ]);
  }, 60_000);
});
