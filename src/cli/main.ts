/**
 * The command line: a table of commands, `--help` and `--version`, usage errors (exit 2), and
 * credentials in URLs redacted from everything written. All I/O goes through `io`.
 */
import { redactCredentials } from '../core/notify/sanitize.ts';
import { checkCommand } from './check.ts';
import { type CliIo, type Command, DOCUMENT_MAX_BYTES, EXIT, oneLine, UsageError } from './command.ts';
import { type CliCommand, createAdminIo } from './commandSupport.ts';
import { parseCommand } from './parseCommand.ts';
import { rulesCommand } from './rulesCommand.ts';
import { silenceCommand } from './silenceCommand.ts';
import { targetsCommand } from './targetsCommand.ts';

const PROGRAM = 'httpd-status-alerts';

/**
 * A configuration command (commandSupport.ts) in the table: its io gains the SSM parameter store
 * (made on first use) and capped document reads.
 */
function configCommand<Io>(command: CliCommand<Io>, subcommands: string): Command {
  return {
    name: command.name,
    summary: command.summary,
    usage: `${command.name} ${subcommands} [options]`,
    help: command.help,
    run: (argv, io) =>
      command.run(argv, {
        ...io,
        ...createAdminIo(io.env),
        readText: (path: string) => io.readInput(path, DOCUMENT_MAX_BYTES),
      } as Io),
  };
}

/** Every command, in the order `--help` lists them. A new command: a module and one line here. */
const COMMANDS: readonly Command[] = [
  parseCommand,
  checkCommand,
  configCommand(silenceCommand, '(add|list|expire)'),
  configCommand(targetsCommand, '(add|list|remove)'),
  configCommand(rulesCommand, '(validate|test)'),
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

/** The same io, with `user:password@` in URLs redacted from everything written. */
function redacting(io: CliIo): CliIo {
  return {
    ...io,
    stdout: (text) => io.stdout(redactCredentials(text)),
    stderr: (text) => io.stderr(redactCredentials(text)),
  };
}

/**
 * Run the command line; resolves to the exit status.
 *
 * @example
 * process.exitCode = await main(['parse', 'web-1.html', '--json'], createNodeIo('0.1.0'));
 */
async function main(argv: string[], rawIo: CliIo): Promise<number> {
  const io = redacting(rawIo);
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    const command = name === 'help' ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    io.stdout(command === undefined ? topHelp() : commandHelp(command));
    return EXIT.ok;
  }
  if (name === '--version' || name === '-V') {
    io.stdout(`${io.version}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    const found = name === undefined ? 'none' : `"${name}"`;
    const names = COMMANDS.map((c) => c.name).join(', ');
    io.stderr(`${PROGRAM}: expected a command (${names}), found ${found}\nUsage: ${PROGRAM} <command> [options]\n`);
    return EXIT.usage;
  }
  if (asksForHelp(rest)) {
    io.stdout(commandHelp(command));
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`${command.name}: ${oneLine(error)}\n${usageLine(command)}`);
      return EXIT.usage;
    }
    // Not a stack trace: it could carry a URL with credentials past the redaction.
    io.stderr(`${command.name}: ${oneLine(error)}\n`);
    return EXIT.failed;
  }
}

export type { CliIo, Command };
export { COMMANDS, main };
