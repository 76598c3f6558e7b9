#!/usr/bin/env node
/**
 * Entry point of the `httpd-status-alerts` command (composition root): the real process's files,
 * standard input, HTTP, clock and terminal. Compiled to dist/cli.js for the installed `bin`.
 */
import { readFileSync } from 'node:fs';
import { main } from './cli/main.ts';
import { createNodeIo } from './cli/nodeIo.ts';

// ../package.json from both src/cli.ts and dist/cli.js.
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

process.exitCode = await main(process.argv.slice(2), createNodeIo(version));
