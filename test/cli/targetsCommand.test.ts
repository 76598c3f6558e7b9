import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildMonitorConfig } from '../../src/core/monitorConfig.ts';
import { type FakeSsm, startFakeSsm } from '../support/fakeSsm.ts';
import { runCli } from './fakeIo.ts';

const PREFIX = '/hsa-targets';
const LIST_1 = '/hsa-targets/targets/list-0001';
/** The one target validation's messages, in the CLI's words (options for fields). */
const NO_CREDENTIALS =
  'expected a URL without credentials (put "user:password" in a SecureString named by --auth-parameter)';
const WEB_1_SECRETS =
  '/hsa-targets/secrets/web-1 or a parameter below it, or a shared secret ($SHARED_SECRET_PARAMETERS: none)';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return runCli(args, { now: '2026-11-22T12:00:00Z' });
}

describe('cli targets (fake SSM over HTTP)', () => {
  let ssm: FakeSsm;

  beforeAll(async () => {
    ssm = await startFakeSsm();
    vi.stubEnv('AWS_ENDPOINT_URL_SSM', ssm.endpoint);
    vi.stubEnv('SSM_PREFIX', '/not-this-one');
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await ssm.stop();
  });
  beforeEach(() => {
    for (const name of [...ssm.parameters.keys()]) (ssm.parameters as Map<string, unknown>).delete(name);
  });

  const folder = () =>
    Object.fromEntries(
      [...ssm.parameters].filter(([n]) => n.startsWith(`${PREFIX}/targets/`)).map(([n, p]) => [n, p.value]),
    );

  it('adds a target the Lambda accepts, with every option, under --prefix', async () => {
    // Act
    const result = await cli([
      'targets',
      'add',
      'web-1',
      '--url',
      'https://web-1.internal/server-status?auto',
      '--timeout',
      '3s',
      '--auth-parameter',
      '/hsa-targets/secrets/web-1',
      '--label',
      'env=prod',
      '--label',
      'dc=eu-1',
      '--prefix',
      PREFIX,
    ]);
    // Assess
    expect(result).toEqual({
      code: 0,
      out: 'target web-1 added to /hsa-targets/targets/list-0001 (Standard, 178 of 4096 characters): https://web-1.internal/server-status?auto, timeout 3000 ms, auth /hsa-targets/secrets/web-1, labels env=prod,dc=eu-1\n',
      err: '',
    });
    const config = buildMonitorConfig(
      { targets: folder(), rules: {}, silences: {} },
      { prefix: PREFIX, sharedSecretParameters: [] },
    );
    expect(config.targets).toEqual([
      {
        name: 'web-1',
        url: 'https://web-1.internal/server-status?auto',
        timeoutMs: 3000,
        authParameter: '/hsa-targets/secrets/web-1',
        labels: { env: 'prod', dc: 'eu-1' },
      },
    ]);
  });

  it('accepts a secret below its own, and a shared one listed in $SHARED_SECRET_PARAMETERS; list agrees', async () => {
    // Prepare
    vi.stubEnv('SHARED_SECRET_PARAMETERS', `${PREFIX}/secrets/fleet-status, ${PREFIX}/secrets/eu-status`);
    const add = (name: string, auth: string) =>
      cli(['targets', 'add', name, '--url', `http://${name}/`, '--auth-parameter', auth, '--prefix', PREFIX]);
    // Act
    const own = await add('web-1', `${PREFIX}/secrets/web-1/ops`);
    const shared = await add('web-2', `${PREFIX}/secrets/fleet-status`);
    const listed = await cli(['targets', 'list', '--prefix', PREFIX]);
    vi.stubEnv('SHARED_SECRET_PARAMETERS', '');
    const unlisted = await cli(['targets', 'list', '--prefix', PREFIX]);
    // Assess
    expect([own.code, shared.code]).toEqual([0, 0]);
    expect(listed).toEqual({
      code: 0,
      out: 'web-1  /hsa-targets/targets/list-0001  http://web-1/, auth /hsa-targets/secrets/web-1/ops\nweb-2  /hsa-targets/targets/list-0001  http://web-2/, auth /hsa-targets/secrets/fleet-status\n',
      err: '',
    });
    expect(unlisted.out.split('\n')[1]).toBe(
      'web-2  /hsa-targets/targets/list-0001 targets[1]  INVALID, the Lambda rejects it: field targets[1].authParameter: expected /hsa-targets/secrets/web-2 or a parameter below it, or a shared secret (sharedSecretParameters: none), found "/hsa-targets/secrets/fleet-status"',
    );
  });

  it('opts a sidecar target into loopback with --allow-loopback', async () => {
    // Act
    const result = await cli([
      'targets',
      'add',
      'sidecar',
      '--url',
      'http://127.0.0.1:8080/server-status?auto',
      '--allow-loopback',
      '--prefix',
      PREFIX,
    ]);
    // Assess
    expect(result).toEqual({
      code: 0,
      out: 'target sidecar added to /hsa-targets/targets/list-0001 (Standard, 102 of 4096 characters): http://127.0.0.1:8080/server-status?auto, loopback allowed\n',
      err: '',
    });
    expect(folder()).toEqual({
      '/hsa-targets/targets/list-0001':
        '{"targets":[{"name":"sidecar","url":"http://127.0.0.1:8080/server-status?auto","allowLoopback":true}]}',
    });
    const config = buildMonitorConfig(
      { targets: folder(), rules: {}, silences: {} },
      { prefix: PREFIX, sharedSecretParameters: [] },
    );
    expect(config.targets).toEqual([
      { name: 'sidecar', url: 'http://127.0.0.1:8080/server-status?auto', allowLoopback: true, labels: {} },
    ]);
  });

  it('changes an existing target only with --replace', async () => {
    await cli(['targets', 'add', 'web-1', '--url', 'http://a/server-status', '--prefix', PREFIX]);
    const refused = await cli(['targets', 'add', 'web-1', '--url', 'http://b/server-status', '--prefix', PREFIX]);
    const replaced = await cli([
      'targets',
      'add',
      'web-1',
      '--url',
      'http://b/server-status',
      '--replace',
      '--prefix',
      PREFIX,
    ]);
    expect(refused).toEqual({
      code: 1,
      out: '',
      err: 'targets: expected no target web-1, found one in /hsa-targets/targets/list-0001 targets[0] (--replace changes it)\n',
    });
    expect(replaced.out).toBe(
      'target web-1 replaced in /hsa-targets/targets/list-0001 (Standard, 61 of 4096 characters): http://b/server-status\n',
    );
    expect(folder()).toEqual({ [LIST_1]: '{"targets":[{"name":"web-1","url":"http://b/server-status"}]}' });
  });

  it('lists every target with what the Lambda makes of it; an invalid one is flagged, exit 1', async () => {
    // Prepare
    await cli(['targets', 'add', 'web-2', '--url', 'http://web-2/server-status', '--prefix', PREFIX]);
    ssm.put(`${PREFIX}/targets/web-1`, '{"url":"ftp://web-1/"}');
    // Act
    const result = await cli(['targets', 'list', '--prefix', PREFIX]);
    // Assess
    expect(result).toEqual({
      code: 1,
      out: [
        'web-2  /hsa-targets/targets/list-0001  http://web-2/server-status',
        'web-1  /hsa-targets/targets/web-1  INVALID, the Lambda rejects it: field url: expected an http:// or https:// URL, found "ftp://web-1/"',
        '',
      ].join('\n'),
      err: 'targets list: 1 invalid target(s) under /hsa-targets/targets\n',
    });
  });

  it('removes a target, printing what it held; a second remove finds none', async () => {
    await cli(['targets', 'add', 'web-1', '--url', 'http://web-1/server-status', '--prefix', PREFIX]);
    expect(await cli(['targets', 'remove', 'web-1', '--prefix', PREFIX])).toEqual({
      code: 0,
      out: 'target web-1 removed: deleted /hsa-targets/targets/list-0001 (was {"name":"web-1","url":"http://web-1/server-status"})\n',
      err: '',
    });
    expect(await cli(['targets', 'remove', 'web-1', '--prefix', PREFIX])).toEqual({
      code: 1,
      out: '',
      err: 'targets: expected a target web-1 under /hsa-targets/targets, found none (targets list shows them)\n',
    });
    expect(await cli(['targets', 'list', '--prefix', PREFIX])).toEqual({
      code: 0,
      out: 'no targets under /hsa-targets/targets\n',
      err: '',
    });
  });

  /** `targets add` of a realistic target: its own secret, four labels, about 290 characters in a list. */
  const addFleet = (i: number, ...more: string[]) => {
    const name = `fleet-${String(i).padStart(2, '0')}`;
    return cli([
      ...['targets', 'add', name, '--url', `https://${name}.web.eu-west-1.internal:8443/server-status?auto`],
      ...['--timeout', '5s', '--auth-parameter', `${PREFIX}/secrets/${name}`],
      ...['--label', 'env=production', '--label', 'team=platform-web', '--label', 'region=eu-west-1'],
      ...['--label', `role=${'r'.repeat(20 + ((i * 7) % 32))}`, '--prefix', PREFIX, ...more],
    ]);
  };
  /** Each list document under the folder: its target count, length and tier. */
  const lists = () =>
    [...ssm.parameters]
      .filter(([n]) => n.startsWith(`${PREFIX}/targets/`))
      .map(([n, p]) => [n, (JSON.parse(p.value) as { targets: unknown[] }).targets.length, p.value.length, p.tier]);
  const configured = () =>
    buildMonitorConfig({ targets: folder(), rules: {}, silences: {} }, { prefix: PREFIX, sharedSecretParameters: [] })
      .targets.map((t) => t.name)
      .sort();

  it('fills a list to 4 KB on Standard, then starts the next', async () => {
    for (let i = 0; i < 16; i++) expect((await addFleet(i)).code).toBe(0);
    expect(lists()).toEqual([
      [LIST_1, 14, 3874, 'Standard'],
      ['/hsa-targets/targets/list-0002', 2, 544, 'Standard'],
    ]);
    // Full: the next target would have taken it past 4,096 characters.
    const first = JSON.parse(ssm.parameters.get(LIST_1)?.value ?? '') as { targets: unknown[] };
    const second = JSON.parse(ssm.parameters.get('/hsa-targets/targets/list-0002')?.value ?? '') as {
      targets: unknown[];
    };
    expect(JSON.stringify({ targets: [...first.targets, second.targets[0]] }).length).toBeGreaterThan(4096);
    expect(configured()).toEqual(Array.from({ length: 16 }, (_, i) => `fleet-${String(i).padStart(2, '0')}`));
  });

  it('--tier advanced fills lists to 8 KB and writes them Advanced', async () => {
    const first = await addFleet(0, '--tier', 'advanced');
    expect(first.out).toMatch(
      /^target fleet-00 added to \/hsa-targets\/targets\/list-0001 \(Advanced, 273 of 8192 characters\): /,
    );
    for (let i = 1; i < 30; i++) await addFleet(i, '--tier', 'advanced');
    expect(lists()).toEqual([
      [LIST_1, 29, 7995, 'Advanced'],
      ['/hsa-targets/targets/list-0002', 1, 284, 'Advanced'],
    ]);
  });

  it('--tier auto keeps a list Standard while it fits in 4 KB and makes it Advanced past that', async () => {
    const tiers: string[] = [];
    for (let i = 0; i < 15; i++) {
      await addFleet(i, '--tier', 'auto');
      tiers.push(String(ssm.parameters.get(LIST_1)?.tier));
    }
    expect(tiers).toEqual([...Array(14).fill('Standard'), 'Advanced']);
    expect(lists()).toEqual([[LIST_1, 15, 4136, 'Advanced']]);
  });

  it('adds to an advanced list on --tier standard up to 8 KB, and removes from it without a downgrade', async () => {
    for (let i = 0; i < 15; i++) await addFleet(i, '--tier', 'auto');
    await addFleet(15);
    expect(lists()).toEqual([[LIST_1, 16, 4405, 'Advanced']]);
    for (let i = 0; i < 15; i++)
      expect((await cli(['targets', 'remove', `fleet-${String(i).padStart(2, '0')}`, '--prefix', PREFIX])).code).toBe(
        0,
      );
    expect(lists()).toEqual([[LIST_1, 1, 282, 'Advanced']]);
  });

  it('refuses a target too large for a standard list, saying how to write it', async () => {
    const labels = Array.from({ length: 16 }, (_, i) => ['--label', `l${i}=${'v'.repeat(250)}`]).flat();
    const refused = await cli(['targets', 'add', 'big', '--url', 'http://big/', ...labels, '--prefix', PREFIX]);
    expect(refused).toEqual({
      code: 1,
      out: '',
      err: 'targets: expected the target to fit in a list of 4096 characters, found 4193: use --tier advanced or auto\n',
    });
    const advanced = await cli([
      'targets',
      'add',
      'big',
      '--url',
      'http://big/',
      ...labels,
      '--tier',
      'advanced',
      '--prefix',
      PREFIX,
    ]);
    expect(advanced.code).toBe(0);
    expect(lists()).toEqual([[LIST_1, 1, 4193, 'Advanced']]);
  });

  it('removes a target from its list, keeping the others; the last one deletes the list', async () => {
    for (let i = 0; i < 3; i++) await addFleet(i);
    const removed = await cli(['targets', 'remove', 'fleet-01', '--prefix', PREFIX]);
    expect(removed.out).toMatch(
      /^target fleet-01 removed from \/hsa-targets\/targets\/list-0001 \(was \{"name":"fleet-01","url":"https:\/\/fleet-01\..*\}\); 2 left there\n$/,
    );
    expect(configured()).toEqual(['fleet-00', 'fleet-02']);
    await cli(['targets', 'remove', 'fleet-00', '--prefix', PREFIX]);
    const last = await cli(['targets', 'remove', 'fleet-02', '--prefix', PREFIX]);
    expect(last.out).toMatch(/^target fleet-02 removed: deleted \/hsa-targets\/targets\/list-0001 \(was /);
    expect(ssm.parameters.size).toBe(0);
  });

  it('removes the last named target of a list that also holds an entry without a name: the list stays with that entry', async () => {
    const parameter = `${PREFIX}/targets/list-0001`;
    ssm.put(parameter, '{"targets":[{"name":"web-1","url":"http://web-1/"},{"url":"http://nameless/"}]}');
    const removed = await cli(['targets', 'remove', 'web-1', '--prefix', PREFIX]);
    expect(removed.code).toBe(0);
    expect(ssm.parameters.get(parameter)?.value).toBe('{"targets":[{"url":"http://nameless/"}]}');
  });

  it('lists a bad entry by its index and name, and the good entries of its list', async () => {
    ssm.put(
      `${PREFIX}/targets/eu`,
      JSON.stringify({
        targets: [
          { name: 'web-1', url: 'http://web-1/' },
          { name: 'web-2', url: 'ftp://web-2/' },
          { url: 'http://x/' },
        ],
      }),
    );
    expect(await cli(['targets', 'list', '--prefix', PREFIX])).toEqual({
      code: 1,
      out: [
        'web-1  /hsa-targets/targets/eu  http://web-1/',
        'web-2  /hsa-targets/targets/eu targets[1]  INVALID, the Lambda rejects it: field targets[1].url: expected an http:// or https:// URL, found "ftp://web-2/"',
        '-  /hsa-targets/targets/eu targets[2]  INVALID, the Lambda rejects it: field targets[2].name: expected a target name of letters, digits, _ . - (at most 63), found nothing (the field is required)',
        '',
      ].join('\n'),
      err: 'targets list: 2 invalid target(s) under /hsa-targets/targets\n',
    });
  });

  it('lists a name held twice as invalid where it is found again, naming the first place', async () => {
    ssm.put(`${PREFIX}/targets/eu`, JSON.stringify({ targets: [{ name: 'web-1', url: 'http://a/' }] }));
    ssm.put(`${PREFIX}/targets/web-1`, '{"url":"http://b/"}');
    expect(await cli(['targets', 'list', '--prefix', PREFIX])).toEqual({
      code: 1,
      out: 'web-1  /hsa-targets/targets/eu  http://a/\nweb-1  /hsa-targets/targets/web-1  INVALID, the Lambda rejects it: expected a unique target name, found "web-1" again (also /hsa-targets/targets/eu targets[0]: http://a/)\n',
      err: 'targets list: 1 invalid target(s) under /hsa-targets/targets\n',
    });
  });

  it('replaces a target in its own parameter there, keeping the one-target document', async () => {
    ssm.put(`${PREFIX}/targets/web-1`, '{"url":"http://a/"}');
    const replaced = await cli(['targets', 'add', 'web-1', '--url', 'http://b/', '--replace', '--prefix', PREFIX]);
    expect(replaced.out).toBe(
      'target web-1 replaced in /hsa-targets/targets/web-1 (Standard, 19 of 4096 characters): http://b/\n',
    );
    expect(folder()).toEqual({ [`${PREFIX}/targets/web-1`]: '{"url":"http://b/"}' });
  });

  it('refuses a name another list holds, naming where', async () => {
    ssm.put(`${PREFIX}/targets/eu`, JSON.stringify({ targets: [{ name: 'web-1', url: 'http://web-1/' }] }));
    expect(await cli(['targets', 'add', 'web-1', '--url', 'http://b/', '--prefix', PREFIX])).toEqual({
      code: 1,
      out: '',
      err: 'targets: expected no target web-1, found one in /hsa-targets/targets/eu targets[0] (--replace changes it)\n',
    });
  });

  it('a list changed by another writer after it was read is read again: both edits kept', async () => {
    await addFleet(0);
    // Another `targets add` lands between this one's read and its version check.
    ssm.before('GetParameter', () =>
      ssm.put(
        LIST_1,
        JSON.stringify({
          targets: [...JSON.parse(folder()[LIST_1] ?? '').targets, { name: 'other', url: 'http://other/' }],
        }),
      ),
    );
    ssm.reset();
    expect((await addFleet(1)).code).toBe(0);
    expect(configured()).toEqual(['fleet-00', 'fleet-01', 'other']);
    expect(ssm.calls).toEqual({ GetParametersByPath: 2, DescribeParameters: 2, GetParameter: 2, PutParameter: 1 });
  });

  it('an edit landing between the version check and the write is reported, exit 1', async () => {
    await addFleet(0);
    ssm.before('PutParameter', () =>
      ssm.put(LIST_1, JSON.stringify({ targets: [{ name: 'other', url: 'http://other/' }] })),
    );
    const result = await addFleet(1);
    expect(result).toEqual({
      code: 1,
      out: '',
      err: 'targets: expected /hsa-targets/targets/list-0001 at version 2 after this write, found version 3: another edit landed between the check and the write, and one of the two may be lost (targets list shows what it holds)\n',
    });
  });

  it('packs one-target parameters into lists, what they share as defaults: the configuration the same at every moment', async () => {
    const before: Record<string, string> = {};
    for (let i = 0; i < 60; i++) {
      const name = `web-${String(i).padStart(2, '0')}`;
      const text = JSON.stringify({
        url: `https://${name}.internal/server-status?auto`,
        authParameter: `${PREFIX}/secrets/${name}`,
        labels: { env: 'production', team: 'platform-web', region: 'eu-west-1', role: 'frontend-pool' },
      });
      ssm.put(`${PREFIX}/targets/${name}`, text);
      before[`${PREFIX}/targets/${name}`] = text;
    }
    const names = configured();
    const dry = await cli(['targets', 'pack', '--dry-run', '--prefix', PREFIX]);
    const shared = 'defaults labels.env, labels.team, labels.region, labels.role';
    expect(dry).toEqual({
      code: 0,
      out: [
        `/hsa-targets/targets/list-0001  34 targets (Standard, 4032 of 4096 characters): web-00 .. web-33; ${shared}`,
        `/hsa-targets/targets/list-0002  26 targets (Standard, 3112 of 4096 characters): web-34 .. web-59; ${shared}`,
        'would move 60 targets from their own parameters into 2 list documents',
        '',
      ].join('\n'),
      err: '',
    });
    expect(folder()).toEqual(before);
    // What a configuration read sees between a list's write and its old parameters' deletion.
    let between: string[] = [];
    ssm.before('DeleteParameters', () => {
      between = configured();
    });
    const packed = await cli(['targets', 'pack', '--prefix', PREFIX]);
    expect(packed.out.split('\n').at(-2)).toBe('moved 60 targets from their own parameters into 2 list documents');
    expect(between).toEqual(names);
    expect(configured()).toEqual(names);
    expect(lists()).toEqual([
      [LIST_1, 34, 4032, 'Standard'],
      ['/hsa-targets/targets/list-0002', 26, 3112, 'Standard'],
    ]);
    expect(JSON.parse(folder()[LIST_1] as string).targets[0]).toEqual({
      name: 'web-00',
      url: 'https://web-00.internal/server-status?auto',
      authParameter: `${PREFIX}/secrets/web-00`,
    });
  });

  it('adds into a list with defaults written minimal, lists the merged target, removes keeping the defaults', async () => {
    const defaults = { timeoutMs: 5000, labels: { env: 'prod', team: 'web' } };
    ssm.put(LIST_1, JSON.stringify({ defaults, targets: [{ name: 'web-1', url: 'http://web-1/' }] }));
    const added = await cli(
      ['targets', 'add', 'web-2', '--url', 'http://web-2/', '--timeout', '5s', '--label', 'env=prod'].concat([
        '--label',
        'team=db',
        '--label',
        'role=primary',
        '--prefix',
        PREFIX,
      ]),
    );
    expect(added).toEqual({
      code: 0,
      out: 'target web-2 added to /hsa-targets/targets/list-0001 (Standard, 198 of 4096 characters): http://web-2/, timeout 5000 ms, labels env=prod,team=db,role=primary\n',
      err: '',
    });
    expect(JSON.parse(folder()[LIST_1] as string)).toEqual({
      defaults,
      targets: [
        { name: 'web-1', url: 'http://web-1/' },
        { name: 'web-2', url: 'http://web-2/', labels: { team: 'db', role: 'primary' } },
      ],
    });
    // Without the timeout the defaults would give it: a list of its own.
    const apart = await cli(['targets', 'add', 'web-3', '--url', 'http://web-3/', '--prefix', PREFIX]);
    expect(apart.out).toBe(
      'target web-3 added to /hsa-targets/targets/list-0002 (Standard, 52 of 4096 characters): http://web-3/\n',
    );
    expect(await cli(['targets', 'list', '--prefix', PREFIX])).toEqual({
      code: 0,
      out: [
        'web-1  /hsa-targets/targets/list-0001  http://web-1/, timeout 5000 ms, labels env=prod,team=web',
        'web-2  /hsa-targets/targets/list-0001  http://web-2/, timeout 5000 ms, labels env=prod,team=db,role=primary',
        'web-3  /hsa-targets/targets/list-0002  http://web-3/',
        '',
      ].join('\n'),
      err: '',
    });
    const removed = await cli(['targets', 'remove', 'web-1', '--prefix', PREFIX]);
    expect(removed.out).toBe(
      'target web-1 removed from /hsa-targets/targets/list-0001 (was {"name":"web-1","timeoutMs":5000,"labels":{"env":"prod","team":"web"},"url":"http://web-1/"}); 1 left there\n',
    );
    expect(JSON.parse(folder()[LIST_1] as string)).toEqual({
      defaults,
      targets: [{ name: 'web-2', url: 'http://web-2/', labels: { team: 'db', role: 'primary' } }],
    });
  });

  it('replaces an entry of a list with defaults minimal, and refuses a change the defaults cannot hold', async () => {
    const defaults = { timeoutMs: 5000 };
    ssm.put(LIST_1, JSON.stringify({ defaults, targets: [{ name: 'web-1', url: 'http://web-1/' }] }));
    const replaced = await cli([
      'targets',
      'add',
      'web-1',
      '--url',
      'http://b/',
      '--timeout',
      '5s',
      '--replace',
      '--prefix',
      PREFIX,
    ]);
    expect(replaced.code).toBe(0);
    expect(JSON.parse(folder()[LIST_1] as string)).toEqual({
      defaults,
      targets: [{ name: 'web-1', url: 'http://b/' }],
    });
    expect(await cli(['targets', 'add', 'web-1', '--url', 'http://c/', '--replace', '--prefix', PREFIX])).toEqual({
      code: 1,
      out: '',
      err: 'targets: expected the changed target to set every field and label the defaults of /hsa-targets/targets/list-0001 set ({"timeoutMs":5000}), found it without some: remove the target and add it again\n',
    });
  });

  it('lists a bad default once, at defaults.<field>, exit 1', async () => {
    ssm.put(LIST_1, JSON.stringify({ defaults: { timeoutMs: 5 }, targets: [{ name: 'web-1', url: 'http://web-1/' }] }));
    expect(await cli(['targets', 'list', '--prefix', PREFIX])).toEqual({
      code: 1,
      out: 'list-0001  /hsa-targets/targets/list-0001  INVALID, the Lambda rejects it: field defaults.timeoutMs: Too small: expected number to be >=100, found 5\n',
      err: 'targets list: 1 invalid target(s) under /hsa-targets/targets\n',
    });
  });

  it('pack leaves an invalid target in its parameter and says so, exit 1', async () => {
    ssm.put(`${PREFIX}/targets/web-1`, '{"url":"http://web-1/"}');
    ssm.put(`${PREFIX}/targets/web-2`, '{"url":"ftp://web-2/"}');
    const packed = await cli(['targets', 'pack', '--prefix', PREFIX]);
    expect(packed).toEqual({
      code: 1,
      out: '/hsa-targets/targets/list-0001  1 targets (Standard, 52 of 4096 characters): web-1 .. web-1\nmoved 1 targets from their own parameters into 1 list documents\n',
      err: 'targets pack: 1 invalid target(s) left in their parameters (targets list shows them)\n',
    });
    expect(Object.keys(folder()).sort()).toEqual([LIST_1, `${PREFIX}/targets/web-2`]);
  });

  it.each([
    // [args, the one line on stderr]; all exit 2 and write nothing
    [
      ['add', 'web 1', '--url', 'http://x/'],
      'expected a target name of letters, digits, _ . - (at most 63), found "web 1"',
    ],
    [['add', 'web-1'], '--url is required'],
    [
      ['add', 'web-1', '--url', 'web-1/server-status'],
      '--url: expected an http:// or https:// URL, found "web-1/server-status"',
    ],
    [
      ['add', 'web-1', '--url', 'https://ops:s3cret@web-1/server-status'],
      `--url: ${NO_CREDENTIALS}, found "https://ops:***@web-1/server-status"`,
    ],
    [
      ['add', 'web-1', '--url', 'https://ops:s3/c#ret@web-1/server-status'],
      `--url: ${NO_CREDENTIALS}, found "https://ops:***@web-1/server-status"`,
    ],
    [
      ['add', 'web-1', '--url', 'https:/ops:s3cret@web-1/server-status'],
      `--url: ${NO_CREDENTIALS}, found "https:/ops:***@web-1/server-status"`,
    ],
    [
      ['add', 'web-1', '--url', 'https://tok3n@web-1/server-status'],
      `--url: ${NO_CREDENTIALS}, found "https://***@web-1/server-status"`,
    ],
    [['add', 'web-1', '--url', 'http://u%3Ap%40ss@web-1/'], `--url: ${NO_CREDENTIALS}, found "http://***@web-1/"`],
    [
      ['add', 'web-1', '--url', 'http://x/', '--timeout', '3 seconds'],
      '--timeout expects a duration such as 5s or 1500ms, found "3 seconds"',
    ],
    [
      ['add', 'web-1', '--url', 'http://x/', '--timeout', '5m'],
      '--timeout: Too big: expected number to be <=60000, found 300000',
    ],
    [
      ['add', 'web-1', '--url', 'http://x/', '--auth-parameter', 'secret'],
      '--auth-parameter: expected an SSM parameter name starting with /, found "secret"',
    ],
    [
      ['add', 'web-1', '--url', 'http://x/', '--auth-parameter', '/hsa-targets/secrets/web-2'],
      `--auth-parameter: expected ${WEB_1_SECRETS}, found "/hsa-targets/secrets/web-2"`,
    ],
    [
      ['add', 'web-1', '--url', 'http://x/', '--auth-parameter', '/hsa-targets/secrets/fleet-status'],
      `--auth-parameter: expected ${WEB_1_SECRETS}, found "/hsa-targets/secrets/fleet-status"`,
    ],
    [
      ['add', 'web-1', '--url', 'http://x/', '--auth-parameter', '/elsewhere/secrets/web-1'],
      `--auth-parameter: expected ${WEB_1_SECRETS}, found "/elsewhere/secrets/web-1"`,
    ],
    [
      ['add', 'web-1', '--url', 'http://x/', '--ca-bundle-parameter', '/elsewhere/ca'],
      '--ca-bundle-parameter: expected a parameter under /hsa-targets/ (the function reads only there), found "/elsewhere/ca"',
    ],
    [
      ['add', 'web-1', '--url', 'http://x/', '--ca-bundle-parameter', '/hsa-targets/secrets/web-2'],
      `--ca-bundle-parameter: expected a parameter under /hsa-targets/ and, under /hsa-targets/secrets/, only ${WEB_1_SECRETS}, found "/hsa-targets/secrets/web-2"`,
    ],
    [['add', 'web-1', '--url', 'http://x/', '--label', 'env'], '--label expects key=value, found "env"'],
    [
      ['add', 'web-1', '--url', 'http://x/', '--max-bytes', '1MB'],
      '--max-bytes expects a whole number of bytes, found "1MB"',
    ],
    [
      ['add', 'web-1', '--url', 'http://x/', '--max-bytes', '10'],
      '--max-bytes: Too small: expected number to be >=1024, found 10',
    ],
    [['remove'], 'expected one target name, found 0'],
    [['delete', 'web-1'], 'expected add, list, remove, pack or discover, found "delete"'],
    [['discover', 'web'], 'expected no positional arguments, found "web"'],
    [['discover', '--timeout', 'soon'], '--timeout expects a duration such as 30s or 1500ms, found "soon"'],
    [
      ['add', 'web-1', '--url', 'http://x/', '--tier', 'premium'],
      '--tier expects standard, advanced or auto, found "premium"',
    ],
  ])('refuses %j (exit 2) writing nothing', async (args, line) => {
    const result = await cli(['targets', ...args, '--prefix', PREFIX]);
    expect(result).toEqual({ code: 2, out: '', err: `targets: ${line} (usage: targets --help)\n` });
    expect(ssm.parameters.size).toBe(0);
  });
});

describe('cli targets --help', () => {
  it('quotes the configuration cache lifetime the function uses by default', async () => {
    const result = await cli(['targets', '--help']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('on its next configuration read (CONFIG_MAX_AGE_SECONDS, 270 s by default).');
  });
});
