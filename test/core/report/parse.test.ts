import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NotAStatusReportError } from '../../../src/core/errors.ts';
import { detectFormat, parseReport } from '../../../src/core/report/parse.ts';

const FIXTURES = new URL('../../fixtures/', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, FIXTURES), 'utf8');

describe('parseReport', () => {
  it.each([
    ['apache-2.4.71/event-busy/report.html', 'html'],
    ['apache-2.4.71/prefork-busy/report.notable.html', 'html'],
    ['public/html-2.2.9-worker-exton-ssl-browsersaved.html', 'html'],
    ['apache-2.4.71/event-busy/report.auto.txt', 'auto'],
    ['public/auto-2.2.15-prefork-extoff.txt', 'auto'],
    ['apache-2.4.71/event-busy/report.lynx80.txt', 'text'],
    ['apache-2.4.71/noextended/report.lynx.txt', 'text'],
    ['public/text-2.2.15-prefork-exton-links-style-dump.txt', 'text'],
    ['public/text-2.4.29-prefork-exton-browser-copy-tabs.txt', 'text'],
  ])('recognises %s as %s', (path, format) => {
    const text = read(path);
    expect(detectFormat(text)).toBe(format);
    expect(parseReport(text).format).toBe(format);
  });

  it.each([
    ['apache-2.4.71/prefork-busy/report.auto.txt', 'auto'],
    ['apache-2.4.71/prefork-busy/report.html', 'html'],
    ['apache-2.4.71/prefork-busy/report.lynx.txt', 'text'],
  ] as const)('reads %s as %s when the caller forces it', (path, format) => {
    const report = parseReport(read(path), { format });
    expect(report.format).toBe(format);
    expect(report.scoreboard).toHaveLength(256);
  });

  it.each([
    ['apache-2.4.71/event-busy/report.auto.txt', 'html'],
    ['apache-2.4.71/event-busy/report.auto.txt', 'text'],
    ['apache-2.4.71/event-busy/report.html', 'auto'],
    ['apache-2.4.71/event-busy/report.lynx80.txt', 'auto'],
  ] as const)('rejects %s forced to %s', (path, format) => {
    expect(() => parseReport(read(path), { format })).toThrow(NotAStatusReportError);
  });

  it.each([
    ['CRLF line endings', read('public/auto-2.4.25-event-exton.txt').replace(/\n/g, '\r\n')],
    ['a leading blank line', `\n${read('public/auto-2.2.15-prefork-extoff.txt')}`],
  ])('recognises an ?auto page with %s', (_name, text) => {
    expect(detectFormat(text)).toBe('auto');
  });

  it.each([
    [
      'the 404 page of a server without mod_status',
      read('public/http404-2.4.62-status-not-configured.html'),
      '"<!DOCTYPE HTML PUBLIC',
    ],
    ['an empty body', '', 'an empty body'],
    ['JSON', '{"status":"ok","workers":12}', '"{\\"status\\":\\"ok\\",\\"workers\\":12}" (28 characters)'],
    [
      'a login page',
      '<html><head><title>Sign in</title></head><body><form><input name="user"></form></body></html>',
      '"<html><head><title>Sign in</title></head><body><form><input "... (93 characters)',
    ],
    ['binary bytes', '\x00\x01\x02\xff', '"\\x00\\x01\\x02\\xff" (4 characters)'],
    [
      'an error page with an empty <pre>',
      '<html><body><h1>Oops</h1><pre>\n</pre></body></html>',
      '"<html><body><h1>Oops</h1><pre>\\n</pre></body></html>" (51 characters)',
    ],
    ['200,000 blank lines', '\n'.repeat(200_000), `"${'\\n'.repeat(60)}"... (200000 characters)`],
  ])('rejects %s, naming what it expected and what it found', (_name, text, found) => {
    let error: unknown;
    try {
      parseReport(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NotAStatusReportError);
    const message = (error as Error).message;
    expect(message).toMatch(/^expected an Apache server-status report \(the HTML page, the \?auto page or a text dump/);
    expect(message).toContain(`found ${found}`);
  });
});
