#!/usr/bin/env node
/**
 * Entry point of the `httpd-status-alerts` command: real files, HTTP, clock and terminal.
 */
import { readFile } from 'node:fs/promises';
import { fetchStatusPage } from './adapters/httpStatusSource.ts';
import { main } from './cli/main.ts';

async function fetchText(url: string): Promise<string> {
  const result = await fetchStatusPage({ name: new URL(url).host, url });
  if (!result.ok) throw new Error(`${result.reason}: ${result.detail}`);
  return result.body;
}

const colour = process.stdout.isTTY === true && !process.env.NO_COLOR && process.env.TERM !== 'dumb';

const code = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readText: (path) => readFile(path, 'utf8'),
  fetchText,
  now: () => new Date(),
  colour,
});
process.exitCode = code;
