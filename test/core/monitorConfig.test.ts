import { describe, expect, it } from 'vitest';
import { readConfig } from '../../infra/config.ts';
import { resolvePrefix } from '../../src/cli/commandSupport.ts';
import { buildMonitorConfig, ConfigurationError, SSM_PREFIX } from '../../src/core/monitorConfig.ts';
import { DEFAULT_RULES } from '../../src/core/rules/document.ts';
import { readRuntimeConfig } from '../../src/lambda/environment.ts';

const target = (value: unknown) => ({ '/p/targets/web-1': JSON.stringify(value) });

describe('buildMonitorConfig', () => {
  it('reads targets and falls back to the default rules', () => {
    const config = buildMonitorConfig({
      targets: target({
        url: 'https://web-1:8443/server-status',
        timeoutMs: 2000,
        labels: { env: 'prod' },
        authParameter: '/p/secrets/web-1',
        maxRequestWorkers: 150,
      }),
      rules: {},
      silences: {},
    });
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
      /expected a unique target name, found "web-1" again \(also http:\/\/a\/\)/,
    ],
    // Credentials in URLs are redacted in every message (issue 11).
    [
      'a name used twice, with credentials',
      { '/p/targets/eu/web-1': '{"url":"http://ops:s3cret@a/"}', '/p/targets/us/web-1': '{"url":"http://b/"}' },
      '/p/targets/us/web-1',
      null,
      /^expected a unique target name, found "web-1" again \(also http:\/\/ops:\*\*\*@a\/\)$/,
    ],
    [
      'not JSON, with credentials past the shown length',
      { '/p/targets/web-1': `url=http://ops:${'s3cret'.repeat(20)}@web-1/` },
      '/p/targets/web-1',
      null,
      /^expected JSON, found "url=http:\/\/ops:\*\*\*@web-1\/"/,
    ],
    [
      'a URL that is not http, with credentials',
      target({ url: 'ftp://ops:s3cret@x/status' }),
      '/p/targets/web-1',
      'url',
      /found "ftp:\/\/ops:\*\*\*@x\/status"$/,
    ],
  ])('rejects a target with %s, naming parameter and field', (_name, targets, parameter, field, message) => {
    let error: unknown;
    try {
      buildMonitorConfig({ targets, rules: {}, silences: {} });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    const [problem, ...rest] = (error as ConfigurationError).problems;
    expect(rest).toEqual([]);
    expect(problem?.parameter).toBe(parameter);
    expect(problem?.field).toBe(field);
    expect(problem?.message).toMatch(message);
  });

  it('lists every problem of every parameter at once', () => {
    let error: unknown;
    try {
      buildMonitorConfig({
        targets: { ...target({ url: 'nope' }), '/p/targets/web-2': '{' },
        rules: { '/p/rules/a': '{"rules":[{"name":"x","metric":"slots_idle","op":"<","threshold":"five"}]}' },
        silences: { '/p/silences/s': '{"silences":[{"target":"web-*"}]}' },
      });
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
