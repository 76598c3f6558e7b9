import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { COMMANDS, main } from '../../src/cli/main.ts';
import { fakeIo, okPage } from './fakeIo.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const fixture = (path: string) => new URL(path, FIXTURES).pathname;
const BUSY_HTML = 'apache-2.4.71/prefork-busy/report.html';
const NAMES = COMMANDS.map((c) => c.name).join(', ');

async function run(args: string[], options: Parameters<typeof fakeIo>[0] = {}) {
  const { io, out, err } = fakeIo(options);
  const code = await main(args, io);
  return { code, out: out(), err: err() };
}

describe('cli parse', () => {
  it.each([
    [BUSY_HTML, 'html'],
    ['apache-2.4.71/prefork-busy/report.auto.txt', 'auto'],
    ['apache-2.4.71/prefork-busy/report.lynx80.txt', 'text'],
  ])('prints the contract JSON of %s', async (path, format) => {
    // Prepare
    const expected = JSON.parse(await readFile(fixture(`${path}.expected.json`), 'utf8'));
    // Act
    const { code, out, err } = await run(['parse', fixture(path), '--json']);
    // Assess
    expect(err).toBe('');
    expect(code).toBe(0);
    const printed = JSON.parse(out);
    expect(printed.format).toBe(format);
    expect(printed.scoreboard).toBe(expected.scoreboard);
    expect(printed.counts).toEqual(expected.counts);
    expect(printed.server).toEqual(expected.server);
    expect(printed.slots).toEqual(expected.slots);
    expect(printed.sslCache).toEqual(expected.sslCache);
  });

  it('summarises a report for a person, without colour when not a terminal', async () => {
    const { code, out } = await run(['parse', fixture(BUSY_HTML)]);
    expect(code).toBe(0);
    expect(out).not.toContain('\x1b[');
    expect(out).toContain('Scoreboard (256 positions)');
    expect(out).toContain('      0  WKW_W_CKCKKWWRKKWKWRWCK_WWKRK__KK...............................');
    expect(out).toContain('\n  C       3    1.2%  closing connection\n');
    expect(out).toContain('retrieves 8 hit / 0 miss (miss ratio 0.0%)');
    expect(out).toContain('slot 17-0: column M is "W" but scoreboard position 17 is "K"');
  });

  it('colours the scoreboard on a terminal', async () => {
    const { out } = await run(['parse', fixture(BUSY_HTML)], { colour: true });
    expect(out).toContain('\x1b[31mC\x1b[0m');
  });

  it('reads standard input for -', async () => {
    const text = await readFile(fixture('apache-2.4.71/prefork-busy/report.auto.txt'), 'utf8');
    const { code, out } = await run(['parse', '-', '--json'], { files: { '-': text } });
    expect(code).toBe(0);
    expect(JSON.parse(out).format).toBe('auto');
  });

  it.each([
    [
      'a page that is not a report',
      ['parse', fixture('public/http404-2.4.62-status-not-configured.html')],
      1,
      /^parse: .*http404-2\.4\.62-status-not-configured\.html: not-a-report: expected an Apache server-status report.*found "<!DOCTYPE/,
    ],
    ['a missing file', ['parse', '/nonexistent/file.html'], 1, /^parse: \/nonexistent\/file\.html: read: ENOENT/],
    [
      'a file over --max-bytes',
      ['parse', fixture(BUSY_HTML), '--max-bytes', '1KiB'],
      1,
      /^parse: .*report\.html: too-large: .*report\.html is larger than the 1024-byte cap \(--max-bytes\)/,
    ],
    [
      'a refused URL',
      ['parse', 'http://127.0.0.1:9/server-status'],
      1,
      /^parse: http:\/\/127\.0\.0\.1:9\/server-status: refused: connection refused by 127\.0\.0\.1:9/,
    ],
  ])('%s exits %i with one clear line', async (_, args, exitCode, message) => {
    const { code, out, err } = await run(args as string[]);
    expect([code, out]).toEqual([exitCode, '']);
    expect(err.split('\n')).toHaveLength(2);
    expect(err).toMatch(message);
  });

  it.each([
    [['parse'], 'parse: expected exactly one file, URL or -, found 0'],
    [['parse', 'a', 'b'], 'parse: expected exactly one file, URL or -, found 2'],
    [['parse', 'a', '--format', 'xml'], 'parse: --format expects one of html, auto, text, found "xml"'],
    [
      ['parse', 'a', '--max-bytes', '4MB'],
      'parse: --max-bytes expects a positive size such as 4194304 or 4MiB, found "4MB"',
    ],
    [
      ['parse', 'http://a/', '--timeout', '5x'],
      'parse: --timeout expects seconds or a duration such as 5, 5s or 500ms, found "5x"',
    ],
    [
      ['parse', 'a', '--jsn'],
      'parse: expected one of the options of --help, found unknown option --jsn (did you mean --json?)',
    ],
  ])('%j is a usage error: exit 2 with the usage line', async (args, first) => {
    const { code, out, err } = await run(args);
    expect([code, out]).toEqual([2, '']);
    const lines = err.split('\n');
    expect(lines[0]).toEqual(first);
    expect(lines.slice(1)).toEqual([
      'Usage: httpd-status-alerts parse <file-or-url|-> [--json] [--format html|auto|text] [options]',
      "Run 'httpd-status-alerts parse --help' for more.",
      '',
    ]);
  });

  it.each([
    ['parse', 'https://ops:s3cret@web-1.example/server-status', 'https://ops:***@web-1.example/server-status', 2, ''],
    // check: exit 3 and the plugin's UNKNOWN line, as for every usage error
    [
      'check',
      'https://ops%3As3cret@web-1.example/server-status',
      'https://***@web-1.example/server-status',
      3,
      'UNKNOWN - ',
    ],
  ])(
    '%s refuses credentials in the URL %s, pointing to --auth-file, fetching nothing',
    async (command, url, shown, exit, plugin) => {
      const { io, out, err, fetched } = fakeIo();
      const code = await main(command === 'parse' ? ['parse', url] : ['check', '--url', url], io);
      const line = `${command}: expected a URL without credentials (put "user:password" in a file named by --auth-file), found ${shown}`;
      expect({ code, fetched, out: out(), err: err().split('\n')[0] }).toEqual({
        code: exit,
        fetched: [],
        out: plugin === '' ? '' : `${plugin}${line}\n`,
        err: line,
      });
    },
  );

  it('fetches with the settings of its options', async () => {
    const url = 'http://web-1/server-status?auto';
    const body = await readFile(fixture('apache-2.4.71/prefork-busy/report.auto.txt'), 'utf8');
    const { io, fetched } = fakeIo({
      pages: { [url]: okPage(url, body) },
      files: { 'ca.pem': 'PEM', auth: 'ops:pw\n' },
    });
    const args = [
      'parse',
      url,
      '--ca-file',
      'ca.pem',
      '--auth-file',
      'auth',
      '--timeout',
      '1500ms',
      '--max-bytes',
      '64KiB',
    ];
    expect(await main(args, io)).toBe(0);
    expect(fetched).toEqual([
      {
        name: 'web-1',
        url,
        timeoutMs: 1500,
        maxBytes: 65536,
        ca: 'PEM',
        auth: { username: 'ops', password: 'pw' },
        // The CLI checks the server it runs on (localhost) as Nagios does: loopback allowed.
        allowLoopback: true,
      },
    ]);
  });
});

describe('cli help and version', () => {
  it.each([[['--help']], [['-h']], [['help']]])('%j prints the command list to stdout, exit 0', async (args) => {
    const { code, out, err } = await run(args);
    expect([code, err]).toEqual([0, '']);
    expect(out.split('\n').slice(0, 1)).toEqual(['Usage: httpd-status-alerts <command> [options]']);
    for (const command of COMMANDS) expect(out).toContain(`\n  ${command.name}  `);
  });

  it.each(
    COMMANDS.flatMap((c) => [
      [c.name, '--help'],
      [c.name, '-h'],
    ]),
  )('%s %s prints its usage and options to stdout, exit 0', async (name, flag) => {
    const command = await COMMANDS.find((c) => c.name === name)?.load();
    // --help wins over anything else given, even a bad option.
    const { code, out, err } = await run([name, '--bogus', flag]);
    expect([code, err]).toEqual([0, '']);
    expect(out).toBe(`Usage: httpd-status-alerts ${command?.usage}\n\n${command?.help}\n`);
  });

  it('help <command> is <command> --help', async () => {
    expect((await run(['help', 'check'])).out).toBe((await run(['check', '--help'])).out);
  });

  it.each([[['--version']], [['-V']]])('%j prints the version', async (args) => {
    expect(await run(args)).toEqual({ code: 0, out: '9.8.7\n', err: '' });
  });

  it.each([
    [[], `httpd-status-alerts: expected a command (${NAMES}), found none`],
    [['frobnicate'], `httpd-status-alerts: expected a command (${NAMES}), found "frobnicate"`],
    [['chek'], `httpd-status-alerts: expected a command (${NAMES}), found "chek" (did you mean check?)`],
  ])('%j exits 3 (a plugin UNKNOWN) with one line on standard output and the usage line', async (args, first) => {
    const { code, out, err } = await run(args);
    expect([code, out]).toEqual([3, `UNKNOWN - ${first}\n`]);
    expect(err).toBe(`${first}\nUsage: httpd-status-alerts <command> [options]\n`);
  });
});
