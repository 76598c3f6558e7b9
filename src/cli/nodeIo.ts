/**
 * The CLI's outside world in a real process: files and standard input read under a size cap,
 * the status-page fetcher, the environment, the clock and the terminal.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { InputTooLargeError, type SystemIo } from './command.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 when the bytes are valid UTF-8, else Latin-1 (what mod_status sends, e.g. piped from curl). */
function decode(bytes: Buffer): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

/** Read `path` (`-`: standard input), giving up as soon as it passes `maxBytes`. */
async function readCapped(path: string, maxBytes: number, stdin: Readable): Promise<string> {
  if (path !== '-') {
    // A regular file says its size: refuse it without reading a byte.
    const info = await stat(path);
    if (info.isFile() && info.size > maxBytes) throw new InputTooLargeError(path, maxBytes);
  }
  const stream = path === '-' ? stdin : createReadStream(path);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += bytes.length;
    if (total > maxBytes) {
      stream.destroy();
      throw new InputTooLargeError(path, maxBytes);
    }
    chunks.push(bytes);
  }
  return decode(Buffer.concat(chunks));
}

/**
 * The real `SystemIo` of this process (main.ts adds the output filter).
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2), createNodeIo('0.1.0'));
 */
function createNodeIo(version: string): SystemIo {
  const env = process.env;
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readInput: (path, maxBytes) => readCapped(path, maxBytes, process.stdin),
    // node:https and TLS load only when a command fetches: `--help` and files start faster.
    fetch: async (target) => (await import('../adapters/httpStatusSource.ts')).fetchStatusPage(target),
    env,
    now: () => new Date(),
    colour: process.stdout.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb',
    version,
  };
}

export { createNodeIo, readCapped };
