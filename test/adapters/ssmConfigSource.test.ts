import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { GetParameterCommand, GetParametersByPathCommand, ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSsmConfigSource, SecretNotFoundError } from '../../src/adapters/ssmConfigSource.ts';
import { configMaxAgeFor } from '../../src/lambda/environmentContract.ts';

const ssm = mockClient(SSMClient);
afterEach(() => ssm.reset());

const PARAMETERS = [
  { Name: '/p/targets/web-1', Value: '{"url":"http://10.0.0.1/server-status"}' },
  { Name: '/p/targets/web-2', Value: '{"url":"http://10.0.0.2/server-status"}' },
  { Name: '/p/targets/eu/web-3', Value: '{"url":"http://10.0.0.3/server-status"}' },
  { Name: '/p/rules/defaults', Value: '{"rules":[]}' },
  { Name: '/p/discovery/web', Value: '{"source":"ec2"}' },
];

/** Serves GetParametersByPath one parameter per page, as SSM may. */
function serveByPath() {
  ssm
    .on(GetParametersByPathCommand)
    .callsFake((input: { Path: string; Recursive?: boolean; WithDecryption?: boolean; NextToken?: string }) => {
      expect(input.Recursive).toBe(true);
      expect(input.WithDecryption).toBe(true);
      const inFolder = PARAMETERS.filter((p) => p.Name.startsWith(`${input.Path}/`));
      const index = input.NextToken === undefined ? 0 : Number(input.NextToken);
      return {
        Parameters: inFolder.slice(index, index + 1).map((p) => ({ ...p, Type: 'String' })),
        NextToken: index + 1 < inFolder.length ? String(index + 1) : undefined,
      };
    });
}

describe('ssmConfigSource', () => {
  it('reads the four folders page by page, with full parameter names', async () => {
    serveByPath();
    const source = createSsmConfigSource(new SSMProvider(), '/p', 60);
    const raw = await source.loadRaw();
    expect(raw).toEqual({
      targets: {
        '/p/targets/web-1': '{"url":"http://10.0.0.1/server-status"}',
        '/p/targets/web-2': '{"url":"http://10.0.0.2/server-status"}',
        '/p/targets/eu/web-3': '{"url":"http://10.0.0.3/server-status"}',
      },
      rules: { '/p/rules/defaults': '{"rules":[]}' },
      silences: {},
      discovery: { '/p/discovery/web': '{"source":"ec2"}' },
    });
    // 3 pages of targets, 1 of rules, 1 (empty) of silences, 1 of discovery.
    expect(ssm.commandCalls(GetParametersByPathCommand)).toHaveLength(6);
  });

  it('serves a warm run from its cache for maxAge seconds', async () => {
    serveByPath();
    const source = createSsmConfigSource(new SSMProvider(), '/p', 60);
    await source.loadRaw();
    await source.loadRaw();
    expect(ssm.commandCalls(GetParametersByPathCommand)).toHaveLength(6);
  });

  it('reads SSM again within maxAge when asked for a fresh copy (another container applied a newer one)', async () => {
    serveByPath();
    const source = createSsmConfigSource(new SSMProvider(), '/p', 60);
    await source.loadRaw();
    await source.loadRaw({ fresh: true });
    await source.loadRaw();
    // Twice six pages (four folders): the fresh read bypassed the cache; the third is cached.
    expect(ssm.commandCalls(GetParametersByPathCommand)).toHaveLength(12);
  });

  // A one-minute schedule's runs, a second or two early or late (seconds since the first).
  const RUNS = [0, 61, 119, 181, 242, 300, 359, 421, 479, 541, 600];
  it.each([
    { intent: 'a 60 s cache expires on most runs', maxAge: 60, reads: [0, 61, 181, 242, 359, 421, 541] },
    {
      intent: 'the default for the schedule reads on every fifth run',
      maxAge: configMaxAgeFor(1),
      reads: [0, 300, 600],
    },
  ])('on a one-minute schedule: $intent', async ({ maxAge, reads }) => {
    // Prepare
    serveByPath();
    vi.useFakeTimers({ toFake: ['Date'] });
    const source = createSsmConfigSource(new SSMProvider(), '/p', maxAge);
    const readAt: number[] = [];
    try {
      // Act: time stepped run by run.
      for (const second of RUNS) {
        vi.setSystemTime(Date.UTC(2026, 10, 23, 12, 0, 0) + second * 1000);
        const before = ssm.commandCalls(GetParametersByPathCommand).length;
        await source.loadRaw();
        if (ssm.commandCalls(GetParametersByPathCommand).length > before) readAt.push(second);
      }
    } finally {
      vi.useRealTimers();
    }
    // Assess
    expect(readAt).toEqual(reads);
  });

  it('decrypts a secret, and names a missing one', async () => {
    ssm
      .on(GetParameterCommand, { Name: '/p/secrets/web-1', WithDecryption: true })
      .resolves({ Parameter: { Name: '/p/secrets/web-1', Value: 'monitor:s3cret', Type: 'SecureString' } })
      .on(GetParameterCommand, { Name: '/p/secrets/nope' })
      .rejects(new ParameterNotFound({ message: 'not found', $metadata: {} }));
    const source = createSsmConfigSource(new SSMProvider(), '/p', 60);
    expect(await source.getSecret('/p/secrets/web-1')).toBe('monitor:s3cret');
    await expect(source.getSecret('/p/secrets/nope')).rejects.toThrow(SecretNotFoundError);
    await expect(source.getSecret('/p/secrets/nope')).rejects.toThrow(
      'expected the SSM parameter /p/secrets/nope to exist and be readable, found none',
    );
  });
});
