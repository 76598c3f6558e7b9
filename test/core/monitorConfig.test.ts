import { describe, expect, it } from 'vitest';
import { readConfig } from '../../infra/config.ts';
import { resolvePrefix } from '../../src/cli/commandSupport.ts';
import {
  buildMonitorConfig,
  type ConfigProblem,
  ConfigurationError,
  discoveredKey,
  discoveredOrigin,
  leaf,
  mergedDocument,
  SSM_PREFIX,
  targetEntries,
  targetNames,
} from '../../src/core/monitorConfig.ts';
import { DEFAULT_RULES } from '../../src/core/rules/document.ts';
import { readRuntimeConfig } from '../../src/lambda/environment.ts';

const target = (value: unknown) => ({ '/p/targets/web-1': JSON.stringify(value) });
/** Targets under `/p`, one secret shared by the fleet. */
const SCOPE = { prefix: '/p', sharedSecretParameters: ['/p/secrets/fleet-status'] };
const NO_CREDENTIALS =
  'expected a URL without credentials (put "user:password" in a SecureString named by authParameter)';
const WEB_1_SECRETS =
  '/p/secrets/web-1 or a parameter below it, or a shared secret (sharedSecretParameters: /p/secrets/fleet-status)';

/** The problems of a configuration of `targets` alone (none: an empty list). */
function problemsOf(targets: Record<string, string>, scope = SCOPE): ConfigProblem[] {
  try {
    buildMonitorConfig({ targets, rules: {}, silences: {} }, scope);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    return error.problems;
  }
}

describe('buildMonitorConfig', () => {
  it('reads targets and falls back to the default rules', () => {
    const config = buildMonitorConfig(
      {
        targets: target({
          url: 'https://web-1:8443/server-status',
          timeoutMs: 2000,
          labels: { env: 'prod' },
          authParameter: '/p/secrets/web-1',
          maxRequestWorkers: 150,
        }),
        rules: {},
        silences: {},
      },
      SCOPE,
    );
    expect(config.targets).toEqual([
      {
        name: 'web-1',
        url: 'https://web-1:8443/server-status',
        timeoutMs: 2000,
        labels: { env: 'prod' },
        authParameter: '/p/secrets/web-1',
        maxRequestWorkers: 150,
      },
    ]);
    expect(config.rules).toBe(DEFAULT_RULES);
    expect(config.silences).toEqual([]);
  });

  it.each([
    [
      'not JSON',
      { '/p/targets/web-1': 'url=http://x' },
      '/p/targets/web-1',
      null,
      /^expected JSON, found "url=http:\/\/x"/,
    ],
    [
      'a URL that is not http',
      target({ url: 'ftp://x/status' }),
      '/p/targets/web-1',
      'url',
      /expected an http:\/\/ or https:\/\/ URL, found "ftp:\/\/x\/status"/,
    ],
    ['a timeout too small', target({ url: 'http://x/', timeoutMs: 5 }), '/p/targets/web-1', 'timeoutMs', /found 5$/],
    [
      'a capacity that is not a whole number',
      target({ url: 'http://x/', maxRequestWorkers: 2.5 }),
      '/p/targets/web-1',
      'maxRequestWorkers',
      /found 2.5$/,
    ],
    [
      'an unknown field',
      target({ url: 'http://x/', user: 'me' }),
      '/p/targets/web-1',
      'user',
      /^expected one of the fields url, timeoutMs, .*, found "user"$/,
    ],
    [
      'a field without its unit',
      target({ url: 'http://x/', timeout: 5000 }),
      '/p/targets/web-1',
      'timeout',
      /, found "timeout" \(did you mean timeoutMs\?\)$/,
    ],
    [
      'a field of the wrong type',
      target({ url: 'http://x/', maxBytes: 'big' }),
      '/p/targets/web-1',
      'maxBytes',
      /^expected a number, found "big"$/,
    ],
    [
      'a loopback opt-in that is not a boolean',
      target({ url: 'http://127.0.0.1/', allowLoopback: 'yes' }),
      '/p/targets/web-1',
      'allowLoopback',
      /^expected a boolean, found "yes"$/,
    ],
    ['a bad name', { '/p/targets/web 1': '{"url":"http://x/"}' }, '/p/targets/web 1', null, /expected a target name/],
    [
      'a name used twice in two folders',
      { '/p/targets/eu/web-1': '{"url":"http://a/"}', '/p/targets/us/web-1': '{"url":"http://b/"}' },
      '/p/targets/us/web-1',
      null,
      /^expected a unique target name, found "web-1" again \(also \/p\/targets\/eu\/web-1: http:\/\/a\/\)$/,
    ],
    // Credentials in URLs are redacted in every message.
    [
      'a name used twice in two folders, the first with credentials',
      { '/p/targets/eu/web-1': '{"url":"http://ops:s3cret@a/"}', '/p/targets/us/web-1': '{"url":"http://b/"}' },
      '/p/targets/eu/web-1',
      'url',
      /^expected a URL without credentials .*, found "http:\/\/ops:\*\*\*@a\/"$/,
    ],
    [
      'not JSON, with credentials past the shown length',
      { '/p/targets/web-1': `url=http://ops:${'s3cret'.repeat(20)}@web-1/` },
      '/p/targets/web-1',
      null,
      /^expected JSON, found "url=http:\/\/ops:\*\*\*@web-1\/"/,
    ],
    [
      'a URL that is not http, with credentials: the credentials are the problem shown',
      target({ url: 'ftp://ops:s3cret@x/status' }),
      '/p/targets/web-1',
      'url',
      /^expected a URL without credentials .*, found "ftp:\/\/ops:\*\*\*@x\/status"$/,
    ],
  ])('rejects a target with %s, naming parameter and field', (_name, targets, parameter, field, message) => {
    const [problem, ...rest] = problemsOf(targets);
    expect(problem).toBeDefined();
    expect(rest).toEqual([]);
    expect(problem?.parameter).toBe(parameter);
    expect(problem?.field).toBe(field);
    expect(problem?.message).toMatch(message);
  });

  it('lists every problem of every parameter at once', () => {
    let error: unknown;
    try {
      buildMonitorConfig(
        {
          targets: { ...target({ url: 'nope' }), '/p/targets/web-2': '{' },
          rules: { '/p/rules/a': '{"rules":[{"name":"x","metric":"slots_idle","op":"<","threshold":"five"}]}' },
          silences: { '/p/silences/s': '{"silences":[{"target":"web-*"}]}' },
        },
        SCOPE,
      );
    } catch (e) {
      error = e;
    }
    const problems = (error as ConfigurationError).problems;
    expect(problems.map((p) => [p.parameter, p.field])).toEqual([
      ['/p/targets/web-1', 'url'],
      ['/p/targets/web-2', null],
      ['/p/rules/a', 'x.threshold'],
      ['/p/silences/s', '#1.until'],
    ]);
  });
});

describe('buildMonitorConfig: credentials in a target URL, in any spelling', () => {
  it.each([
    { spelling: 'user and password', url: 'http://u:p@h/', shown: '"http://u:***@h/"' },
    { spelling: 'a user (a token) alone', url: 'http://u@h/', shown: '"http://***@h/"' },
    { spelling: 'the https:/ typo', url: 'https:/u:p@h', shown: '"https:/u:***@h"' },
    { spelling: 'percent-encoded', url: 'http://u%3Ap%40ss@h/', shown: '"http://***@h/"' },
    { spelling: 'a password with / and #', url: 'https://ops:a/b#c@web-1/s', shown: '"https://ops:***@web-1/s"' },
    { spelling: 'upper-case scheme', url: 'HTTP://U:P@H/', shown: '"HTTP://U:***@H/"' },
  ])('refuses $spelling, pointing to authParameter, the password not shown', ({ url, shown }) => {
    expect(problemsOf(target({ url }))).toEqual([
      { parameter: '/p/targets/web-1', field: 'url', message: `${NO_CREDENTIALS}, found ${shown}` },
    ]);
  });

  it('accepts the same target with its credentials in an auth parameter', () => {
    expect(problemsOf(target({ url: 'http://h/', authParameter: '/p/secrets/web-1' }))).toEqual([]);
  });
});

describe('buildMonitorConfig: the secrets a target may name', () => {
  it.each([
    { what: 'its own secret', authParameter: '/p/secrets/web-1' },
    { what: 'a secret below its own', authParameter: '/p/secrets/web-1/ops' },
    { what: 'a shared secret', authParameter: '/p/secrets/fleet-status' },
  ])('accepts $what as authParameter', ({ authParameter }) => {
    const config = buildMonitorConfig(
      { targets: target({ url: 'http://h/', authParameter }), rules: {}, silences: {} },
      SCOPE,
    );
    expect(config.targets[0]?.authParameter).toBe(authParameter);
  });

  it.each([
    { what: 'its own secrets folder', caBundleParameter: '/p/secrets/web-1/ca' },
    { what: 'a shared secret', caBundleParameter: '/p/secrets/fleet-status' },
    {
      what: 'a parameter under the prefix, outside secrets (one bundle for the fleet)',
      caBundleParameter: '/p/ca/internal',
    },
  ])('accepts $what as caBundleParameter', ({ caBundleParameter }) => {
    const config = buildMonitorConfig(
      { targets: target({ url: 'https://h/', caBundleParameter }), rules: {}, silences: {} },
      SCOPE,
    );
    expect(config.targets[0]?.caBundleParameter).toBe(caBundleParameter);
  });

  it.each([
    {
      what: "another target's secret",
      fields: { authParameter: '/p/secrets/web-2' },
      message: `expected ${WEB_1_SECRETS}, found "/p/secrets/web-2"`,
    },
    {
      what: 'a secret whose name starts with its own',
      fields: { authParameter: '/p/secrets/web-10' },
      message: `expected ${WEB_1_SECRETS}, found "/p/secrets/web-10"`,
    },
    {
      what: 'a secret below another target',
      fields: { authParameter: '/p/secrets/web-2/web-1' },
      message: `expected ${WEB_1_SECRETS}, found "/p/secrets/web-2/web-1"`,
    },
    {
      what: 'the secrets folder itself',
      fields: { authParameter: '/p/secrets/' },
      message: `expected ${WEB_1_SECRETS}, found "/p/secrets/"`,
    },
    {
      what: 'a parameter under the prefix, outside secrets',
      fields: { authParameter: '/p/targets/web-1' },
      message: `expected ${WEB_1_SECRETS}, found "/p/targets/web-1"`,
    },
    {
      what: 'a secret outside the prefix',
      fields: { authParameter: '/other/secrets/web-1' },
      message: `expected ${WEB_1_SECRETS}, found "/other/secrets/web-1"`,
    },
    {
      what: "another target's secret as CA bundle",
      fields: { caBundleParameter: '/p/secrets/web-2' },
      message: `expected a parameter under /p/ and, under /p/secrets/, only ${WEB_1_SECRETS}, found "/p/secrets/web-2"`,
    },
    {
      what: 'a CA bundle outside the prefix',
      fields: { caBundleParameter: '/elsewhere/ca' },
      message: 'expected a parameter under /p/ (the function reads only there), found "/elsewhere/ca"',
    },
  ])('refuses $what, naming what it may name', ({ fields, message }) => {
    const [field] = Object.keys(fields);
    expect(problemsOf(target({ url: 'https://h/', ...fields }))).toEqual([
      { parameter: '/p/targets/web-1', field, message },
    ]);
  });

  it('says when no secret is shared, and lists both fields of one target', () => {
    const scope = { prefix: '/p', sharedSecretParameters: [] };
    const targets = target({
      url: 'https://h/',
      authParameter: '/p/secrets/fleet-status',
      caBundleParameter: '/p/secrets/fleet-status',
    });
    const mine = '/p/secrets/web-1 or a parameter below it, or a shared secret (sharedSecretParameters: none)';
    expect(problemsOf(targets, scope)).toEqual([
      {
        parameter: '/p/targets/web-1',
        field: 'authParameter',
        message: `expected ${mine}, found "/p/secrets/fleet-status"`,
      },
      {
        parameter: '/p/targets/web-1',
        field: 'caBundleParameter',
        message: `expected a parameter under /p/ and, under /p/secrets/, only ${mine}, found "/p/secrets/fleet-status"`,
      },
    ]);
  });

  it('scopes a target in a subfolder by its name', () => {
    const targets = { '/p/targets/eu/web-3': JSON.stringify({ url: 'http://h/', authParameter: '/p/secrets/web-3' }) };
    expect(problemsOf(targets)).toEqual([]);
  });
});

/** A raw configuration of discovery documents and discovered targets alone. */
function discoveryRaw(discovery: Record<string, unknown>, discovered: Record<string, unknown> = {}) {
  const texts = (record: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(record).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  return { targets: {}, rules: {}, silences: {}, discovery: texts(discovery), discovered: texts(discovered) };
}

function discoveryProblems(discovery: Record<string, unknown>, discovered: Record<string, unknown> = {}) {
  try {
    buildMonitorConfig(discoveryRaw(discovery, discovered), SCOPE);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    return error.problems;
  }
}

const WEB_DOCUMENT = {
  source: 'ec2',
  filters: { 'tag:Role': ['web'] },
  url: 'http://{{privateIp}}/server-status?auto',
  authParameter: '/p/secrets/web',
};

describe('buildMonitorConfig: discovery documents and discovered targets', () => {
  it('reads a discovery document into the configuration, and no targets until the run lists', () => {
    const config = buildMonitorConfig(discoveryRaw({ '/p/discovery/web': WEB_DOCUMENT }), SCOPE);
    expect(config.targets).toEqual([]);
    expect(config.discovery?.map((d) => [d.parameter, d.name, d.query])).toEqual([
      ['/p/discovery/web', 'web', { source: 'ec2', filters: { 'tag:Role': ['web'] } }],
    ]);
  });

  it.each([
    [
      'an invalid document joins the one list of problems',
      { '/p/discovery/web': { ...WEB_DOCUMENT, source: 'ecs' } },
      {},
      [
        {
          parameter: '/p/discovery/web',
          field: 'source',
          message: 'expected one of ec2, autoscaling, elbv2, found "ecs"',
        },
      ],
    ],
    [
      "a label named discovery is the monitor's",
      { '/p/discovery/web': { ...WEB_DOCUMENT, labels: { discovery: 'x' } } },
      {},
      [
        {
          parameter: '/p/discovery/web',
          field: 'labels.discovery',
          message: 'expected no label named discovery (the monitor sets it to the discovery parameter), found "x"',
        },
      ],
    ],
    [
      "a discovered target names its document's secret",
      {},
      { '/p/discovery/web/i-1': { url: 'http://10.0.0.1/', authParameter: '/p/secrets/web' } },
      [],
    ],
    [
      "a discovered target may not name another document's secret",
      {},
      { '/p/discovery/web/i-1': { url: 'http://10.0.0.1/', authParameter: '/p/secrets/db' } },
      [
        {
          parameter: '/p/discovery/web/i-1',
          field: 'authParameter',
          message:
            'expected /p/secrets/web or a parameter below it, or a shared secret (sharedSecretParameters: /p/secrets/fleet-status), found "/p/secrets/db"',
        },
      ],
    ],
    [
      'a discovered name taken twice',
      {},
      { '/p/discovery/a/web-1': { url: 'http://10.0.0.1/' }, '/p/discovery/b/web-1': { url: 'http://10.0.0.2/' } },
      [
        {
          parameter: '/p/discovery/b/web-1',
          field: null,
          message: 'expected a unique target name, found "web-1" again (also /p/discovery/a/web-1: http://10.0.0.1/)',
        },
      ],
    ],
  ])('%s', (_intent, discovery, discovered, expected) => {
    expect(discoveryProblems(discovery, discovered)).toEqual(expected);
  });

  it('reads the discovered targets in force with their origin', () => {
    const raw = discoveryRaw(
      {},
      { '/p/discovery/web/i-1': { url: 'http://10.0.0.1/', labels: { discovery: '/p/discovery/web' } } },
    );
    expect(buildMonitorConfig(raw, SCOPE).targets).toEqual([
      { name: 'i-1', url: 'http://10.0.0.1/', labels: { discovery: '/p/discovery/web' }, origin: '/p/discovery/web' },
    ]);
  });

  it('scopes a target parameter by its own name whatever its labels say', () => {
    const targets = {
      '/p/targets/web-9': JSON.stringify({
        url: 'http://h/',
        labels: { discovery: '/p/discovery/web' },
        authParameter: '/p/secrets/web',
      }),
    };
    expect(problemsOf(targets).map((p) => p.field)).toEqual(['authParameter']);
  });
});

describe('discoveredKey, discoveredOrigin: where a discovered target is kept in RawConfig.discovered', () => {
  it.each<[string, string, string, string]>([
    ['a document under the prefix', '/p/discovery/web', 'i-0abc', '/p/discovery/web/i-0abc'],
    ['a deeper prefix', '/team/eu/hsa/discovery/asg', 'web-1.eu', '/team/eu/hsa/discovery/asg/web-1.eu'],
  ])('%s: the key, and back to the parameter and the name', (_, parameter, name, key) => {
    expect(discoveredKey(parameter, name)).toBe(key);
    expect([discoveredOrigin(key), leaf(key)]).toEqual([parameter, name]);
  });

  it('names every target a raw configuration holds, configured then discovered', () => {
    const raw = {
      targets: { '/p/targets/web-1': '{}' },
      discovered: { [discoveredKey('/p/discovery/web', 'i-1')]: '{}' },
    };
    expect(targetNames(raw)).toEqual(['web-1', 'i-1']);
    expect(targetNames({ targets: {} })).toEqual([]);
  });
});

describe('SSM_PREFIX: one pattern for the stack, the Lambda and the CLI', () => {
  const REQUIRED = { TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:alerts', STATE_TABLE: 'alerts' };
  /** Whether each reader accepts `prefix` as it is given (the Lambda and the CLI drop a trailing `/` first). */
  const accepted = (prefix: string) => ({
    pattern: SSM_PREFIX.test(prefix),
    stack: attempt(() => readConfig((key) => (key === 'prefix' ? prefix : undefined))),
    lambda: attempt(() => readRuntimeConfig({ ...REQUIRED, SSM_PREFIX: prefix })),
    cli: attempt(() => resolvePrefix(prefix, {})),
  });
  const attempt = (read: () => unknown) => {
    try {
      read();
      return true;
    } catch {
      return false;
    }
  };

  it.each([
    { prefix: '/httpd-status-alerts', expected: true },
    { prefix: '/team/apache_2.4', expected: true },
    { prefix: '/a//b', expected: false },
    { prefix: 'no-slash', expected: false },
    { prefix: '/with space', expected: false },
  ])('$prefix: accepted $expected everywhere', ({ prefix, expected }) => {
    expect(accepted(prefix)).toEqual({ pattern: expected, stack: expected, lambda: expected, cli: expected });
  });
});

/** A list document under `/p/targets/<document>` holding `entries`. */
const list = (document: string, ...entries: unknown[]) => ({
  [`/p/targets/${document}`]: JSON.stringify({ targets: entries }),
});
const NAME_EXPECTED = 'expected a target name of letters, digits, _ . - (at most 63), found';

describe('buildMonitorConfig: list documents, several targets per parameter', () => {
  it('reads each entry as a target named by its name, next to a one-target parameter', () => {
    const config = buildMonitorConfig(
      {
        targets: {
          ...list(
            'fleet-a',
            { name: 'web-2', url: 'http://web-2/', authParameter: '/p/secrets/web-2' },
            { name: 'web-3', url: 'http://web-3/', labels: { env: 'prod' }, timeoutMs: 2000 },
          ),
          ...target({ url: 'http://web-1/' }),
        },
        rules: {},
        silences: {},
      },
      SCOPE,
    );
    expect(config.targets).toEqual([
      { name: 'web-2', url: 'http://web-2/', authParameter: '/p/secrets/web-2', labels: {} },
      { name: 'web-3', url: 'http://web-3/', labels: { env: 'prod' }, timeoutMs: 2000 },
      { name: 'web-1', url: 'http://web-1/', labels: {} },
    ]);
  });

  it('reads an empty list as no targets', () => {
    expect(buildMonitorConfig({ targets: list('fleet-a'), rules: {}, silences: {} }, SCOPE).targets).toEqual([]);
  });

  it.each([
    [
      'a bad entry among good ones: only it is named, by its index',
      list('fleet-a', { name: 'web-1', url: 'http://a/' }, { name: 'web-2', url: 'ftp://b/' }),
      [
        {
          parameter: '/p/targets/fleet-a',
          field: 'targets[1].url',
          message: 'expected an http:// or https:// URL, found "ftp://b/"',
        },
      ],
    ],
    [
      'two bad entries: both, each with its index',
      list(
        'fleet-a',
        { url: 'http://a/' },
        { name: 'web-2', url: 'http://b/' },
        { name: 'web-3', url: 'http://c/', timeout: 5 },
      ),
      [
        {
          parameter: '/p/targets/fleet-a',
          field: 'targets[0].name',
          message: `${NAME_EXPECTED} nothing (the field is required)`,
        },
        {
          parameter: '/p/targets/fleet-a',
          field: 'targets[2].timeout',
          message: `expected one of the fields ${'url, timeoutMs, maxBytes, labels, authParameter, caBundleParameter, maxRequestWorkers, allowLoopback'}, found "timeout" (did you mean timeoutMs?)`,
        },
      ],
    ],
    [
      'a bad name and a bad field in one entry: both',
      list('fleet-a', { name: 'web 1', url: 'nope', authParameter: '/p/secrets/other' }),
      [
        { parameter: '/p/targets/fleet-a', field: 'targets[0].name', message: `${NAME_EXPECTED} "web 1"` },
        {
          parameter: '/p/targets/fleet-a',
          field: 'targets[0].url',
          message: 'expected an http:// or https:// URL, found "nope"',
        },
      ],
    ],
    [
      'an entry that is not an object',
      list('fleet-a', 'web-1'),
      [
        {
          parameter: '/p/targets/fleet-a',
          field: 'targets[0]',
          message: 'expected a target { "name": ..., "url": ... }, found "web-1"',
        },
      ],
    ],
    [
      'targets that is not an array',
      { '/p/targets/fleet-a': '{"targets":{"name":"web-1"}}' },
      [
        {
          parameter: '/p/targets/fleet-a',
          field: 'targets',
          message: 'expected an array of targets, each { "name": ..., "url": ... }, found {"name":"web-1"}',
        },
      ],
    ],
    [
      'a field beside targets',
      { '/p/targets/fleet-a': '{"targets":[],"url":"http://a/"}' },
      [
        {
          parameter: '/p/targets/fleet-a',
          field: 'url',
          message: 'expected only the fields targets and defaults in a target list document, found "url"',
        },
      ],
    ],
    [
      "an entry naming another target's secret: scoped by the entry's name",
      list('fleet-a', { name: 'web-2', url: 'http://b/', authParameter: '/p/secrets/web-1' }),
      [
        {
          parameter: '/p/targets/fleet-a',
          field: 'targets[0].authParameter',
          message:
            'expected /p/secrets/web-2 or a parameter below it, or a shared secret (sharedSecretParameters: /p/secrets/fleet-status), found "/p/secrets/web-1"',
        },
      ],
    ],
    [
      'a name twice in one list',
      list('fleet-a', { name: 'web-1', url: 'http://a/' }, { name: 'web-1', url: 'http://b/' }),
      [
        {
          parameter: '/p/targets/fleet-a',
          field: 'targets[1].name',
          message: 'expected a unique target name, found "web-1" again (also /p/targets/fleet-a targets[0]: http://a/)',
        },
      ],
    ],
    [
      'a name in two lists',
      {
        ...list('fleet-a', { name: 'web-1', url: 'http://a/' }),
        ...list('fleet-b', { name: 'web-1', url: 'http://a/' }),
      },
      [
        {
          parameter: '/p/targets/fleet-b',
          field: 'targets[0].name',
          message: 'expected a unique target name, found "web-1" again (also /p/targets/fleet-a targets[0]: http://a/)',
        },
      ],
    ],
    [
      'a name in a list and in its own parameter, with different fields',
      { ...list('fleet-a', { name: 'web-1', url: 'http://a/', timeoutMs: 2000 }), ...target({ url: 'http://a/' }) },
      [
        {
          parameter: '/p/targets/web-1',
          field: null,
          message: 'expected a unique target name, found "web-1" again (also /p/targets/fleet-a targets[0]: http://a/)',
        },
      ],
    ],
    [
      'a target being moved into a list (equal in every field, its old parameter not yet deleted): no problem',
      {
        ...list('fleet-a', { name: 'web-1', labels: { b: '2', a: '1' }, url: 'http://a/' }),
        ...target({ url: 'http://a/', labels: { a: '1', b: '2' } }),
      },
      [],
    ],
  ])('%s', (_intent, targets, expected) => {
    expect(problemsOf(targets)).toEqual(expected);
  });

  it('counts a moved target once', () => {
    const targets = { ...list('fleet-a', { name: 'web-1', url: 'http://a/' }), ...target({ url: 'http://a/' }) };
    expect(buildMonitorConfig({ targets, rules: {}, silences: {} }, SCOPE).targets).toEqual([
      { name: 'web-1', url: 'http://a/', labels: {} },
    ]);
  });
});

/** `<prefix>/targets/<document>` holding `defaults` and `entries`. */
const withDefaults = (document: string, defaults: unknown, ...entries: unknown[]) => ({
  [`/p/targets/${document}`]: JSON.stringify({ defaults, targets: entries }),
});
const FLEET_DEFAULTS = {
  url: 'http://shared/',
  timeoutMs: 5000,
  authParameter: '/p/secrets/fleet-status',
  labels: { env: 'prod', team: 'web' },
};
const LIST_FIELD_NAMES =
  'url, timeoutMs, maxBytes, labels, authParameter, caBundleParameter, maxRequestWorkers, allowLoopback';

describe("buildMonitorConfig: list defaults, the fields a list's entries share", () => {
  it('merges each entry over the defaults: its own field wins, labels merged key by key (its label wins)', () => {
    const config = buildMonitorConfig(
      {
        targets: withDefaults(
          'fleet-a',
          FLEET_DEFAULTS,
          { name: 'web-1' },
          { name: 'web-2', url: 'http://web-2/', timeoutMs: 2000, labels: { team: 'db', role: 'primary' } },
          { name: 'web-3', labels: {} },
        ),
        rules: {},
        silences: {},
      },
      SCOPE,
    );
    expect(config.targets).toEqual([
      {
        name: 'web-1',
        url: 'http://shared/',
        timeoutMs: 5000,
        authParameter: '/p/secrets/fleet-status',
        labels: { env: 'prod', team: 'web' },
      },
      {
        name: 'web-2',
        url: 'http://web-2/',
        timeoutMs: 2000,
        authParameter: '/p/secrets/fleet-status',
        labels: { env: 'prod', team: 'db', role: 'primary' },
      },
      {
        name: 'web-3',
        url: 'http://shared/',
        timeoutMs: 5000,
        authParameter: '/p/secrets/fleet-status',
        labels: { env: 'prod', team: 'web' },
      },
    ]);
  });

  it('reads empty defaults as none', () => {
    expect(
      buildMonitorConfig(
        { targets: withDefaults('fleet-a', {}, { name: 'web-1', url: 'http://a/' }), rules: {}, silences: {} },
        SCOPE,
      ).targets,
    ).toEqual([{ name: 'web-1', url: 'http://a/', labels: {} }]);
  });

  const at = (field: string, message: string) => ({ parameter: '/p/targets/fleet-a', field, message });

  it.each<[string, Record<string, string>, ConfigProblem[]]>([
    [
      'a bad default: once, at defaults.<field>, not once per entry keeping it',
      withDefaults('fleet-a', { url: 'http://a/', timeoutMs: 5 }, { name: 'web-1' }, { name: 'web-2' }),
      [at('defaults.timeoutMs', 'Too small: expected number to be >=100, found 5')],
    ],
    [
      'a bad default an entry overrides: the default alone',
      withDefaults('fleet-a', { url: 'ftp://a/' }, { name: 'web-1', url: 'http://web-1/' }),
      [at('defaults.url', 'expected an http:// or https:// URL, found "ftp://a/"')],
    ],
    [
      'an unknown default, with the field meant',
      withDefaults('fleet-a', { url: 'http://a/', timeout: 5000 }, { name: 'web-1' }),
      [
        at(
          'defaults.timeout',
          `expected one of the fields ${LIST_FIELD_NAMES}, found "timeout" (did you mean timeoutMs?)`,
        ),
      ],
    ],
    [
      'a name in the defaults',
      withDefaults('fleet-a', { name: 'web', url: 'http://a/' }, { name: 'web-1' }),
      [at('defaults.name', 'expected no name in defaults (each entry names itself), found "web"')],
    ],
    [
      'a default label too long: at defaults.labels.<key>',
      withDefaults('fleet-a', { url: 'http://a/', labels: { team: 'x'.repeat(257) } }, { name: 'web-1' }),
      [at('defaults.labels.team', `Too big: expected string to have <=256 characters, found "${'x'.repeat(56)}...`)],
    ],
    [
      'defaults that are not an object',
      withDefaults('fleet-a', 'http://a/', { name: 'web-1', url: 'http://a/' }),
      [
        at(
          'defaults',
          'expected an object of the target fields every entry shares, e.g. { "timeoutMs": 5000 }, found "http://a/"',
        ),
      ],
    ],
    [
      "an entry's own bad field: at targets[i].<field> as without defaults",
      withDefaults('fleet-a', { timeoutMs: 5000 }, { name: 'web-1', url: 'http://a/' }, { name: 'web-2', url: 'nope' }),
      [at('targets[1].url', 'expected an http:// or https:// URL, found "nope"')],
    ],
    [
      'a URL neither the defaults nor the entry give: required at the entry',
      withDefaults('fleet-a', { timeoutMs: 5000 }, { name: 'web-1' }),
      [at('targets[0].url', 'expected a string, found nothing (the field is required)')],
    ],
    [
      "a default authParameter that is one target's secret: out of scope for every other entry",
      withDefaults(
        'fleet-a',
        { url: 'http://a/', authParameter: '/p/secrets/web-1' },
        { name: 'web-1' },
        { name: 'web-2' },
        { name: 'web-3', authParameter: '/p/secrets/web-3' },
      ),
      [
        at(
          'targets[1].authParameter',
          `expected /p/secrets/web-2 or a parameter below it, or a shared secret (sharedSecretParameters: /p/secrets/fleet-status), found "/p/secrets/web-1" (from the list's defaults)`,
        ),
      ],
    ],
    [
      'a field beside targets and defaults, with the one meant',
      { '/p/targets/fleet-a': '{"default":{},"targets":[]}' },
      [
        at(
          'default',
          'expected only the fields targets and defaults in a target list document, found "default" (did you mean defaults?)',
        ),
      ],
    ],
    [
      'a target being moved into a list with defaults (equal once merged): no problem',
      {
        ...withDefaults('fleet-a', { url: 'http://a/', labels: { a: '1' } }, { name: 'web-1', labels: { b: '2' } }),
        ...target({ url: 'http://a/', labels: { a: '1', b: '2' } }),
      },
      [],
    ],
    [
      'a target in its own parameter and in a list whose defaults give it one more field: a duplicate',
      {
        ...withDefaults('fleet-a', { url: 'http://a/', timeoutMs: 2000 }, { name: 'web-1' }),
        ...target({ url: 'http://a/' }),
      },
      [
        {
          parameter: '/p/targets/web-1',
          field: null,
          message: 'expected a unique target name, found "web-1" again (also /p/targets/fleet-a targets[0]: http://a/)',
        },
      ],
    ],
  ])('%s', (_intent, targets, expected) => {
    expect(problemsOf(targets)).toEqual(expected);
  });

  it('keeps the defaults of a list entry, and merges them into the document it stands for', () => {
    const targets = withDefaults(
      'fleet-a',
      { url: 'http://a/', labels: { a: '1' } },
      { name: 'web-1', labels: { b: '2' } },
    );
    const [entry] = targetEntries(targets);
    expect(entry).toEqual({
      parameter: '/p/targets/fleet-a',
      index: 0,
      name: 'web-1',
      document: { name: 'web-1', labels: { b: '2' } },
      defaults: { url: 'http://a/', labels: { a: '1' } },
    });
    expect(mergedDocument(entry as NonNullable<typeof entry>)).toEqual({
      name: 'web-1',
      url: 'http://a/',
      labels: { a: '1', b: '2' },
    });
  });
});

describe('targetEntries and targetNames', () => {
  it('lists every target with its parameter and index, leniently', () => {
    const targets = {
      ...list('fleet-a', { name: 'web-2', url: 'http://b/' }, { url: 'nameless' }, { name: 'web-3' }),
      ...target({ url: 'http://a/' }),
      '/p/targets/broken': '{',
    };
    expect(targetEntries(targets)).toEqual([
      { parameter: '/p/targets/broken', index: null, name: 'broken', document: undefined },
      { parameter: '/p/targets/fleet-a', index: 0, name: 'web-2', document: { name: 'web-2', url: 'http://b/' } },
      { parameter: '/p/targets/fleet-a', index: 2, name: 'web-3', document: { name: 'web-3' } },
      { parameter: '/p/targets/web-1', index: null, name: 'web-1', document: { url: 'http://a/' } },
    ]);
    expect(targetNames({ targets, discovered: { '/p/discovery/d/i-1': '{}' } })).toEqual([
      'broken',
      'web-2',
      'web-3',
      'web-1',
      'i-1',
    ]);
  });
});
