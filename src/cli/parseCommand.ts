/**
 * The `parse` command: prints one report, as the contract's JSON or as a summary a person reads.
 * The work is in parseRun.ts, loaded when the command runs.
 */
import { REPORT_FORMATS } from '../core/report/types.ts';
import type { Command } from './command.ts';
import { SOURCE_HELP } from './sourceOptions.ts';

const parseCommand: Command = {
  name: 'parse',
  summary: 'print a server-status report (JSON contract or a summary)',
  usage: 'parse <file-or-url|-> [--json] [--format html|auto|text] [options]',
  help: `Prints the report read from a file, standard input (-) or a URL: without --json a summary
(header, scoreboard map, slots per mode, busiest clients and vhosts, SSL/TLS session cache,
warnings); with --json the object of docs/report-json.md.

Options:
  --json                  print the report as JSON (docs/report-json.md)
  --format <form>         read the input as this form instead of detecting it: ${REPORT_FORMATS.join(', ')}
  -h, --help              this help

${SOURCE_HELP}

Exit status: 0 printed, 1 the input could not be fetched, read or parsed (one line on standard
error), 2 bad usage.`,

  async run(argv, io) {
    const { runParse } = await import('./parseRun.ts');
    return runParse(argv, io);
  },
};

export { parseCommand };
