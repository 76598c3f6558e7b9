/**
 * Credentials in auth parameters, and credentials in URLs (refused in a target, quoted back by a
 * server), never leave the function: the unmodified handler runs against loopback servers, with
 * dynalite for its state and a recorded SNS, and everything it writes (every log line on
 * stdout/stderr, every variant of every page) is searched for them.
 */
import { createServer } from 'node:http';
import { PublishCommand, type PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';
import { GetParameterCommand, GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalDynamo, startDynalite } from '../support/emulators.ts';

const PREFIX = '/hsa-secrets';
const URL_PASSWORD = 'url-s3cret-9f2c';
const PARAMETER_PASSWORD = 'param-s3cret-41ab';

const context = {
  functionName: 'httpd-status-alerts',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:httpd-status-alerts',
  memoryLimitInMB: '256',
  awsRequestId: 'req-secrets',
  logGroupName: '/aws/lambda/httpd-status-alerts',
  logStreamName: 'stream',
  getRemainingTimeInMillis: () => 60_000,
  callbackWaitsForEmptyEventLoop: false,
} as unknown as Context;

describe('handler: no credential in any log line or page', () => {
  const seenAuthorization: string[] = [];
  // Every answer quotes the credentialed URL back, as a confused proxy or error page might.
  const server = createServer((req, res) => {
    seenAuthorization.push(req.headers.authorization ?? 'none');
    const port = (server.address() as { port: number }).port;
    const leaked = `http://ops:${URL_PASSWORD}@127.0.0.1:${port}/server-status`;
    if (req.url === '/moved') {
      res.writeHead(302, { location: `http://ops:${URL_PASSWORD}@localhost:${port}/server-status` });
      return res.end();
    }
    if (req.url === '/missing') {
      res.statusCode = 404;
      return res.end(`no status page at ${leaked}`);
    }
    res.end(`<html><body>Login required: ${leaked}</body></html>`);
  });
  const port = () => (server.address() as { port: number }).port;
  let dynamo: LocalDynamo;
  const ssm = mockClient(SSMClient);
  const sns = mockClient(SNSClient);
  const written: string[] = [];
  let parameters: Array<{ Name: string; Value: string }> = [];

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    dynamo = await startDynalite();
    await dynamo.createTable('alerts');
    ssm.on(GetParametersByPathCommand).callsFake((input: { Path: string }) => ({
      Parameters: parameters.filter((p) => p.Name.startsWith(`${input.Path}/`)).map((p) => ({ ...p, Type: 'String' })),
    }));
    ssm.on(GetParameterCommand).resolves({
      Parameter: { Name: `${PREFIX}/secrets/web-2`, Type: 'SecureString', Value: `ops:${PARAMETER_PASSWORD}` },
    });
    sns.on(PublishCommand).resolves({ MessageId: 'm-1' });
    for (const stream of [process.stdout, process.stderr]) {
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      });
    }
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamo.endpoint);
    vi.stubEnv('SSM_PREFIX', PREFIX);
    vi.stubEnv('TOPIC_ARN', 'arn:aws:sns:eu-west-1:123456789012:alerts');
    vi.stubEnv('STATE_TABLE', 'alerts');
    vi.stubEnv('CONFIG_MAX_AGE_SECONDS', '0');
    vi.stubEnv('CHATBOT_FORMAT', 'true');
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'DEBUG');
  }, 60_000);

  afterAll(async () => {
    vi.restoreAllMocks();
    ssm.restore();
    sns.restore();
    vi.unstubAllEnvs();
    server.closeAllConnections();
    await Promise.all([new Promise((resolve) => server.close(resolve)), dynamo?.stop()]);
  });

  it('pages target-down and the configuration alert without the passwords they were given', async () => {
    // Prepare: credentials in an auth parameter (web-2); web-3 and web-4 answer with a credentialed URL
    const target = (name: string, value: object) => ({
      Name: `${PREFIX}/targets/${name}`,
      // The page server listens on loopback, which a target must opt into.
      Value: JSON.stringify({ ...value, allowLoopback: true }),
    });
    const plain = (path: string) => `http://127.0.0.1:${port()}${path}`;
    const inUrl = (path: string) => `http://ops:${URL_PASSWORD}@127.0.0.1:${port()}${path}`;
    parameters = [
      target('web-2', {
        url: plain('/server-status'),
        authParameter: `${PREFIX}/secrets/web-2`,
        timeoutMs: 2000,
      }),
      target('web-3', { url: plain('/moved'), timeoutMs: 2000 }),
      target('web-4', { url: plain('/missing'), timeoutMs: 2000 }),
    ];
    const { handler } = await import('../../src/lambda/handler.ts');

    // Act: two runs page target-down for all three; then a target with credentials in its URL,
    // which the configuration refuses (the last valid one stays in force)
    await handler({}, context);
    await handler({}, context);
    parameters = [...parameters, target('web-1', { url: inUrl('/server-status'), timeoutMs: 2000 })];
    await handler({}, context).catch(() => undefined);

    // Assess: the auth parameter's credentials were used, the URL's never...
    expect(seenAuthorization).toContain(`Basic ${Buffer.from(`ops:${PARAMETER_PASSWORD}`).toString('base64')}`);
    expect(seenAuthorization).not.toContain(`Basic ${Buffer.from(`ops:${URL_PASSWORD}`).toString('base64')}`);
    // ...the pages went out (every variant is in the publish input)...
    const published = sns.commandCalls(PublishCommand).map((c) => c.args[0].input as PublishCommandInput);
    // (the three target-down alerts fire in one run: one page for their group, the newest in detail)
    expect(published.map((p) => p.Subject).sort()).toEqual([
      '[FIRING critical] target-down on 3 targets: web-2, web-3, web-4',
      '[FIRING warning] httpd-status-alerts: invalid configuration',
    ]);
    const pages = JSON.stringify(published);
    expect(pages).toContain('ops:***@');
    // ...and neither password is anywhere in them or in the logs.
    const logs = written.join('');
    expect(logs).toContain('target down');
    expect(logs).toContain('invalid configuration');
    for (const secret of [URL_PASSWORD, PARAMETER_PASSWORD]) {
      expect(pages).not.toContain(secret);
      expect(logs).not.toContain(secret);
      expect(pages).not.toContain(Buffer.from(`ops:${secret}`).toString('base64'));
    }
  }, 60_000);
});
