/**
 * The admin adapter against the fake SSM over HTTP: a folder read across pages, create without
 * overwrite refused, replace, delete of a missing parameter.
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
    expect(ssm.parameters.get('/p/silences/a')).toEqual({ value: 'one', type: 'String', version: 1 });
    await admin.put('/p/silences/a', 'two', { replace: true });
    expect(ssm.parameters.get('/p/silences/a')).toEqual({ value: 'two', type: 'String', version: 2 });
    expect(await admin.remove('/p/silences/a')).toBe(true);
    expect(await admin.remove('/p/silences/a')).toBe(false);
  });
});
