/**
 * The Lambda bundle's credential provider: the environment's keys, else a container credentials
 * endpoint (a real HTTP server on loopback), else an error naming both.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultProvider, LambdaCredentialsError } from '../../src/lambda/credentials.ts';

const VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
];

describe('defaultProvider (src/lambda/credentials.ts)', () => {
  let endpoint: Server;
  let endpointUrl: string;
  const authorizations: Array<string | undefined> = [];

  beforeAll(async () => {
    endpoint = createServer((req, res) => {
      authorizations.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          AccessKeyId: 'ASIACONTAINER',
          SecretAccessKey: 'container-secret',
          Token: 'container-token',
          Expiration: '2030-01-01T00:00:00Z',
        }),
      );
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/creds`;
  });
  afterAll(() => new Promise<void>((resolve) => endpoint.close(() => resolve())));
  afterEach(() => {
    vi.unstubAllEnvs();
    authorizations.length = 0;
  });

  function environment(values: Partial<Record<string, string>>): void {
    for (const name of VARIABLES) vi.stubEnv(name, values[name] ?? '');
  }

  it.each([
    {
      case: 'keys and session token in the environment, as Lambda sets them',
      env: { AWS_ACCESS_KEY_ID: 'ASIAENV', AWS_SECRET_ACCESS_KEY: 'env-secret', AWS_SESSION_TOKEN: 'env-token' },
      container: false,
      expected: { accessKeyId: 'ASIAENV', secretAccessKey: 'env-secret', sessionToken: 'env-token' },
      authorization: [],
    },
    {
      case: 'the environment wins over a container endpoint',
      env: { AWS_ACCESS_KEY_ID: 'ASIAENV', AWS_SECRET_ACCESS_KEY: 'env-secret' },
      container: true,
      expected: { accessKeyId: 'ASIAENV', secretAccessKey: 'env-secret' },
      authorization: [],
    },
    {
      case: 'no keys: the container endpoint, with its authorization token',
      env: { AWS_CONTAINER_AUTHORIZATION_TOKEN: 'token-1' },
      container: true,
      expected: {
        accessKeyId: 'ASIACONTAINER',
        secretAccessKey: 'container-secret',
        sessionToken: 'container-token',
        expiration: new Date('2030-01-01T00:00:00Z'),
      },
      authorization: ['token-1'],
    },
  ])('$case', async ({ env, container, expected, authorization }) => {
    environment(container ? { ...env, AWS_CONTAINER_CREDENTIALS_FULL_URI: endpointUrl } : env);
    const credentials = await defaultProvider()();
    expect(credentials).toMatchObject(expected);
    expect(authorizations).toEqual(authorization);
  });

  it('with neither, says what it expected and found', async () => {
    environment({ AWS_SECRET_ACCESS_KEY: 'secret without a key' });
    const error = await defaultProvider()().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LambdaCredentialsError);
    expect((error as Error).message).toBe(
      'expected AWS credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (Lambda sets them) or a container ' +
        'credentials endpoint in AWS_CONTAINER_CREDENTIALS_FULL_URI or _RELATIVE_URI, found neither; ' +
        'the Lambda bundle carries only these two credential sources',
    );
  });

  it('reads the environment per call, so a provider made before the keys were set still finds them', async () => {
    environment({});
    const provider = defaultProvider();
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'ASIALATE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'late-secret');
    expect(await provider()).toMatchObject({ accessKeyId: 'ASIALATE', secretAccessKey: 'late-secret' });
  });
});
