/**
 * The shape every command of the CLI has, and the error a command throws for a bad argument.
 * `main.ts` lists the commands in a table; a new command is a new module exporting a `Command`
 * and one line in that table.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { FetchResult, FetchTarget } from '../app/ports.ts';
import { didYouMean } from '../core/nearest.ts';

/**
 * A piece of output for a person: plain text, or text in an ANSI SGR style (`'31;1'`) shown when
 * standard output is a colour terminal. The style is the CLI's own; the text is filtered.
 */
type Styled = string | { text: string; sgr: string };

/** Everything a command may touch of the outside world; tests pass their own (`SystemIo`). */
interface CliIo {
  /** Text for a person: terminal controls filtered out, URL credentials redacted (main.ts). */
  stdout(text: string): void;
  stderr(text: string): void;
  /** `--json` output: credentials redacted, otherwise as is (JSON escapes what it needs to). */
  json(text: string): void;
  /** Styled pieces for a person, each filtered as `stdout`; styles only on a colour terminal. */
  styled(parts: readonly Styled[]): void;
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

/** The outside world as a process or a test gives it; main.ts adds the filtered `json` and `styled`. */
type SystemIo = Omit<CliIo, 'json' | 'styled'>;

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
   * A monitoring plugin (`check`): bad usage exits 3 (UNKNOWN, as the Monitoring Plugins
   * guidelines ask; Nagios reads 2 as CRITICAL) with the reason on standard output's first line.
   */
  plugin?: boolean;
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

/** The first line of a plugin that could not run (bad usage, an unusable file): `UNKNOWN - <why>`. */
function unknownLine(reason: string): string {
  return `UNKNOWN - ${reason}`;
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
    throw new UsageError(optionsMessage(error, Object.keys(options)), { cause: error });
  }
}

/**
 * A `parseArgs` complaint in the project's words: an unknown option names the nearest known
 * ones; the others keep Node's message ("Option '--rules <value>' argument missing").
 */
function optionsMessage(error: unknown, known: readonly string[]): string {
  const code = (error as { code?: string }).code;
  const message = oneLine(error);
  if (code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return message;
  const quoted = message.split("'")[1] ?? '';
  const typed = quoted.startsWith('--') ? (quoted.split('=')[0] ?? quoted) : quoted;
  const names = known.map((k) => `--${k}`);
  return `expected one of the options of --help, found unknown option ${typed}${didYouMean(typed, names)}`;
}

export type { CliIo, Command, Styled, SystemIo };
export { DOCUMENT_MAX_BYTES, EXIT, InputTooLargeError, oneLine, optionsMessage, parseOptions, UsageError, unknownLine };
