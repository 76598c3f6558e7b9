import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RULES } from '../../src/core/rules/defaultRules.ts';
import { type FakeSsm, startFakeSsm } from '../support/fakeSsm.ts';
import { runCli } from './fakeIo.ts';

const PREFIX = '/hsa-cli';
const NOW = '2026-11-22T12:00:00Z';

function cli(args: string[], now = NOW) {
  return runCli(args, { now });
}

describe('cli silence (fake SSM over HTTP)', () => {
  let ssm: FakeSsm;

  beforeAll(async () => {
    ssm = await startFakeSsm();
    vi.stubEnv('AWS_ENDPOINT_URL_SSM', ssm.endpoint);
    vi.stubEnv('SSM_PREFIX', PREFIX);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await ssm.stop();
  });
  beforeEach(() => {
    for (const name of [...ssm.parameters.keys()]) (ssm.parameters as Map<string, unknown>).delete(name);
    ssm.put(`${PREFIX}/targets/web-1`, '{"url":"http://web-1/server-status"}');
    ssm.put(`${PREFIX}/targets/web-2`, '{"url":"http://web-2/server-status"}');
    ssm.put(`${PREFIX}/targets/db-1`, '{"url":"http://db-1/server-status"}');
  });

  it('adds a silence for a duration under a generated name, and prints it', async () => {
    // Act
    const result = await cli([
      'silence',
      'add',
      '--target',
      'web-*',
      '--rule',
      '*',
      '--for',
      '2h',
      '--comment',
      'kernel upgrade',
    ]);
    // Assess
    expect(result).toEqual({
      code: 0,
      out: 'silence 20261122T120000Z-80b46d added (/hsa-cli/silences/20261122T120000Z-80b46d): target "web-*", rule "*", until 2026-11-22T14:00:00Z: kernel upgrade  [matches web-1, web-2]\n',
      err: '',
    });
    expect(ssm.parameters.get(`${PREFIX}/silences/20261122T120000Z-80b46d`)?.value).toBe(
      '{"silences":[{"target":"web-*","rule":"*","until":"2026-11-22T14:00:00Z","comment":"kernel upgrade"}]}',
    );
  });

  it('matches the targets of a list document by their names', async () => {
    ssm.put(
      `${PREFIX}/targets/list-0001`,
      JSON.stringify({
        targets: [
          { name: 'web-7', url: 'http://web-7/' },
          { name: 'web-8', url: 'http://web-8/' },
        ],
      }),
    );
    const result = await cli(['silence', 'add', '--target', 'web-*', '--rule', '*', '--for', '1h', '--comment', 'c']);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/ {2}\[matches web-7, web-8, web-1, web-2\]\n$/);
  });

  it('schedules a window with --starts-at; --for counts from its start; list tells active from scheduled, with the targets matched', async () => {
    // Prepare
    await cli([
      'silence',
      'add',
      '--target',
      'web-1',
      '--rule',
      'idle-*',
      '--until',
      '2026-11-22T13:00:00Z',
      '--comment',
      'now',
      '--name',
      'now',
    ]);
    // Act
    const added = await cli([
      'silence',
      'add',
      '--target',
      'db-*',
      '--rule',
      '*',
      '--starts-at',
      '2026-11-23T02:00:00+01:00',
      '--for',
      '30m',
      '--comment',
      'backup window',
      '--name',
      'nightly',
    ]);
    const listed = await cli(['silence', 'list']);
    // Assess
    expect(added.out).toBe(
      'silence nightly added (/hsa-cli/silences/nightly): target "db-*", rule "*", from 2026-11-23T01:00:00Z until 2026-11-23T01:30:00Z: backup window  [matches db-1]\n',
    );
    expect(listed).toEqual({
      code: 0,
      out: [
        'nightly  scheduled  target "db-*", rule "*", from 2026-11-23T01:00:00Z until 2026-11-23T01:30:00Z: backup window  [matches db-1]',
        'now  active  target "web-1", rule "idle-*", until 2026-11-22T13:00:00Z: now  [matches web-1]',
        '',
      ].join('\n'),
      err: '',
    });
  });

  it('lists ended silences only with --all, and says so when there are none', async () => {
    await cli([
      'silence',
      'add',
      '--target',
      'x',
      '--rule',
      '*',
      '--for',
      '1h',
      '--comment',
      'c',
      '--name',
      'old',
      '--force',
    ]);
    const later = '2026-11-22T13:00:00Z';
    expect((await cli(['silence', 'list'], later)).out).toBe(
      'no active or scheduled silences under /hsa-cli/silences\n',
    );
    expect((await cli(['silence', 'list', '--all'], later)).out).toBe(
      'old  ended  target "x", rule "*", until 2026-11-22T13:00:00Z: c  [matches no configured target]\n',
    );
  });

  it('expires a silence by deleting its parameter, printing what it held', async () => {
    await cli([
      'silence',
      'add',
      '--target',
      'web-1',
      '--rule',
      '*',
      '--for',
      '1h',
      '--comment',
      'deploy',
      '--name',
      'deploy',
    ]);
    const result = await cli(['silence', 'expire', 'deploy']);
    expect(result).toEqual({
      code: 0,
      out: 'silence deploy expired: deleted /hsa-cli/silences/deploy (target "web-1", rule "*", until 2026-11-22T13:00:00Z: deploy)\n',
      err: '',
    });
    expect(ssm.parameters.has(`${PREFIX}/silences/deploy`)).toBe(false);
  });

  it.each([
    // [args, exit code, the one line on stderr]
    [
      ['add', '--target', 'web 1', '--rule', '*', '--for', '1h', '--comment', 'c'],
      2,
      'silence: --target: expected a name or * glob of letters, digits, . _ : - and *, found "web 1" (usage: silence --help)',
    ],
    [
      ['add', '--target', 'w', '--rule', '*', '--comment', 'c'],
      2,
      'silence: expected exactly one of --for <duration> or --until <ISO-8601> (usage: silence --help)',
    ],
    [
      ['add', '--target', 'w', '--rule', '*', '--for', '1h', '--until', '2026-11-22T13:00:00Z', '--comment', 'c'],
      2,
      'silence: expected exactly one of --for <duration> or --until <ISO-8601> (usage: silence --help)',
    ],
    [
      ['add', '--target', 'w', '--rule', '*', '--for', 'an hour', '--comment', 'c'],
      2,
      'silence: --for expects a duration such as 30m, 2h or 1h30m, found "an hour" (usage: silence --help)',
    ],
    [
      ['add', '--target', 'w', '--rule', '*', '--until', '2026-11-22T11:00:00Z', '--comment', 'c'],
      2,
      'silence: expected the silence to end after now (2026-11-22T12:00:00Z), found 2026-11-22T11:00:00Z (usage: silence --help)',
    ],
    [
      ['add', '--target', 'w', '--rule', '*', '--until', 'tomorrow', '--comment', 'c'],
      2,
      'silence: --until expects an ISO-8601 time such as 2026-11-22T14:00:00Z, found "tomorrow" (usage: silence --help)',
    ],
    [
      ['add', '--target', 'w', '--rule', '*', '--for', '1h'],
      2,
      'silence: --comment is required (usage: silence --help)',
    ],
    [
      ['add', '--target', 'w', '--rule', '*', '--for', '1h', '--comment', 'c', '--prefix', 'no-slash'],
      2,
      'silence: --prefix expects an SSM path like /httpd-status-alerts, found "no-slash" (usage: silence --help)',
    ],
    [
      ['add', '--target', 'w', '--rule', '*', '--for', '1h', '--comment', 'c', '--colour'],
      2,
      'silence: expected one of the options of --help, found unknown option --colour (usage: silence --help)',
    ],
    [['mute'], 2, 'silence: expected add, list or expire, found "mute" (usage: silence --help)'],
    [
      ['expire', 'nope'],
      1,
      'silence: expected a silence nope under /hsa-cli/silences, found none (silence list shows them)',
    ],
  ])('refuses %j (exit %i) writing nothing', async (args, code, line) => {
    const before = [...ssm.parameters.keys()];
    const result = await cli(['silence', ...args]);
    expect(result).toEqual({ code, out: '', err: `${line}\n` });
    expect([...ssm.parameters.keys()]).toEqual(before);
  });

  it.each([
    [
      'a mistyped target',
      ['--target', 'web-3', '--rule', '*'],
      'silence: expected a silence that matches a configured target and rule, found --target "web-3": it matches none of the 3 configured targets (did you mean web-1 or web-2?) (--force adds it anyway)\n',
    ],
    [
      'a mistyped rule',
      ['--target', 'web-*', '--rule', 'idle-slot-low'],
      `silence: expected a silence that matches a configured target and rule, found --rule "idle-slot-low": it matches none of the ${DEFAULT_RULES.length} rules (did you mean idle-slots-low?) (--force adds it anyway)\n`,
    ],
  ])('refuses %s (exit 1, nothing written), naming the nearest names', async (_, matchers, err) => {
    const result = await cli(['silence', 'add', ...matchers, '--for', '1h', '--comment', 'c']);
    expect(result).toEqual({ code: 1, out: '', err });
    expect([...ssm.parameters.keys()].filter((k) => k.includes('/silences/'))).toEqual([]);
    const forced = await cli(['silence', 'add', ...matchers, '--for', '1h', '--comment', 'c', '--force']);
    expect(forced.code).toBe(0);
  });

  it('checks the rule against the rules documents under the prefix merged over the built-in ones', async () => {
    ssm.put(
      `${PREFIX}/rules/base`,
      '{"rules":[{"name":"busy-high","metric":"slots_busy","op":">=","threshold":20},{"name":"idle-slots-low","enabled":false}]}',
    );
    const ok = await cli([
      'silence',
      'add',
      '--target',
      'web-1',
      '--rule',
      'busy-high',
      '--for',
      '1h',
      '--comment',
      'c',
    ]);
    const gone = await cli([
      'silence',
      'add',
      '--target',
      'web-1',
      '--rule',
      'idle-slots-low',
      '--for',
      '1h',
      '--comment',
      'c',
    ]);
    expect([ok.code, gone.code]).toEqual([0, 1]);
    // The built-in rules, one switched off, one added.
    expect(gone.err).toContain(`--rule "idle-slots-low": it matches none of the ${DEFAULT_RULES.length - 1 + 1} rules`);
  });

  it('refuses a name already taken, leaving the existing silence as it was', async () => {
    await cli([
      'silence',
      'add',
      '--target',
      'a',
      '--rule',
      '*',
      '--for',
      '1h',
      '--comment',
      'first',
      '--name',
      'x',
      '--force',
    ]);
    const result = await cli([
      'silence',
      'add',
      '--target',
      'b',
      '--rule',
      '*',
      '--for',
      '1h',
      '--comment',
      'second',
      '--name',
      'x',
      '--force',
    ]);
    expect(result).toEqual({
      code: 1,
      out: '',
      err: 'silence: expected no parameter /hsa-cli/silences/x, found one already\n',
    });
    expect(ssm.parameters.get(`${PREFIX}/silences/x`)?.value).toContain('"first"');
  });

  it('reports an invalid silences parameter in list (exit 1) and still lists the valid ones', async () => {
    ssm.put(`${PREFIX}/silences/broken`, '{"silences":[{"until":"soon"}]}');
    await cli([
      'silence',
      'add',
      '--target',
      'a',
      '--rule',
      '*',
      '--for',
      '1h',
      '--comment',
      'ok',
      '--name',
      'fine',
      '--force',
    ]);
    const result = await cli(['silence', 'list']);
    expect(result.code).toBe(1);
    expect(result.out).toBe(
      'fine  active  target "a", rule "*", until 2026-11-22T13:00:00Z: ok  [matches no configured target]\n',
    );
    expect(result.err).toBe(
      'silence list: broken: invalid, the Lambda rejects it: expected valid silences documents, found 1 problem(s):; /hsa-cli/silences/broken: rule #1 field until: expected an ISO-8601 time with a zone, e.g. 2026-11-22T14:00:00Z, found "soon"\n',
    );
  });

  it('prints its help with --help and exits 0 without reaching SSM', async () => {
    ssm.reset();
    const result = await cli(['silence', 'add', '--help']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('httpd-status-alerts silence add --target <glob> --rule <glob>');
    expect(ssm.calls).toEqual({});
  });
});
