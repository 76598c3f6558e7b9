/**
 * `rules validate|test` through `main`. Runs the shipped tests of the built-in rules
 * (rules-tests/), and shows that a wrong expectation fails with what differed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES, DEFAULT_RULES_DOCUMENT, rulesFromDocuments } from '../../src/core/rules/document.ts';
import { runCli } from './fakeIo.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RULES_TESTS = join(ROOT, 'rules-tests');
const FIXTURES = join(ROOT, 'test/fixtures/rules');

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return runCli(args, { now: '2026-11-22T12:00:00Z' });
}

/** A test file in a temporary directory, next to a copy of the reports it names by relative path. */
function writeTestFile(doc: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'hsa-rules-test-'));
  const path = join(dir, 'case.test.json');
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

const SATURATED = join(RULES_TESTS, 'reports/saturated.auto.txt');

describe('cli rules test', () => {
  it('passes the shipped tests of the built-in rules and of a maintenance window', async () => {
    const files = ['default-rules.test.json', 'maintenance-window.test.json'].map((f) => join(RULES_TESTS, f));
    const result = await cli(['rules', 'test', ...files]);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(result.out.split('\n').filter((l) => !l.startsWith('PASS '))).toEqual(['14 passed, 0 failed', '']);
  });

  it('fails a test whose expectations differ, printing each difference by step', async () => {
    // Prepare: idle-slots-low has for: 2m, so it is pending (not firing) one minute in
    const path = writeTestFile({
      tests: [
        {
          name: 'too eager',
          target: 'web-9',
          steps: [
            { at: '2026-11-22T12:00:00Z', report: SATURATED, alerts: [{ rule: 'idle-slots-low', state: 'pending' }] },
            {
              at: '2026-11-22T12:01:00Z',
              report: SATURATED,
              alerts: [{ rule: 'idle-slots-low', state: 'firing', severity: 'warning' }],
              notifications: [{ status: 'firing', rule: 'idle-slots-low' }],
            },
            { at: '2026-11-22T12:02:00Z', report: SATURATED },
          ],
        },
      ],
    });
    // Act
    const result = await cli(['rules', 'test', path]);
    // Assess
    expect(result).toEqual({
      code: 1,
      out: [
        `FAIL ${path}: too eager`,
        '  step 2 at 2026-11-22T12:01:00Z: alert idle-slots-low: expected firing, found pending (value 0.0234375)',
        '  step 2 at 2026-11-22T12:01:00Z: alert idle-slots-low: expected severity warning, found critical',
        '  step 2 at 2026-11-22T12:01:00Z: notification firing idle-slots-low: expected, found none',
        '  step 3 at 2026-11-22T12:02:00Z: alert idle-slots-low: expected none, found firing (value 0.0234375)',
        '  step 3 at 2026-11-22T12:02:00Z: notification firing idle-slots-low: expected none, found "[FIRING critical] web-9: idle-slots-low (0.023 < 0.05)"',
        '0 passed, 1 failed',
        '',
      ].join('\n'),
      err: '',
    });
  });

  it('uses the rules files the test names instead of the built-in rules', async () => {
    const path = writeTestFile({
      rules: [join(FIXTURES, 'valid.json')],
      tests: [
        {
          name: 'quiet',
          steps: [{ at: '2026-11-22T12:00:00Z', report: join(RULES_TESTS, 'reports/healthy.auto.txt') }],
        },
      ],
    });
    expect(await cli(['rules', 'test', path])).toEqual({
      code: 0,
      out: `PASS ${path}: quiet\n1 passed, 0 failed\n`,
      err: '',
    });
  });

  it('refuses an invalid test file with every problem listed (exit 1)', async () => {
    const path = writeTestFile({
      tests: [
        {
          name: 'bad',
          steps: [
            { at: 'noon', report: 'x', alerts: [{ rule: 'r', state: 'resolved' }] },
            { at: '2026-11-22T12:00:00Z', colour: 'red' },
          ],
        },
      ],
    });
    expect(await cli(['rules', 'test', path])).toEqual({
      code: 1,
      out: `FAIL ${path}\n  ${path}: expected a valid rules test file, found: tests.0.steps.0.at: expected an ISO-8601 time with a zone, e.g. 2026-11-22T12:00:00Z, found "noon"; tests.0.steps.0.alerts.0.state: expected pending or firing, found "resolved"; tests.0.steps.1: unknown field(s) colour\n0 passed, 1 failed\n`,
      err: '',
    });
  });

  it('refuses a step with neither report nor down', async () => {
    const path = writeTestFile({ tests: [{ name: 'empty', steps: [{ at: '2026-11-22T12:00:00Z' }] }] });
    const result = await cli(['rules', 'test', path]);
    expect(result.code).toBe(1);
    expect(result.out).toBe(
      `FAIL ${path}\n  ${path}: expected a valid rules test file, found: tests.0.steps.0: expected exactly one of "report" or "down"\n0 passed, 1 failed\n`,
    );
  });

  it('counts a test whose report file is missing as failed, runs the others, and ends with the count', async () => {
    const path = writeTestFile({
      tests: [
        { name: 'missing', steps: [{ at: '2026-11-22T12:00:00Z', report: 'nope.auto.txt' }] },
        {
          name: 'fine',
          steps: [
            { at: '2026-11-22T12:00:00Z', report: SATURATED, alerts: [{ rule: 'idle-slots-low', state: 'pending' }] },
          ],
        },
      ],
    });
    const result = await cli(['rules', 'test', path]);
    const lines = result.out.split('\n');
    expect([result.code, lines[0], lines.at(-2)]).toEqual([1, `FAIL ${path}: missing`, '1 passed, 1 failed']);
    expect(lines[1]).toMatch(/^ {2}step 1 at 2026-11-22T12:00:00Z: report \S+nope\.auto\.txt: ENOENT/);
    expect(lines[2]).toBe(`PASS ${path}: fine`);
  });

  it('names an expected rule that does not exist, with the nearest names, and a missing test file', async () => {
    const path = writeTestFile({
      tests: [
        {
          name: 'typo',
          steps: [
            { at: '2026-11-22T12:00:00Z', report: SATURATED, alerts: [{ rule: 'idle-slot-low', state: 'pending' }] },
          ],
        },
      ],
    });
    const result = await cli(['rules', 'test', path, join(RULES_TESTS, 'nope.test.json')]);
    const lines = result.out.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      `FAIL ${path}: typo`,
      '  expected rule idle-slot-low: no rule of that name in the rules tested (did you mean idle-slots-low?)',
    ]);
    expect(lines.at(-4)).toBe(`FAIL ${join(RULES_TESTS, 'nope.test.json')}`);
    expect(lines.at(-2)).toBe('0 passed, 2 failed');
    expect(result.code).toBe(1);
  });
});

describe('cli rules defaults', () => {
  it('prints the built-in rules as a rules document that validates to the built-in rules', async () => {
    const result = await cli(['rules', 'defaults']);
    expect([result.code, result.err]).toEqual([0, '']);
    expect(JSON.parse(result.out)).toEqual(DEFAULT_RULES_DOCUMENT);
    expect(rulesFromDocuments([{ source: 'printed', text: result.out }], [])).toEqual(DEFAULT_RULES);
  });

  it('refuses an argument (exit 2)', async () => {
    expect(await cli(['rules', 'defaults', 'x'])).toEqual({
      code: 2,
      out: '',
      err: 'rules: expected no arguments, found "x" (usage: rules --help)\n',
    });
  });
});

describe('cli rules validate', () => {
  it('accepts valid rules files, naming the rules', async () => {
    const result = await cli(['rules', 'validate', join(FIXTURES, 'valid.json')]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^\d+ rule\(s\) in 1 file\(s\) valid: [a-z0-9-]+(, [a-z0-9-]+)*\n$/);
  });

  it('says an empty rules list is valid without a dangling colon', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rules-')), 'empty.json');
    writeFileSync(file, '{"rules":[]}');
    expect(await cli(['rules', 'validate', file])).toEqual({ code: 0, out: '0 rule(s) in 1 file(s) valid\n', err: '' });
  });

  it('names the built-in rules a file switches off', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rules-')), 'off.json');
    writeFileSync(file, '{"rules":[{"name":"ssl-cache-misses","enabled":false}]}');
    expect(await cli(['rules', 'validate', file])).toEqual({
      code: 0,
      out: '0 rule(s) in 1 file(s) valid; built-in rule(s) switched off: ssl-cache-misses\n',
      err: '',
    });
  });

  it('lists every problem of an invalid file (exit 1)', async () => {
    const file = join(FIXTURES, 'invalid.json');
    const result = await cli(['rules', 'validate', file]);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    const lines = result.err.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^rules validate: expected valid rules documents, found (\d+) problem\(s\):$/);
    const count = Number(/found (\d+) problem/.exec(lines[0] as string)?.[1]);
    expect(lines.slice(1)).toHaveLength(count);
    for (const line of lines.slice(1)) expect(line.startsWith(`${file}: `)).toBe(true);
  });

  it.each([
    [['validate'], 2, 'rules: expected at least one rules file (usage: rules --help)'],
    [
      ['validate', '/no/such/file.json'],
      1,
      "rules: cannot read /no/such/file.json: ENOENT: no such file or directory, open '/no/such/file.json'",
    ],
    [['lint', 'x'], 2, 'rules: expected validate, test or defaults, found "lint" (usage: rules --help)'],
    [
      ['validate', '--fil', 'x.json'],
      2,
      'rules: expected one of the options of --help, found unknown option --fil (usage: rules --help)',
    ],
    [
      ['test', 'x.test.json', '--json'],
      2,
      'rules: expected one of the options of --help, found unknown option --json (usage: rules --help)',
    ],
  ])('%j exits %i with one line', async (args, code, line) => {
    expect(await cli(['rules', ...args])).toEqual({ code, out: '', err: `${line}\n` });
  });
});
