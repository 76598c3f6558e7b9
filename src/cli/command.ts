/**
 * The shape every command of the CLI has, and the error a command throws for a bad argument.
 * `main.ts` lists the commands in a table; a new command is a new module exporting a `Command`
 * and one line in that table.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { FetchResult, FetchTarget } from '../app/ports.ts';

/** Everything a command may touch of the outside world; tests pass their own. */
interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * The text of a file, or of standard input when `path` is `-`. Rejects with `InputTooLargeError`
   * as soon as more than `maxBytes` bytes arrive (or the file is known to be larger), before
   * holding them.
   */
  readInput(path: string, maxBytes: number): Promise<string>;
  /** Fetch one status page; never rejects (failures are results with a reason). */
  fetch(target: FetchTarget): Promise<FetchResult>;
  /** The process environment (read only for the variables a command documents). */
  env: Readonly<Record<string, string | undefined>>;
  /** The clock, read once when a command needs the time. */
  now(): Date;
  /** Whether stdout is a colour terminal (TTY, no NO_COLOR, TERM not dumb). */
  colour: boolean;
  /** The package's version, for `--version`. */
  version: string;
}

/** Rules, silences and rules-test files are small JSON documents: read under a cap far above any real one. */
const DOCUMENT_MAX_BYTES = 4 * 1024 * 1024;

/** Exit statuses shared by every command: 0 done, 1 failed, 2 bad usage (a command may add its own). */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** One command of the CLI. */
interface Command {
  /** What the user types, e.g. `parse`. */
  name: string;
  /** One line for the command list of `httpd-status-alerts --help`. */
  summary: string;
  /** The synopsis after `Usage: httpd-status-alerts `, e.g. `parse <file-or-url|-> [options]`. */
  usage: string;
  /** The rest of `--help`: what it does, options, exit statuses. */
  help: string;
  /**
   * Run with the arguments after the command name; resolves to the exit status. `--help`/`-h` are
   * handled before `run` is called. Throw `UsageError` for a bad argument: `main` prints it with
   * the usage line and exits 2.
   */
  run(argv: string[], io: CliIo): Promise<number>;
}

/** A bad argument: printed as `<command>: <message>` plus the usage line, exit 2. */
class UsageError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UsageError';
  }
}

/** A file or standard input larger than the cap the command reads with. */
class InputTooLargeError extends Error {
  readonly maxBytes: number;

  constructor(source: string, maxBytes: number) {
    super(
      `${source === '-' ? 'standard input' : source} is larger than the ${maxBytes}-byte cap (--max-bytes) - is this really a status report?`,
    );
    this.name = 'InputTooLargeError';
    this.maxBytes = maxBytes;
  }
}

/** An error's message on one line, for standard error (split and trimmed: no regex on untrusted text). */
function oneLine(error: unknown, separator = ' '): string {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(separator);
}

/**
 * `util.parseArgs` (strict) with its errors turned into `UsageError`.
 *
 * @example
 * const { values, positionals } = parseOptions(argv, { json: { type: 'boolean' } }, true);
 */
function parseOptions<T extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: T,
  allowPositionals: boolean,
) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    // Node's messages are the clearest available ("Unknown option '--x'", "Option '--rules <value>' argument missing").
    throw new UsageError(oneLine(error), { cause: error });
  }
}

export type { CliIo, Command };
export { DOCUMENT_MAX_BYTES, EXIT, InputTooLargeError, oneLine, parseOptions, UsageError };
