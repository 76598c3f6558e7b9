/**
 * The command line: `parse` and `check`. A composition root: it wires files, HTTP and the clock
 * into the pure core and maps outcomes to exit codes. All I/O goes through `io` so tests drive it.
 */
import { parseArgs } from 'node:util';
import { NotAStatusReportError } from '../core/errors.ts';
import { parseReport } from '../core/report/parse.ts';
import { REPORT_FORMATS, type ReportFormat } from '../core/report/types.ts';
import { runCheck } from './check.ts';
import { createAdminIo } from './commandSupport.ts';
import { rulesCommand } from './rulesCommand.ts';
import { silenceCommand } from './silenceCommand.ts';
import { renderSummary } from './summary.ts';
import { targetsCommand } from './targetsCommand.ts';

interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readText(path: string): Promise<string>;
  fetchText(url: string): Promise<string>;
  now(): Date;
  /** Whether stdout is a colour terminal (TTY and no NO_COLOR). */
  colour: boolean;
}

const USAGE = `Usage:
  httpd-status-alerts parse <file-or-url> [--json] [--format html|auto|text]
  httpd-status-alerts check (--file <path> | --url <url>) [--rules <file>] [--silences <file>]
                            [--state <file>] [--now <ISO-8601>] [--target <name>] [--json]
                            [--repeat-interval <duration>] [--max-request-workers <n>]
${silenceCommand.usage.replace('Usage:\n', '')}${targetsCommand.usage.replace('Usage:\n', '')}${rulesCommand.usage.replace('Usage:\n', '')}`;

const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s*\n\s*/g, ' ');
}

async function runParse(args: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<
    typeof parseArgs<{ options: { json: { type: 'boolean' }; format: { type: 'string' } }; allowPositionals: true }>
  >;
  try {
    parsed = parseArgs({
      args,
      options: { json: { type: 'boolean' }, format: { type: 'string' } },
      allowPositionals: true,
    });
  } catch (error) {
    io.stderr(`parse: ${oneLine(error)}\n${USAGE}`);
    return EXIT.usage;
  }
  const [source, ...extra] = parsed.positionals;
  if (source === undefined || extra.length > 0) {
    io.stderr(`parse: expected exactly one file or URL, found ${parsed.positionals.length}\n${USAGE}`);
    return EXIT.usage;
  }
  const format = parsed.values.format;
  if (format !== undefined && !(REPORT_FORMATS as readonly string[]).includes(format)) {
    io.stderr(`parse: --format expects one of ${REPORT_FORMATS.join(', ')}, found "${format}"\n`);
    return EXIT.usage;
  }
  try {
    const text = isUrl(source) ? await io.fetchText(source) : await io.readText(source);
    const report = parseReport(text, format === undefined ? {} : { format: format as ReportFormat });
    io.stdout(
      parsed.values.json ? `${JSON.stringify(report, null, 2)}\n` : renderSummary(report, { colour: io.colour }),
    );
    return EXIT.ok;
  } catch (error) {
    const prefix = error instanceof NotAStatusReportError ? `${source}: ` : `${source}: cannot read: `;
    io.stderr(`parse: ${prefix}${oneLine(error)}\n`);
    return EXIT.failed;
  }
}

/** Run the command line; returns the exit code. */
async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'parse':
      return runParse(rest, io);
    case 'check':
      return runCheck(rest, { ...io, parse: (text: string) => parseReport(text) });
    case 'silence':
      return silenceCommand.run(rest, { ...io, ...createAdminIo(process.env) });
    case 'targets':
      return targetsCommand.run(rest, { ...io, ...createAdminIo(process.env) });
    case 'rules':
      return rulesCommand.run(rest, io);
    case 'help':
    case '--help':
    case '-h':
      io.stdout(USAGE);
      return EXIT.ok;
    default:
      io.stderr(
        `expected a command (parse, check, silence, targets, rules), found ${command === undefined ? 'none' : `"${command}"`}\n${USAGE}`,
      );
      return EXIT.usage;
  }
}

export type { CliIo };
export { main };
