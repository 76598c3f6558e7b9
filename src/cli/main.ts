/**
 * The command line: a table of commands, `--help` and `--version`, usage errors (exit 2; 3 for a
 * plugin, and for an unknown command: it may be a mistyped plugin), and one filter on everything
 * written for a person: terminal controls removed, then
 * URL credentials redacted (`--json` output: redacted only). All I/O goes through `io`. Each
 * command loads only what it uses: the configuration commands (the SSM client, the schemas) on
 * first use.
 */

import { didYouMean } from '../core/nearest.ts';
import { redactCredentials } from '../core/text/redact.ts';
import { cleanTerminalText } from '../core/text/terminalText.ts';
import { checkCommand } from './check.ts';
import {
  type CliIo,
  type Command,
  DOCUMENT_MAX_BYTES,
  EXIT,
  oneLine,
  type Styled,
  type SystemIo,
  UsageError,
  unknownLine,
} from './command.ts';
import type { CliCommand } from './commandSupport.ts';
import { parseCommand } from './parseCommand.ts';

const PROGRAM = 'httpd-status-alerts';
/** A plugin's UNKNOWN: its exit for bad usage. */
const PLUGIN_UNKNOWN = 3;

/** A command whose module loads when it runs (or shows its help). */
interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

const eager = (command: Command): CommandEntry => ({
  name: command.name,
  summary: command.summary,
  load: async () => command,
});

/**
 * A configuration command (commandSupport.ts) in the table, loaded on first use: its io gains
 * the SSM parameter store (made on first use) and capped document reads.
 */
function configCommand<Io>(
  name: string,
  summary: string,
  subcommands: string,
  load: () => Promise<CliCommand<Io>>,
): CommandEntry {
  return {
    name,
    summary,
    load: async () => {
      const [command, { createAdminIo }] = await Promise.all([load(), import('./commandSupport.ts')]);
      return {
        name,
        summary,
        usage: `${name} ${subcommands} [options]`,
        help: command.help,
        run: (argv, io) =>
          command.run(argv, {
            ...io,
            ...createAdminIo(io.env),
            readText: (path: string) => io.readInput(path, DOCUMENT_MAX_BYTES),
          } as Io),
      };
    },
  };
}

/** Every command, in the order `--help` lists them. A new command: a module and one line here. */
const COMMANDS: readonly CommandEntry[] = [
  eager(parseCommand),
  eager(checkCommand),
  configCommand('silence', 'add, list and expire maintenance silences in SSM', '(add|list|expire)', async () => {
    return (await import('./silenceCommand.ts')).silenceCommand;
  }),
  configCommand(
    'targets',
    'add, list and remove the monitored servers in SSM; show what discovery lists',
    '(add|list|remove|discover)',
    async () => {
      return (await import('./targetsCommand.ts')).targetsCommand;
    },
  ),
  configCommand(
    'rules',
    'validate rules files, run rules unit tests, print the built-in rules',
    '(validate|test|defaults)',
    async () => {
      return (await import('./rulesCommand.ts')).rulesCommand;
    },
  ),
];

function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const list = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n');
  return `Usage: ${PROGRAM} <command> [options]

Watches Apache httpd mod_status server-status reports; locally it parses a report and runs the
alert rules on it, sending nothing.

Commands:
${list}

Options:
  -h, --help     this help; '${PROGRAM} <command> --help' for a command's options
  -V, --version  print the version

Environment: NO_COLOR (plain output), HTTPD_STATUS_AUTH_FILE (basic-auth credentials file).
`;
}

function commandHelp(command: Command): string {
  return `Usage: ${PROGRAM} ${command.usage}\n\n${command.help}\n`;
}

function usageLine(command: Command): string {
  return `Usage: ${PROGRAM} ${command.usage}\nRun '${PROGRAM} ${command.name} --help' for more.\n`;
}

/** Whether `--help`/`-h` appears before a `--` that ends the options. */
function asksForHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false;
    if (arg === '--help' || arg === '-h') return true;
  }
  return false;
}

/** Text for a terminal: controls and escape sequences out first, so a redaction sees what is shown. */
const forPerson = (text: string) => redactCredentials(cleanTerminalText(text));

/**
 * The io commands get: everything for a person through the one terminal filter and the one
 * redaction; `--json` through the redaction only; styles added after the filter, on a colour
 * terminal only.
 */
function filtering(io: SystemIo): CliIo {
  const paint = (part: Styled) => {
    if (typeof part === 'string') return forPerson(part);
    const text = forPerson(part.text);
    return io.colour ? `\x1b[${part.sgr}m${text}\x1b[0m` : text;
  };
  return {
    ...io,
    stdout: (text) => io.stdout(forPerson(text)),
    stderr: (text) => io.stderr(forPerson(text)),
    json: (text) => io.stdout(redactCredentials(text)),
    styled: (parts) => io.stdout(parts.map(paint).join('')),
  };
}

/**
 * Run the command line; resolves to the exit status.
 *
 * @example
 * process.exitCode = await main(['parse', 'web-1.html', '--json'], createNodeIo('0.1.0'));
 */
async function main(argv: string[], rawIo: SystemIo): Promise<number> {
  const io = filtering(rawIo);
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    const entry = name === 'help' ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    io.stdout(entry === undefined ? topHelp() : commandHelp(await entry.load()));
    return EXIT.ok;
  }
  if (name === '--version' || name === '-V') {
    io.stdout(`${io.version}\n`);
    return EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (entry === undefined) {
    const names = COMMANDS.map((c) => c.name);
    const found = name === undefined ? 'none' : `"${name}"${didYouMean(name, names)}`;
    const reason = `${PROGRAM}: expected a command (${names.join(', ')}), found ${found}`;
    // A mistyped `check` in a Nagios command definition: UNKNOWN with a line on standard output,
    // not CRITICAL "(No output on stdout)".
    io.stdout(`${unknownLine(reason)}\n`);
    io.stderr(`${reason}\nUsage: ${PROGRAM} <command> [options]\n`);
    return PLUGIN_UNKNOWN;
  }
  const command = await entry.load();
  if (asksForHelp(rest)) {
    io.stdout(commandHelp(command));
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      const reason = `${command.name}: ${oneLine(error)}`;
      if (command.plugin) io.stdout(`${unknownLine(reason)}\n`);
      io.stderr(`${reason}\n${usageLine(command)}`);
      return command.plugin ? PLUGIN_UNKNOWN : EXIT.usage;
    }
    // Not a stack trace: it could carry a URL with credentials past the redaction.
    io.stderr(`${command.name}: ${oneLine(error)}\n`);
    return EXIT.failed;
  }
}

export type { CliIo, Command, SystemIo };
export { COMMANDS, main };
