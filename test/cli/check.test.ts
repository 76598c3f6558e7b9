import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchStatusPage } from '../../src/adapters/httpStatusSource.ts';
import { consoleText } from '../../src/cli/consoleText.ts';
import { main } from '../../src/cli/main.ts';
import { cleanReportText, TEXT_USES } from '../../src/core/text/sanitize.ts';
import { cleanTerminalText } from '../../src/core/text/terminalText.ts';
import { ECHO_ROUTES, type EchoServer, leaksIn, startEchoServer } from '../support/echoServer.ts';
import { fakeIo, okPage } from './fakeIo.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const fixture = (path: string) => readFileSync(new URL(path, FIXTURES), 'utf8');
const WEB_2 = 'http://web-2.example:8080/server-status';

// Files the command may read: real reports (prefork-busy: top client 28 busy slots; event-busy: 48 busy),
// rules and silences.
const FILES: Record<string, string> = {
  'web-1.html': fixture('apache-2.4.71/prefork-busy/report.html'),
  'idle.html': fixture('apache-2.4.71/prefork-idle/report.html'),
  'event.html': fixture('apache-2.4.71/event-busy/report.late.html'),
  'login.html': '<html>Please log in</html>',
  'user-only': 'ops\n',
  'rules.json': fixture('rules/valid.json'),
  'invalid.json': fixture('rules/invalid.json'),
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
  'kept.json': JSON.stringify({
    rules: [{ name: 'busy-high', metric: 'slots_busy', op: '>=', threshold: 20, keepFiringFor: '5m' }],
  }),
  'off.json': JSON.stringify({ rules: [{ name: 'client-concentration', enabled: false }] }),
  'silence.json': JSON.stringify({ silences: [{ rule: 'busy-*', until: '2026-11-22T12:05:00Z' }] }),
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'check-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function check(args: string[], now = '2026-11-22T12:00:00Z', files: Record<string, string> = {}) {
  const { io, out, err } = fakeIo({
    files: { ...FILES, ...files },
    pages: { [WEB_2]: okPage(WEB_2, FILES['event.html'] as string) },
    now,
  });
  const code = await main(['check', ...args], io);
  return { code, out: out(), err: err() };
}

describe('check', () => {
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
    const pending = { rule: 'client-concentration', value: 28, threshold: 20, severity: 'warning' };
    const kept = { keepFiringSince: null, resolvesAt: null };
    expect(parsed[0]).toEqual({
      target: 'web-1',
      evaluatedAt: '2026-11-22T12:00:00Z',
      alerts: [{ ...pending, state: 'pending', ...kept }],
      notifications: [],
    });
    expect(parsed[1].alerts).toEqual([{ ...pending, state: 'firing', ...kept }]);
    // The page JSON the Lambda publishes, then the subject and text of the page.
    expect(Object.keys(parsed[1].notifications[0])).toEqual([
      ...['version', 'status', 'reason', 'fingerprint', 'target', 'rule', 'severity', 'metric', 'op', 'threshold'],
      ...['clearThreshold', 'value', 'activeAt', 'firedAt', 'resolvedAt', 'keepFiringSince', 'resolvesAt'],
      ...['evaluatedAt', 'summary', 'runbook', 'labels', 'offenders', 'scoreboard', 'down', 'failure', 'silence'],
      ...['forecast', 'subject', 'message'],
    ]);
    expect(parsed[1].notifications[0].offenders.clients).toEqual([{ name: '127.0.0.1', count: 28 }]);
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
    ['a critical rule firing', 2, ['--file', 'web-1.html', '--rules', 'critical.json', '--no-default-rules']],
    [
      'the contract example rules, nothing firing',
      0,
      ['--file', 'web-1.html', '--rules', 'rules.json', '--no-default-rules'],
    ],
    ['--url, target from the host', 2, ['--url', WEB_2, '--rules', 'critical.json', '--no-default-rules']],
    // The built-in client-concentration (28 >= 20) still fires beside the file's rules.
    ['the contract example rules over the built-in ones', 1, ['--file', 'web-1.html', '--rules', 'rules.json']],
    ['the built-in rule switched off', 0, ['--file', 'web-1.html', '--rules', 'off.json']],
    ['the report from standard input', 2, ['--file', '-', '--rules', 'critical.json', '--no-default-rules']],
    [
      'a silence holding back the page (still exit 2)',
      2,
      ['--file', 'event.html', '--rules', 'critical.json', '--no-default-rules', '--silences', 'silence.json'],
    ],
  ])('%s exits %i', async (_, code, args) => {
    const result = await check(args, undefined, { '-': FILES['web-1.html'] as string });
    expect([result.code, result.err]).toEqual([code, '']);
  });

  it.each([
    [
      'neither --file nor --url',
      ['--rules', 'rules.json'],
      'check: expected exactly one of --file <path|-> or --url <url>',
    ],
    [
      'both --file and --url',
      ['--file', 'a', '--url', 'http://b/'],
      'check: expected exactly one of --file <path|-> or --url <url>',
    ],
    ['a positional argument', ['web-1.html'], 'check: expected no positional arguments, found "web-1.html"'],
    [
      '--url without http(s)',
      ['--url', 'web-1/server-status'],
      'check: --url expects an http:// or https:// URL, found "web-1/server-status"',
    ],
    [
      'an unknown option',
      ['--file', 'web-1.html', '--stat', 's.json'],
      'check: expected one of the options of --help, found unknown option --stat (did you mean --state?)',
    ],
    ['a missing option value', ['--file'], expect.stringMatching(/^check: Option '--file <value>' argument missing/)],
    [
      'a bad --now',
      ['--file', 'web-1.html', '--now', 'noon'],
      'check: --now expects an ISO-8601 time such as 2026-11-22T12:00:00Z, found "noon"',
    ],
    [
      'a bad --repeat-interval',
      ['--file', 'web-1.html', '--repeat-interval', '4 hours'],
      'check: --repeat-interval expects a duration such as 4h, found "4 hours"',
    ],
    [
      'a bad --max-request-workers',
      ['--file', 'web-1.html', '--max-request-workers', '0'],
      'check: --max-request-workers expects a whole number of 1 or more, found "0"',
    ],
    [
      'a bad --timeout',
      ['--url', WEB_2, '--timeout', '0s'],
      'check: --timeout expects seconds or a duration such as 5, 5s or 500ms, found "0s"',
    ],
    [
      'a bad --max-bytes',
      ['--file', 'web-1.html', '--max-bytes=0'],
      'check: --max-bytes expects a positive size such as 4194304 or 4MiB, found "0"',
    ],
  ])('%s is a usage error: exit 3 (UNKNOWN), the reason on stdout too, the usage line', async (_, args, first) => {
    const { code, out, err } = await check(args);
    expect(code).toBe(3);
    const lines = err.split('\n');
    expect(out).toBe(`UNKNOWN - ${lines[0]}\n`);
    expect(lines[0]).toEqual(first);
    expect(lines.slice(1)).toEqual([
      'Usage: httpd-status-alerts check (--file <path|-> | --url <url>) [options]',
      "Run 'httpd-status-alerts check --help' for more.",
      '',
    ]);
  });

  it.each([
    [
      'a missing rules file',
      ['--rules', 'nope.json'],
      /^check: cannot read nope\.json: ENOENT: no such file or directory/,
    ],
    [
      'invalid rules',
      ['--rules', 'invalid.json'],
      /^check: expected valid rules documents, found 12 problem\(s\):; invalid.json: rule #1 field name: [^\n]+$/,
    ],
    [
      'an auth file without user:',
      ['--url', WEB_2, '--auth-file', 'user-only'],
      /^check: expected user:password on the first line of user-only, found no "user:" part$/,
    ],
    [
      'a missing CA file',
      ['--url', WEB_2, '--ca-file', 'nope.pem'],
      /^check: cannot read the CA file nope\.pem: ENOENT/,
    ],
  ])('%s exits 3 with one line, on stdout too', async (_, args, message) => {
    const source = args.includes('--url') ? [] : ['--file', 'web-1.html'];
    const { code, out, err } = await check([...source, ...args]);
    expect(code).toBe(3);
    expect(out).toBe(`UNKNOWN - ${err}`);
    expect(err.split('\n')).toHaveLength(2);
    expect(err.trimEnd()).toMatch(message);
  });

  it.each([
    [
      'the warning idle threshold firing, 5 not below the critical 5',
      ['-w', 'slots_idle=20:', '-c', 'slots_idle=5:'],
      1,
      'WARNING - web-1.html: client-concentration (28 at or above 20), slots-idle-warning (5 below 20) | idle=5;20:;5:;0;256',
    ],
    [
      'a critical threshold at the value: inside the range, nothing fires',
      ['--critical', 'slots_idle=4:'],
      1,
      'WARNING - web-1.html: client-concentration (28 at or above 20) | idle=5;;4:;0;256',
    ],
    [
      'a threshold replacing the built-in rule on its metric',
      ['-c', 'top_client_busy_slots=@25:30'],
      2,
      'CRITICAL - web-1.html: top-client-busy-slots-critical (28 between 25 and 30) | idle=5;;;0;256',
    ],
    [
      'a metric with no row of its own gets one',
      ['--no-default-rules', '-w', 'slots_closing=2'],
      1,
      'WARNING - web-1.html: slots-closing-warning (3 outside 0 to 2) | idle=5;;;0;256',
    ],
  ])('-w/-c: %s', async (_, args, code, start) => {
    const result = await check(['--file', 'web-1.html', ...args]);
    const first = result.out.split('\n')[0] as string;
    expect([result.code, first.slice(0, start.length)]).toEqual([code, start]);
    expect(first.split(' ').slice(-3)).toEqual([
      args.includes('slots_closing=2') ? 'slots_closing=3;2;;0;256' : 'bytes_per_second=U;;;0',
      'accesses=149651c;;;0',
      'bytes=4724463616c;;;0',
    ]);
    if (args.includes('top_client_busy_slots=@25:30')) expect(first).toContain(' top_client=28;;@25:30;0;256 ');
  });

  it.each([
    ['web-1', ' busy=28;;;0;256 '],
    ['web-9', ' busy=28;;19;0;256 '],
  ])("puts a rule's threshold into the perfdata of the targets it applies to only: %s", async (target, row) => {
    const only = JSON.stringify({
      rules: [
        { name: 'busy-web-9', metric: 'slots_busy', op: '>=', threshold: 20, targets: ['web-9'], severity: 'critical' },
      ],
    });
    const result = await check(['--file', 'web-1.html', '--target', target, '--rules', 'only.json'], undefined, {
      'only.json': only,
    });
    expect((result.out.split('\n')[0] as string).split(' | ')[1]).toContain(row);
  });

  it.each([
    [
      ['-w', 'slots_idle'],
      'check: -w: expected <metric>=<range> such as slots_idle=5:, found "slots_idle" without "="',
    ],
    [['-c', 'slots_idle=5:x'], 'check: -c: slots_idle: expected a number after ":", found "x" in "5:x"'],
    [['-w', 'slots_idle=5:', '-w', 'slots_idle=6:'], 'check: expected one -w per metric, found slots_idle twice'],
  ])('%j is UNKNOWN (exit 3) with the reason on the first line', async (args, reason) => {
    const result = await check(['--file', 'web-1.html', ...args]);
    expect([result.code, result.out]).toEqual([3, `UNKNOWN - ${reason}\n`]);
  });

  it('computes free slots against --max-request-workers, not the printed positions', async () => {
    // web-1.html: 256 positions printed, 28 in use. Declared 29 workers: 1 free, 1/29 < 0.05.
    const alert = async (args: string[]) =>
      JSON.parse((await check(['--file', 'web-1.html', '--json', ...args])).out).alerts.find(
        (a: { rule: string }) => a.rule === 'idle-slots-low',
      );
    expect(await alert([])).toBeUndefined();
    expect(await alert(['--max-request-workers', '29'])).toMatchObject({ state: 'firing', value: 1 / 29 });
  });

  it('prints no notification while a silence matches', async () => {
    const args = [
      '--file',
      'event.html',
      '--rules',
      'critical.json',
      '--no-default-rules',
      '--silences',
      'silence.json',
      '--json',
    ];
    const { out } = await check(args);
    expect(JSON.parse(out).notifications).toEqual([]);
    expect(JSON.parse(out).alerts).toEqual([
      {
        rule: 'busy-high',
        state: 'firing',
        value: 48,
        threshold: 20,
        severity: 'critical',
        keepFiringSince: null,
        resolvesAt: null,
      },
    ]);
  });

  it('prints a plugin status line with performance data, then one line per alert with who holds the workers, without --json', async () => {
    const { code, out } = await check(['--url', WEB_2, '--rules', 'critical.json', '--no-default-rules']);
    expect(code).toBe(2);
    expect(out).toBe(
      [
        'CRITICAL - web-2.example:8080: busy-high (48 at or above 20) | idle=27;;;0;150 busy=48;;19;0;150 free_ratio=0.68;;;0;1 closing=4;;;0 graceful_ratio=0;;;0;1 stopping=0;;;0 oldest_request=9s;;;0 top_client=48;;;0;150 ssl_miss_ratio=0;;;0;1 minutes_to_exhaustion=U;;;0 requests_per_second=U;;;0 bytes_per_second=U;;;0 accesses=183467c;;;0 bytes=5368709120c;;;0',
        'FIRING critical busy-high: slots_busy 48 at or above 20; held by clients 127.0.0.1 (48); vhosts www.example.test:18140 (31), static.example.test:18143 (6), api.example.test:18140 (4); requests GET /page20k.html HTTP/1.1 (25), GET /cgi-bin/sleep.cgi?12 HTTP/1.1 (8), GET /img/logo.png HTTP/1.1 (6)',
        '',
      ].join('\n'),
    );
  });

  it.each([
    ['', []],
    [
      ' -v: the rules not evaluated, and why',
      [
        'not evaluated: workers-exhaustion-forecast, 1 free-slot samples over 0 s in the last 10 minutes, fewer than 3 over 2 minutes',
      ],
    ],
  ])('an OK check prints its figures on the first line, nothing more%s', async (verbose, more) => {
    const { code, out } = await check(['--file', 'idle.html', '--target', 'web-1', ...(verbose === '' ? [] : ['-v'])]);
    const lines = out.trimEnd().split('\n');
    expect([code, lines[0]?.split(' | ')[0], lines.slice(1).filter((l) => l.includes('forecast'))]).toEqual([
      0,
      'OK - web-1: no alert firing; 2/256 slots busy, 3 idle, 0 closing',
      more,
    ]);
    expect(lines.length).toBe(verbose === '' ? 1 : 4);
  });

  it('writes no illegal macro character of Nagios before the perfdata or in the long output', async () => {
    const hostile = (FILES['web-1.html'] as string).replaceAll(
      'GET /page20k.html',
      () => "GET /a?x=1&amp;y=&lt;b&gt;&quot;$`~'|",
    );
    const { out } = await check(['--file', 'hostile.html', '--target', 'web-1', '-w', 'slots_busy=10'], undefined, {
      'hostile.html': hostile,
    });
    const [first, ...long] = out.trimEnd().split('\n');
    const before = (first as string).split(' | ')[0] as string;
    for (const line of [before, ...long]) expect(line).not.toMatch(/[`~$&|'"<>]/);
    expect(long[0]).toContain('requests GET /a?x=1+y=(b)-/ HTTP/1.1 (6)');
  });

  it('says when a kept-firing alert cleared and when it resolves, and resolves it then', async () => {
    const state = join(dir, 'state.json');
    const at = (file: string, now: string) =>
      check(['--file', file, '--target', 'web-1', '--rules', 'kept.json', '--state', state, '--now', now]);

    // Act: fires at 12:00, condition gone at 12:01 (kept until 12:06), resolved at 12:06.
    const runs = [
      await at('web-1.html', '2026-11-22T12:00:00Z'),
      await at('idle.html', '2026-11-22T12:01:00Z'),
      await at('idle.html', '2026-11-22T12:06:00Z'),
    ];

    // Assess
    expect(runs.map((r) => r.code)).toEqual([1, 1, 0]);
    expect(runs[1]?.out.split('\n')[1]).toBe(
      'FIRING warning busy-high: now 2, condition cleared at 2026-11-22T12:01:00Z; kept firing for 5m, resolves at 2026-11-22T12:06:00Z unless it returns',
    );
    expect(runs[2]?.out).toContain('would publish: resolved warning busy-high\n');
  });

  it('ten parallel checks of ten targets sharing one --state file each find their state on the next run', async () => {
    const state = join(dir, 'shared.json');
    const targets = Array.from({ length: 10 }, (_, i) => `web-${i + 1}`);
    const round = (now: string) =>
      Promise.all(
        targets.map((t) => check(['--file', 'web-1.html', '--target', t, '--state', state, '--now', now, '--json'])),
      );

    // Act: two rounds a minute apart, every check of a round at once
    const first = await round('2026-11-22T12:00:00Z');
    const second = await round('2026-11-22T12:01:00Z');

    // Assess: client-concentration (for 1m) pending on every target, then firing on every target
    const states = (runs: typeof first) =>
      runs.map((r) => [
        r.code,
        JSON.parse(r.out)
          .alerts.map((a: { state: string }) => a.state)
          .join(),
      ]);
    expect(states(first)).toEqual(targets.map(() => [0, 'pending']));
    expect(states(second)).toEqual(targets.map(() => [1, 'firing']));
    const saved = JSON.parse(readFileSync(state, 'utf8')).targets;
    expect(Object.keys(saved).sort()).toEqual([...targets].sort());
  });

  it('exits 3 with one line while the report is missing, 2 once target-down fires', async () => {
    const state = join(dir, 'state.json');
    const at = (now: string) => check(['--file', 'login.html', '--state', state, '--now', now, '--json']);

    // Act
    const first = await at('2026-11-22T12:00:00Z');
    const second = await at('2026-11-22T12:01:00Z');

    // Assess
    expect(first.code).toBe(3);
    expect(first.err).toBe(
      'check: login.html: not-a-report: expected an Apache server-status report (the HTML page, the ?auto page or a text dump of the HTML page), found "<html>Please log in</html>" (26 characters)\n',
    );
    expect(JSON.parse(first.out).notifications).toEqual([]);
    expect(second.code).toBe(2);
    expect(JSON.parse(second.out).notifications.map((n: { subject: string }) => n.subject)).toEqual([
      '[FIRING critical] login.html: target-down (not a report)',
    ]);
    // The page's own failure block, as the Lambda publishes it.
    expect(JSON.parse(second.out).notifications[0].failure).toEqual({
      reason: 'not-a-report',
      likelySaturated: false,
      lastSeen: null,
    });
  });

  it('shows the forecast, its samples carried in the --state file', async () => {
    // Prepare: free slots 100, 80, 60 a minute apart (rules-tests' ramp reports)
    const state = join(dir, 'state.json');
    const ramp = (free: number) =>
      readFileSync(new URL(`../../rules-tests/reports/ramp-free-${free}.auto.txt`, import.meta.url), 'utf8');
    const files = { 'r100.txt': ramp(100), 'r80.txt': ramp(80), 'r60.txt': ramp(60) };
    const at = (file: string, now: string) =>
      check(['--file', file, '--target', 'web-1', '--state', state, '--now', now], now, files);

    // Act
    const outs = [
      await at('r100.txt', '2026-11-22T12:00:00Z'),
      await at('r80.txt', '2026-11-22T12:01:00Z'),
      await at('r60.txt', '2026-11-22T12:02:00Z'),
    ];

    // Assess
    expect(outs[1]?.out).not.toContain('Forecast:');
    expect(outs.map((o) => o?.out.split('\n')[0]?.match(/minutes_to_exhaustion=[^ ]*/)?.[0])).toEqual([
      'minutes_to_exhaustion=U;10:;;0',
      'minutes_to_exhaustion=U;10:;;0',
      'minutes_to_exhaustion=3;10:;;0',
    ]);
    expect(outs[2]?.out).toContain(
      'Forecast: at the current trend no worker slot is free in 3 minutes (2026-11-22T12:05:00Z), from 3 samples\n',
    );
    const saved = JSON.parse(readFileSync(state, 'utf8'));
    expect(saved.targets['web-1'].samples).toEqual([
      { at: '2026-11-22T12:00:00.000Z', free: 100 },
      { at: '2026-11-22T12:01:00.000Z', free: 80 },
      { at: '2026-11-22T12:02:00.000Z', free: 60 },
    ]);
  });

  it('names the fetch failure in target-down (refused), as the Lambda does', async () => {
    const state = join(dir, 'state.json');
    const url = 'http://web-3.example/server-status';
    const at = (now: string) => check(['--url', url, '--state', state, '--now', now]);

    const first = await at('2026-11-22T12:00:00Z');
    const second = await at('2026-11-22T12:01:00Z');

    expect([first.code, second.code]).toEqual([3, 2]);
    expect(second.err).toBe(
      'check: web-3.example: refused: connection refused by web-3.example - Apache may be down or saturated\n',
    );
    // The plugin line shows the detail as a page does (host names defanged), the terminal as it is.
    const down = 'refused: connection refused by web-3[.]example - Apache may be down or saturated';
    const perf =
      'idle=U;;;0 busy=U;;;0 free_ratio=U;;0.05:;0;1 closing=U;19;;0 graceful_ratio=U;0.25;;0;1 stopping=U;0;;0 oldest_request=U;300;;0 top_client=U;19;;0 ssl_miss_ratio=U;;;0;1 minutes_to_exhaustion=U;10:;;0 requests_per_second=U;;;0 bytes_per_second=U;;;0 accesses=U;;;0 bytes=U;;;0';
    expect(first.out.split('\n')[0]).toBe(`UNKNOWN - web-3.example: report not read (${down}) | ${perf}`);
    expect(second.out.split('\n')[0]).toBe(`CRITICAL - web-3.example: target-down (${down}) | ${perf}`);
    expect(second.out.split('\n').slice(1)).toEqual([
      `FIRING critical target-down: ${down}`,
      'would publish: firing critical target-down',
      '',
    ]);
  });

  it('shows a hostile body quoted in the failure as a page does on the plugin line: no markup, no second perfdata', async () => {
    // Prepare: a server answering Slack and Markdown markup, a bidi override and a "|" instead of a report.
    const url = 'http://web-4.example/server-status';
    const body = '<!channel> [x](https://evil.example) \u202Eevil | x=1';
    const { io, out, err } = fakeIo({ files: FILES, pages: { [url]: okPage(url, body) }, now: '2026-11-22T12:00:00Z' });

    // Act
    const code = await main(['check', '--url', url], io);

    // Assess
    const found = '"<!channel> [x](https://evil.example) \\u202eevil | x=1" (48 characters)';
    expect([code, out().split('\n')[0], err()]).toEqual([
      2,
      'CRITICAL - web-4.example: target-down (not a report: HTTP 200 from hxxp://web-4[.]example/server-status is not a server-status report: expected an Apache server-status report %28the HTML page, the ?auto page or a text dump of the HTML page%29, found %22%3C%21channel%3E %5Bx%5D%28hxxps://evil[.]example%29 %5Cu202eevil %7C x=1%22 %2848 characters%29) | idle=U;;;0 busy=U;;;0 free_ratio=U;;0.05:;0;1 closing=U;19;;0 graceful_ratio=U;0.25;;0;1 stopping=U;0;;0 oldest_request=U;300;;0 top_client=U;19;;0 ssl_miss_ratio=U;;;0;1 minutes_to_exhaustion=U;10:;;0 requests_per_second=U;;;0 bytes_per_second=U;;;0 accesses=U;;;0 bytes=U;;;0',
      `check: web-4.example: not-a-report: HTTP 200 from http://web-4.example/server-status is not a server-status report: expected an Apache server-status report (the HTML page, the ?auto page or a text dump of the HTML page), found ${found}\n`,
    ]);
  });

  it.each([
    // event-busy, 5 s of server uptime apart: Total kBytes exact on ?auto, Total Traffic 2.7 then 5.0 GB on HTML.
    [
      '?auto',
      'apache-2.4.71/event-busy/report.auto.txt',
      'apache-2.4.71/event-busy/report.late.auto.txt',
      'requests_per_second=16991.6;;;0 bytes_per_second=518971187.2B;;;0 accesses=183441c;;;0 bytes=5408770048c;;;0',
    ],
    [
      'HTML',
      'apache-2.4.71/event-busy/report.html',
      'apache-2.4.71/event-busy/report.late.html',
      'requests_per_second=16746;;;0 bytes_per_second=493921280B;;;0 accesses=183467c;;;0 bytes=5368709120c;;;0',
    ],
  ])(
    'with --state, the %s page gives requests and bytes per second from the counters of the run before',
    async (_, early, late, tail) => {
      // Prepare
      const state = join(dir, 'state.json');
      const files = { 'early.txt': fixture(early), 'late.txt': fixture(late) };
      const at = (file: string, now: string) =>
        check(['--file', file, '--target', 'web-2', '--state', state, '--now', now], now, files);
      // Act
      const first = await at('early.txt', '2026-11-22T12:00:00Z');
      const second = await at('late.txt', '2026-11-22T12:00:05Z');
      // Assess
      expect(first.out.split('\n')[0]).toContain(' requests_per_second=U;;;0 bytes_per_second=U;;;0 accesses=');
      const line = second.out.split('\n')[0] as string;
      expect(line.slice(-tail.length - 1)).toBe(` ${tail}`);
    },
  );

  it('re-sends a still-firing alert after --repeat-interval', async () => {
    const state = join(dir, 'state.json');
    const at = async (now: string) => {
      const args = [
        '--file',
        'web-1.html',
        '--rules',
        'critical.json',
        '--no-default-rules',
        '--state',
        state,
        '--now',
        now,
      ];
      return JSON.parse((await check([...args, '--json', '--repeat-interval', '30m'])).out).notifications.length;
    };
    expect([
      await at('2026-11-22T12:00:00Z'),
      await at('2026-11-22T12:29:00Z'),
      await at('2026-11-22T12:30:00Z'),
    ]).toEqual([1, 0, 1]);
  });

  it.each([
    [
      'a saturated server: the condition fires at once at its severity',
      ['--file', 'web-1.html', '--target', 'web-1', '--max-request-workers', '29'],
      2,
      'CRITICAL - web-1: idle-slots-low (free 1/29 slots), client-concentration (28 at or above 20) | idle=5;;;0;256 busy=28;;;0;256 free_ratio=0.0345;;0.05:;0;1 closing=3;19;;0 graceful_ratio=0;0.25;;0;1 stopping=U;0;;0 oldest_request=4s;300;;0 top_client=28;19;;0;256 ssl_miss_ratio=0;;;0;1 minutes_to_exhaustion=U;10:;;0 requests_per_second=U;;;0 bytes_per_second=U;;;0 accesses=149651c;;;0 bytes=4724463616c;;;0',
    ],
    [
      'a warning',
      ['--file', 'web-1.html', '--target', 'web-1'],
      1,
      'WARNING - web-1: client-concentration (28 at or above 20) | idle=5;;;0;256 busy=28;;;0;256 free_ratio=0.8906;;0.05:;0;1 closing=3;19;;0 graceful_ratio=0;0.25;;0;1 stopping=U;0;;0 oldest_request=4s;300;;0 top_client=28;19;;0;256 ssl_miss_ratio=0;;;0;1 minutes_to_exhaustion=U;10:;;0 requests_per_second=U;;;0 bytes_per_second=U;;;0 accesses=149651c;;;0 bytes=4724463616c;;;0',
    ],
    [
      'an idle server',
      ['--file', 'idle.html', '--target', 'web-1'],
      0,
      'OK - web-1: no alert firing; 2/256 slots busy, 3 idle, 0 closing | idle=3;;;0;256 busy=2;;;0;256 free_ratio=0.9922;;0.05:;0;1 closing=0;19;;0 graceful_ratio=0;0.25;;0;1 stopping=U;0;;0 oldest_request=0s;300;;0 top_client=2;19;;0;256 ssl_miss_ratio=U;;;0;1 minutes_to_exhaustion=U;10:;;0 requests_per_second=U;;;0 bytes_per_second=U;;;0 accesses=14c;;;0 bytes=79872c;;;0',
    ],
    [
      'a refused fetch: target-down at once, the cause on the first line',
      ['--url', 'http://web-3.example/server-status'],
      2,
      'CRITICAL - web-3.example: target-down (refused: connection refused by web-3[.]example - Apache may be down or saturated) | idle=U;;;0 busy=U;;;0 free_ratio=U;;0.05:;0;1 closing=U;19;;0 graceful_ratio=U;0.25;;0;1 stopping=U;0;;0 oldest_request=U;300;;0 top_client=U;19;;0 ssl_miss_ratio=U;;;0;1 minutes_to_exhaustion=U;10:;;0 requests_per_second=U;;;0 bytes_per_second=U;;;0 accesses=U;;;0 bytes=U;;;0',
    ],
  ])('without --state is a stateless plugin: %s', async (_, args, code, first) => {
    const result = await check(args);
    expect([result.code, result.out.split('\n')[0]]).toEqual([code, first]);
  });

  it('takes --timeout in bare seconds, as check_* plugins do', async () => {
    const { io } = fakeIo({ files: FILES, pages: { [WEB_2]: okPage(WEB_2, FILES['event.html'] as string) } });
    const fetched: number[] = [];
    const fetch = io.fetch;
    io.fetch = (target) => {
      fetched.push(target.timeoutMs ?? 0);
      return fetch(target);
    };
    for (const timeout of ['5', '2.5', '500ms']) await main(['check', '--url', WEB_2, '--timeout', timeout], io);
    expect(fetched).toEqual([5000, 2500, 500]);
  });

  it('prints no terminal control a hostile report or URL carries, --json aside', async () => {
    const evil = (FILES['web-1.html'] as string).replace(
      '<dt>Server Version: ',
      '<dt>Server Version: \u001b]0;owned\u0007\u001b[2J\u001b]8;;https://evil.example\u001b\\x\u202e',
    );
    const url = 'http://ops:p#ss@web-9\u001b[31m/server-status';
    const parsed = await main(['parse', 'evil.html'], fakeIo({ files: { 'evil.html': evil } }).io);
    const runs = [
      fakeIo({ files: { 'evil.html': evil } }),
      fakeIo({ files: { 'evil.html': evil } }),
      fakeIo({ files: { 'evil.html': evil } }),
    ];
    await main(['parse', 'evil.html'], runs[0]?.io as never);
    await main(['check', '--file', 'evil.html', '--target', 'x\u001b[2Jy'], runs[1]?.io as never);
    await main(['check', '--url', url], runs[2]?.io as never);
    expect(parsed).toBe(0);
    for (const run of runs) {
      const all = `${run.out()}${run.err()}`;
      expect(cleanTerminalText(all)).toBe(all);
      expect(all).not.toContain('p#ss');
    }
    // The hyperlink's text stays, as a terminal shows it; the link, title and clear-screen go.
    expect(runs[0]?.out()).toContain('version       xApache/2.4.71 (Debian)');
    expect(runs[1]?.out().split('\n')[0]).toMatch(/^WARNING - xy: /);
  });
});

describe('check --url --auth-file of a server that echoes the request', () => {
  const credentials = { username: 'ops', password: 'pa55:w@rd/correct horse battery' };
  let echo: EchoServer;

  beforeAll(async () => {
    echo = await startEchoServer();
  });
  afterAll(async () => {
    await echo.stop();
  });

  /** The command with the real fetcher, the credentials from a file. */
  async function checkEcho(args: string[]) {
    const { io, out, err } = fakeIo({ files: { auth: `${credentials.username}:${credentials.password}\n` } });
    io.fetch = (target) => fetchStatusPage(target);
    const code = await main(['check', '--auth-file', 'auth', ...args], io);
    return { code, out: out(), err: err() };
  }

  it.each<[string, string, string]>([
    ['/echo', 'not-a-report', 'HTTP 200 from http://HOST/echo is not a server-status report'],
    ['/echo-cut', 'not-a-report', 'HTTP 200 from http://HOST/echo-cut is not a server-status report'],
    ['/to-echo', 'not-a-report', 'HTTP 200 from http://HOST/echo?auth=*** is not a server-status report'],
    ['/echo-500', 'http-status', 'HTTP 500 Internal Server Error from HOST'],
    [
      '/echo-401',
      'http-status',
      "HTTP 401 Unauthorized from HOST - the credentials sent were refused - check the status page's user and password",
    ],
    ['/away', 'redirect', 'HTTP 302 from HOST redirects to http://localhost:PORT/echo?auth=*** - only same-host'],
  ])(
    '%s: no form of the credentials in the plugin line, the human output, --json or the --state file',
    async (path, reason, detail) => {
      // Prepare
      expect(ECHO_ROUTES).toContain(path);
      const url = `${echo.origin}${path}`;
      const host = new URL(echo.origin).host;
      const state = join(dir, 'state.json');
      // Act: stateless, human and --json; then two runs on a state file (target-down fires on the second)
      const runs = [
        await checkEcho(['--url', url]),
        await checkEcho(['--url', url, '--json']),
        await checkEcho(['--url', url, '--state', state, '--now', '2026-11-22T12:00:00Z']),
        await checkEcho(['--url', url, '--state', state, '--now', '2026-11-22T12:01:00Z', '--json']),
      ];
      // Assess: each output says why, and none holds the credentials
      const [plugin, json, first, second] = runs as [
        (typeof runs)[0],
        (typeof runs)[0],
        (typeof runs)[0],
        (typeof runs)[0],
      ];
      const shown = detail.replaceAll('HOST', host).replace('PORT', host.split(':')[1] as string);
      expect(plugin.out.split('\n')[0]).toMatch(new RegExp(`^CRITICAL - ${host}: target-down \\(`));
      // The plugin line shows the detail as a page does (defanged, markup percent-encoded).
      expect(plugin.out.split('\n')[0]).toContain(
        consoleText(cleanReportText(shown, { use: TEXT_USES.page, max: 1000 })),
      );
      expect(plugin.err).toContain(`check: ${host}: ${reason}: ${shown}`);
      expect(first.err).toContain(`check: ${host}: ${reason}: ${shown}`);
      for (const out of [json.out, second.out]) {
        const notification = JSON.parse(out).notifications[0];
        expect(notification.subject).toMatch(/^\[FIRING critical\] 127\.0\.0\.1:\d+: target-down \(/);
        expect(notification.message).toContain(`Failure: ${reason}: `);
      }
      if (reason === 'not-a-report') expect(plugin.out).toContain('authorization: Basic %2A%2A%2A');
      const everything = [...runs.flatMap((r) => [r.out, r.err]), readFileSync(state, 'utf8')].join('\n');
      expect(leaksIn(everything, credentials)).toEqual([]);
    },
  );
});
