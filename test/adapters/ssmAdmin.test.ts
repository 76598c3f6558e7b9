/**
 * The admin adapter against the fake SSM over HTTP: a folder read across pages, create without
 * overwrite refused, replace, delete of a missing parameter, and the tiers as SSM enforces them.
 */
import { SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSsmAdmin, type ParameterAdmin, ParameterExistsError } from '../../src/adapters/ssmAdmin.ts';
import { credentials, region } from '../support/emulators.ts';
import { type FakeSsm, startFakeSsm } from '../support/fakeSsm.ts';

describe('createSsmAdmin', () => {
  let ssm: FakeSsm;
  let admin: ParameterAdmin;

  beforeAll(async () => {
    ssm = await startFakeSsm();
    admin = createSsmAdmin(new SSMClient({ endpoint: ssm.endpoint, region, credentials }));
  });
  afterAll(() => ssm.stop());

  it('lists a folder of 25 parameters across three pages, sorted, and nothing outside it', async () => {
    // Prepare
    for (let i = 24; i >= 0; i -= 1) ssm.put(`/p/targets/t-${String(i).padStart(2, '0')}`, `v${i}`);
    ssm.put('/p/targets-other/x', 'no');
    ssm.reset();
    // Act
    const listed = await admin.list('/p/targets');
    // Assess
    expect(Object.keys(listed)).toEqual(
      Array.from({ length: 25 }, (_, i) => `/p/targets/t-${String(i).padStart(2, '0')}`),
    );
    expect(listed['/p/targets/t-07']).toBe('v7');
    expect(ssm.calls).toEqual({ GetParametersByPath: 3 });
  });

  it('creates, refuses to overwrite without replace, replaces with it, and deletes', async () => {
    await admin.put('/p/silences/a', 'one', { replace: false });
    await expect(admin.put('/p/silences/a', 'two', { replace: false })).rejects.toThrow(
      new ParameterExistsError('/p/silences/a'),
    );
    expect(ssm.parameters.get('/p/silences/a')).toEqual({ value: 'one', type: 'String', version: 1, tier: 'Standard' });
    expect(await admin.put('/p/silences/a', 'two', { replace: true })).toBe(2);
    expect(ssm.parameters.get('/p/silences/a')).toEqual({ value: 'two', type: 'String', version: 2, tier: 'Standard' });
    expect(await admin.get('/p/silences/a')).toEqual({ value: 'two', version: 2 });
    expect(await admin.remove('/p/silences/a')).toBe(true);
    expect(await admin.remove('/p/silences/a')).toBe(false);
  });

  it('reads a folder with each version, deletes ten names a call', async () => {
    for (let i = 0; i < 12; i++) ssm.put(`/q/targets/t-${String(i).padStart(2, '0')}`, `v${i}`);
    ssm.put('/q/targets/t-03', 'again');
    ssm.reset();
    const read = await admin.entries('/q/targets');
    expect(read['/q/targets/t-03']).toEqual({ value: 'again', version: 2 });
    const names = Object.keys(read);
    expect(await admin.removeAll([...names, '/q/targets/none'])).toEqual(names);
    expect(ssm.calls).toEqual({ GetParametersByPath: 2, DeleteParameters: 2 });
  });

  /** SSM's words for a value too long for the standard tier. */
  const STANDARD_REFUSAL =
    'Standard tier parameters support a maximum parameter value of 4096 characters. To create a larger parameter value, upgrade the parameter to use the advanced-parameter tier. For more information, see https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-advanced-parameters.html';

  it.each<[string, number, 'Standard' | 'Advanced' | undefined, 'Standard' | 'Advanced' | string]>([
    // [case, characters, tier asked, the tier stored or the refusal]
    ['4,096 characters on Standard', 4096, 'Standard', 'Standard'],
    ['4,097 characters on Standard: refused', 4097, 'Standard', `ValidationException: ${STANDARD_REFUSAL}`],
    ['8,192 characters on Advanced', 8192, 'Advanced', 'Advanced'],
    [
      '8,193 characters on Advanced: refused',
      8193,
      'Advanced',
      'ValidationException: Advanced tier parameters support a maximum parameter value of 8192 characters.',
    ],
    ['4,097 characters, no tier asked: Advanced', 4097, undefined, 'Advanced'],
  ])('%s', async (_case, chars, tier, expected) => {
    const name = `/t/${chars}-${tier ?? 'none'}`;
    const put = admin.put(name, 'x'.repeat(chars), { replace: false, ...(tier === undefined ? {} : { tier }) });
    if (expected.startsWith('ValidationException')) {
      await expect(put).rejects.toMatchObject({ name: 'ValidationException', message: expected.slice(21) });
      expect(ssm.parameters.has(name)).toBe(false);
    } else {
      await put;
      expect(ssm.parameters.get(name)?.tier).toBe(expected);
      expect(await admin.tierOf(name)).toBe(expected);
    }
  });

  it('keeps an advanced parameter advanced: a downgrade is refused as SSM refuses it', async () => {
    await admin.put('/t/adv', 'small', { replace: false, tier: 'Advanced' });
    await expect(admin.put('/t/adv', 'smaller', { replace: true, tier: 'Standard' })).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/^This parameter uses the advanced-parameter tier. You can't downgrade/),
    });
    expect(await admin.put('/t/adv', 'smaller', { replace: true, tier: 'Advanced' })).toBe(2);
    expect(await admin.tierOf('/t/none')).toBeNull();
  });
});
