import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CheckIo, runCheck } from '../../src/cli/check.ts';
import { NotAStatusReportError } from '../../src/core/errors.ts';
import type { StatusReport } from '../../src/core/report/types.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const expectedJson = (name: string) => readFileSync(new URL(`apache-2.4.71/${name}.expected.json`, FIXTURES), 'utf8');

// Files the command may read: reports (their parsed form, see `parse` below), rules and silences.
const FILES: Record<string, string> = {
  'web-1.html': expectedJson('prefork-busy/report.html'),
  'event.html': expectedJson('event-busy/report.late.html'),
  'login.html': '<html>Please log in</html>',
  'rules.json': readFileSync(new URL('rules/valid.json', FIXTURES), 'utf8'),
  'invalid.json': readFileSync(new URL('rules/invalid.json', FIXTURES), 'utf8'),
  'critical.json': JSON.stringify({
    rules: [
      {
        name: 'busy-high',
        metric: 'slots_busy',
        op: '>=',
        threshold: 20,
        severity: 'critical',
        runbook: 'https://wiki.example/busy',
      },
    ],
  }),
  'silence.json': JSON.stringify({ silences: [{ rule: 'busy-*', until: '2026-11-22T12:05:00Z' }] }),
};

function makeIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CheckIo = {
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
    readText: async (path) => {
      const text = FILES[path];
      if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
      return text;
    },
    fetchText: async (url) => {
      if (url === 'http://web-2.example:8080/server-status') return FILES['event.html'] as string;
      throw new Error('timeout: no answer in 10 s');
    },
    // The parsers are tested on their own: here a report file holds its parsed JSON.
    parse: (text) => {
      if (!text.startsWith('{'))
        throw new NotAStatusReportError('an Apache server-status report', `"${text.slice(0, 10)}"`);
      return { legend: null, ...JSON.parse(text) } as StatusReport;
    },
    now: () => new Date('2026-11-22T12:00:00Z'),
  };
  return { io, out, err };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'check-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function check(args: string[]) {
  const { io, out, err } = makeIo();
  const code = await runCheck(args, io);
  return { code, out: out.join(''), err: err.join('') };
}

describe('Function: runCheck', () => {
  it('steps the default rules through --now with a --state file: pending, firing (exit 1), then quiet', async () => {
    const state = join(dir, 'state.json');
    const at = (now: string) =>
      check(['--file', 'web-1.html', '--target', 'web-1', '--state', state, '--now', now, '--json']);

    // Act
    const runs = [await at('2026-11-22T12:00:00Z'), await at('2026-11-22T12:01:00Z'), await at('2026-11-22T12:02:00Z')];

    // Assess
    const parsed = runs.map((r) => JSON.parse(r.out));
    expect(runs.map((r) => [r.code, r.err])).toEqual([
      [0, ''],
      [1, ''],
      [1, ''],
    ]);
    expect(parsed[0]).toEqual({
      target: 'web-1',
      evaluatedAt: '2026-11-22T12:00:00Z',
      alerts: [{ rule: 'client-concentration', state: 'pending', value: 28, threshold: 20, severity: 'warning' }],
      notifications: [],
    });
    expect(parsed[1].alerts).toEqual([
      { rule: 'client-concentration', state: 'firing', value: 28, threshold: 20, severity: 'warning' },
    ]);
    expect(Object.keys(parsed[1].notifications[0])).toEqual([
      'status',
      'rule',
      'target',
      'severity',
      'value',
      'threshold',
      'subject',
      'message',
    ]);
    expect(parsed[1].notifications[0]).toMatchObject({
      status: 'firing',
      rule: 'client-concentration',
      target: 'web-1',
      severity: 'warning',
      value: 28,
      threshold: 20,
      subject: '[FIRING warning] web-1: client-concentration (28 >= 20)',
    });
    expect(parsed[2].notifications).toEqual([]);
  });

  it.each([
    ['a critical rule firing', ['--file', 'web-1.html', '--rules', 'critical.json'], 2, ''],
    ['the contract example rules, nothing firing', ['--file', 'web-1.html', '--rules', 'rules.json'], 0, ''],
    [
      '--url, target from the host',
      ['--url', 'http://web-2.example:8080/server-status', '--rules', 'critical.json'],
      2,
      '',
    ],
    [
      'a silence holding back the page (still exit 2)',
      ['--file', 'event.html', '--rules', 'critical.json', '--silences', 'silence.json'],
      2,
      '',
    ],
    [
      'neither --file nor --url',
      ['--rules', 'rules.json'],
      3,
      'check: expected exactly one of --file <path> or --url <url>\n',
    ],
    [
      'both --file and --url',
      ['--file', 'a', '--url', 'http://b/'],
      3,
      'check: expected exactly one of --file <path> or --url <url>\n',
    ],
    [
      'an unknown option',
      ['--file', 'web-1.html', '--verbose'],
      3,
      expect.stringMatching(/^check: Unknown option '--verbose'.*\n$/),
    ],
    [
      'a bad --now',
      ['--file', 'web-1.html', '--now', 'noon'],
      3,
      'check: --now expects an ISO-8601 time such as 2026-11-22T12:00:00Z, found "noon"\n',
    ],
    [
      'a bad --repeat-interval',
      ['--file', 'web-1.html', '--repeat-interval', '4 hours'],
      3,
      'check: --repeat-interval expects a duration such as 4h, found "4 hours"\n',
    ],
    [
      'a bad --max-request-workers',
      ['--file', 'web-1.html', '--max-request-workers', '0'],
      3,
      'check: --max-request-workers expects a whole number of 1 or more, found "0"\n',
    ],
    [
      'a missing rules file',
      ['--file', 'web-1.html', '--rules', 'nope.json'],
      3,
      "check: cannot read nope.json: ENOENT: no such file, open 'nope.json'\n",
    ],
    [
      'invalid rules',
      ['--file', 'web-1.html', '--rules', 'invalid.json'],
      3,
      expect.stringMatching(
        /^check: expected valid rules documents, found 12 problem\(s\):; invalid.json: rule #1 field name: [^\n]+\n$/,
      ),
    ],
  ])('%s', async (_, args, code, err) => {
    const result = await check(args as string[]);
    expect([result.code, result.err]).toEqual([code, err]);
  });

  it('computes free slots against --max-request-workers, not the printed positions', async () => {
    // web-1.html: 256 positions printed, 28 in use. Declared 29 workers: 1 free, 1/29 < 0.05.
    const alert = async (args: string[]) =>
      JSON.parse((await check(['--file', 'web-1.html', '--json', ...args])).out).alerts.find(
        (a: { rule: string }) => a.rule === 'idle-slots-low',
      );
    expect(await alert([])).toBeUndefined();
    expect(await alert(['--max-request-workers', '29'])).toMatchObject({ state: 'pending', value: 1 / 29 });
  });

  it('prints no notification while a silence matches', async () => {
    const args = ['--file', 'event.html', '--rules', 'critical.json', '--silences', 'silence.json', '--json'];
    const { out } = await check(args);
    expect(JSON.parse(out).notifications).toEqual([]);
    expect(JSON.parse(out).alerts).toEqual([
      { rule: 'busy-high', state: 'firing', value: 48, threshold: 20, severity: 'critical' },
    ]);
  });

  it('prints alerts and notifications for a person without --json', async () => {
    const { code, out } = await check(['--url', 'http://web-2.example:8080/server-status', '--rules', 'critical.json']);
    expect(code).toBe(2);
    expect(out.split('\n').slice(0, 6)).toEqual([
      'web-2.example:8080 at 2026-11-22T12:00:00Z: 1 alert(s) pending or firing',
      '  FIRING   critical busy-high: slots_busy 48 >= 20',
      'Notifications that would be published: 1',
      '',
      'Subject: [FIRING critical] web-2.example:8080: busy-high (48 >= 20)',
      'FIRING critical: busy-high on web-2.example:8080',
    ]);
    expect(out).toContain('Runbook: https://wiki.example/busy\n');
  });

  it('exits 3 with one line when the report is not one, and pages target-down on the second failure', async () => {
    const state = join(dir, 'state.json');
    const at = (now: string) => check(['--file', 'login.html', '--state', state, '--now', now, '--json']);

    // Act
    const first = await at('2026-11-22T12:00:00Z');
    const second = await at('2026-11-22T12:01:00Z');

    // Assess
    expect([first.code, first.err]).toEqual([
      3,
      'check: login.html: not-a-report: expected an Apache server-status report, found "<html>Plea"\n',
    ]);
    expect(JSON.parse(first.out).notifications).toEqual([]);
    expect(second.code).toBe(3);
    expect(JSON.parse(second.out).notifications.map((n: { subject: string }) => n.subject)).toEqual([
      '[FIRING critical] login.html: target-down (not a report)',
    ]);
  });

  it('re-sends a still-firing alert after --repeat-interval', async () => {
    const state = join(dir, 'state.json');
    const at = async (now: string) =>
      JSON.parse(
        (
          await check([
            '--file',
            'web-1.html',
            '--rules',
            'critical.json',
            '--state',
            state,
            '--now',
            now,
            '--json',
            '--repeat-interval',
            '30m',
          ])
        ).out,
      ).notifications.length;
    expect([
      await at('2026-11-22T12:00:00Z'),
      await at('2026-11-22T12:29:00Z'),
      await at('2026-11-22T12:30:00Z'),
    ]).toEqual([1, 0, 1]);
  });
});
