/**
 * 10,000 realistic targets (an `authParameter` and four labels, 262-293 bytes each) in list
 * documents, read by the Lambda's configuration source from the SSM stand-in throttling at SSM's
 * shared 40 calls a second: how many parameters they take and how many GetParametersByPath calls
 * one configuration read makes, per tier. Both layouts are written by `targets pack` from one
 * parameter per target (the move the docs describe), what each list's targets share factored
 * into its `defaults` (here the URL, `allowLoopback`, `timeoutMs` and three of the four labels;
 * each entry keeps its name, its own `authParameter` and its `role` label).
 */
import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSsmConfigSource } from '../../src/adapters/ssmConfigSource.ts';
import { buildMonitorConfig, type TargetConfig } from '../../src/core/monitorConfig.ts';
import { PARAMETER_TIERS } from '../../src/core/targetDocuments.ts';
import { runCli } from '../cli/fakeIo.ts';
import { type FakeSsm, startFakeSsm } from '../support/fakeSsm.ts';
import { realisticTargets } from '../support/realisticTargets.ts';

const CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };
const SCOPE = { prefix: '/s', sharedSecretParameters: [] };
const URL = 'https://web.eu-west-1.internal:8443/server-status?auto';
const FLEET = 10_000;

describe('10,000 realistic targets in list documents', { tags: ['slow'], timeout: 120_000 }, () => {
  let fake: FakeSsm;
  let client: SSMClient;
  const singles = realisticTargets(FLEET, '/s', URL);
  /** The fleet as one parameter per target reads it: what every list layout must read back to. */
  const expected: TargetConfig[] = buildMonitorConfig({ targets: singles, rules: {}, silences: {} }, SCOPE).targets;

  beforeAll(async () => {
    fake = await startFakeSsm();
    client = new SSMClient({ endpoint: fake.endpoint, region: 'eu-west-1', maxAttempts: 1, credentials: CREDENTIALS });
    vi.stubEnv('AWS_ENDPOINT_URL_SSM', fake.endpoint);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    client.destroy();
    await fake.stop();
  });

  /** One configuration read through the Lambda's source, throttled as SSM is: the calls it made and what it read. */
  async function read(callsPerSecond: number | null = 40) {
    fake.reset();
    fake.throttle(callsPerSecond);
    const source = createSsmConfigSource(new SSMProvider({ awsSdkV3Client: client }), '/s', 60, { client });
    const raw = await source.loadRaw();
    fake.throttle(null);
    const byPath = (fake.calls.GetParametersByPath ?? 0) - fake.throttled;
    return { raw, byPath, config: buildMonitorConfig(raw, SCOPE) };
  }

  const tiers = () => {
    const count: Record<string, number> = {};
    for (const [name, p] of fake.parameters)
      if (name.startsWith('/s/targets/')) count[p.tier] = (count[p.tier] ?? 0) + 1;
    return count;
  };

  it('one parameter per target: 10,000 parameters, 1,003 calls a read (the layout lists replace)', async () => {
    for (const [name, text] of Object.entries(singles)) fake.put(name, text);
    // Not throttled: at 40 a second these calls take 25 s, past the read's 15 s budget.
    const { byPath, config } = await read(null);
    expect(tiers()).toEqual({ Standard: 10_000 });
    // 1,000 pages of targets, one each for rules, silences and discovery (empty).
    expect(byPath).toBe(1003);
    expect(config.targets).toEqual(expected);
  });

  /** The fleet back in one parameter per target, then `targets pack` with `tier`: its last line. */
  async function pack(tier: 'standard' | 'advanced') {
    for (const name of [...fake.parameters.keys()]) (fake.parameters as Map<string, unknown>).delete(name);
    for (const [name, text] of Object.entries(singles)) fake.put(name, text);
    const packed = await runCli(['targets', 'pack', '--tier', tier, '--prefix', '/s']);
    expect(packed.err).toBe('');
    expect(packed.code).toBe(0);
    return packed.out.split('\n').at(-2);
  }

  it('targets pack --tier advanced: 173 parameters of at most 8 KB, 21 calls a read', async () => {
    expect(await pack('advanced')).toBe('moved 10000 targets from their own parameters into 173 list documents');
    const { raw, byPath, config } = await read();
    expect(tiers()).toEqual({ Advanced: 173 });
    expect(Math.max(...Object.values(raw.targets).map((t) => t.length))).toBeLessThanOrEqual(
      PARAMETER_TIERS.Advanced.maxChars,
    );
    // 18 pages of targets (173 parameters, 10 a page), one each for the other folders.
    expect(byPath).toBe(21);
    expect(config.targets.map((t) => t.name)).toEqual(expected.map((t) => t.name));
    expect(config.targets).toEqual(expected);
  });

  it('targets pack on the standard tier (free): 358 parameters of at most 4 KB, 39 calls a read', async () => {
    expect(await pack('standard')).toBe('moved 10000 targets from their own parameters into 358 list documents');
    const { raw, byPath, config } = await read();
    expect(tiers()).toEqual({ Standard: 358 });
    expect(Math.max(...Object.values(raw.targets).map((t) => t.length))).toBeLessThanOrEqual(
      PARAMETER_TIERS.Standard.maxChars,
    );
    // 36 pages of targets, one each for the other folders.
    expect(byPath).toBe(39);
    expect(config.targets).toEqual(expected);
  });
});
