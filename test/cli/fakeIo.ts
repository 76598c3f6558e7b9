/**
 * A `SystemIo` for tests: files from a map (or the disk), fetches answered from a map, a fixed clock,
 * everything written captured.
 */
import { readFile } from 'node:fs/promises';
import type { FetchResult, FetchTarget } from '../../src/app/ports.ts';
import { InputTooLargeError, type SystemIo } from '../../src/cli/command.ts';
import { main } from '../../src/cli/main.ts';

interface FakeIoOptions {
  /** Files by path (`-` is standard input); paths not here are read from the disk. */
  files?: Record<string, string>;
  /** Fetch results by URL; other URLs are refused. */
  pages?: Record<string, Omit<FetchResult, 'latencyMs'>>;
  env?: Record<string, string>;
  now?: string;
  colour?: boolean;
}

function fakeIo(options: FakeIoOptions = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const fetched: FetchTarget[] = [];
  const io: SystemIo = {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    readInput: async (path, maxBytes) => {
      const text = options.files?.[path] ?? (await readFile(path, 'utf8'));
      if (Buffer.byteLength(text) > maxBytes) throw new InputTooLargeError(path, maxBytes);
      return text;
    },
    fetch: async (target) => {
      fetched.push(target);
      const page = options.pages?.[target.url];
      if (page !== undefined) return { ...page, latencyMs: 1 } as FetchResult;
      const host = new URL(target.url).host;
      return {
        ok: false,
        reason: 'refused',
        detail: `connection refused by ${host} - Apache may be down or saturated`,
        latencyMs: 1,
        url: target.url,
      };
    },
    env: options.env ?? {},
    now: () => new Date(options.now ?? '2026-11-22T12:00:00Z'),
    colour: options.colour ?? false,
    version: '9.8.7',
  };
  return { io, out: () => out.join(''), err: () => err.join(''), fetched };
}

/** A page the fake fetch answers with 200. */
function okPage(url: string, body: string): Omit<FetchResult & { ok: true }, 'latencyMs'> {
  return { ok: true, body, status: 200, contentType: 'text/html', url };
}

/** Runs the command line on a fake io (the real environment, for the AWS endpoints); what it wrote. */
async function runCli(
  args: string[],
  options: FakeIoOptions = {},
): Promise<{ code: number; out: string; err: string }> {
  const { io, out, err } = fakeIo({ env: process.env as Record<string, string>, ...options });
  const code = await main(args, io);
  return { code, out: out(), err: err() };
}

export { fakeIo, okPage, runCli };
