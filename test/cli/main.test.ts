import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../src/cli/main.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const fixture = (path: string) => new URL(path, FIXTURES).pathname;

function capture(overrides: Partial<CliIo> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    readText: (p) => readFile(p, 'utf8'),
    fetchText: () => Promise.reject(new Error('no network in this test')),
    now: () => new Date('2026-11-22T12:00:00Z'),
    colour: false,
    ...overrides,
  };
  return { io, out: () => out.join(''), err: () => err.join('') };
}

describe('cli parse', () => {
  it.each([
    ['apache-2.4.71/prefork-busy/report.html', 'html'],
    ['apache-2.4.71/prefork-busy/report.auto.txt', 'auto'],
    ['apache-2.4.71/prefork-busy/report.lynx80.txt', 'text'],
  ])('prints the contract JSON of %s', async (path, format) => {
    // Prepare
    const { io, out, err } = capture();
    const expected = JSON.parse(await readFile(fixture(`${path}.expected.json`), 'utf8'));
    // Act
    const code = await main(['parse', fixture(path), '--json'], io);
    // Assess
    expect(err()).toBe('');
    expect(code).toBe(0);
    const printed = JSON.parse(out());
    expect(printed.format).toBe(format);
    expect(printed.scoreboard).toBe(expected.scoreboard);
    expect(printed.counts).toEqual(expected.counts);
    expect(printed.server).toEqual(expected.server);
    expect(printed.slots).toEqual(expected.slots);
    expect(printed.sslCache).toEqual(expected.sslCache);
  });

  it('summarises a report for a person, without colour when not a terminal', async () => {
    const { io, out } = capture();
    const code = await main(['parse', fixture('apache-2.4.71/prefork-busy/report.html')], io);
    const text = out();
    expect(code).toBe(0);
    expect(text).not.toContain('\x1b[');
    expect(text).toContain('Scoreboard (256 positions)');
    expect(text).toContain('      0  WKW_W_CKCKKWWRKKWKWRWCK_WWKRK__KK...............................');
    expect(text).toContain('\n  C       3    1.2%  closing connection\n');
    expect(text).toContain('retrieves 8 hit / 0 miss (miss ratio 0.0%)');
    expect(text).toContain('slot 17-0: column M is "W" but scoreboard position 17 is "K"');
  });

  it('colours the scoreboard on a terminal', async () => {
    const { io, out } = capture({ colour: true });
    await main(['parse', fixture('apache-2.4.71/prefork-busy/report.html')], io);
    expect(out()).toContain('\x1b[31mC\x1b[0m');
  });

  it.each([
    [
      ['parse', 'test/fixtures/public/http404-2.4.62-status-not-configured.html'],
      1,
      /expected an Apache server-status report.*found "<!DOCTYPE/,
    ],
    [['parse', '/nonexistent/file.html'], 1, /cannot read: .*ENOENT/],
    [['parse'], 2, /expected exactly one file or URL, found 0/],
    [['parse', 'a', '--format', 'xml'], 2, /--format expects one of html, auto, text, found "xml"/],
    [['frobnicate'], 2, /expected a command \(parse, check, silence, targets, rules\), found "frobnicate"/],
  ])('%j exits %i with one clear line', async (args, exitCode, message) => {
    const { io, out, err } = capture();
    const code = await main(args as string[], io);
    expect(code).toBe(exitCode);
    expect(out()).toBe('');
    expect(err().split('\n')[0]).toMatch(message);
  });
});
