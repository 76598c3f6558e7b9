/**
 * The `parse` command: prints one report, as the contract's JSON or as a summary a person reads.
 */
import { REPORT_FORMATS, type ReportFormat } from '../core/report/types.ts';
import { type Command, oneLine, parseOptions, UsageError } from './command.ts';
import { readReport, SOURCE_HELP, SOURCE_OPTIONS, SourceConfigError } from './source.ts';
import { renderSummary } from './summary.ts';

const EXIT = { ok: 0, failed: 1 } as const;

const OPTIONS = {
  json: { type: 'boolean' },
  format: { type: 'string' },
  ...SOURCE_OPTIONS,
} as const;

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
    const { values, positionals } = parseOptions(argv, OPTIONS, true);
    const [source, ...extra] = positionals;
    if (source === undefined || extra.length > 0)
      throw new UsageError(`expected exactly one file, URL or -, found ${positionals.length}`);
    const format = values.format;
    if (format !== undefined && !(REPORT_FORMATS as readonly string[]).includes(format))
      throw new UsageError(`--format expects one of ${REPORT_FORMATS.join(', ')}, found "${format}"`);
    const where = source === '-' ? 'standard input' : source;
    try {
      const result = await readReport(source, values, io, format as ReportFormat | undefined);
      if (result.kind === 'down') {
        io.stderr(`parse: ${where}: ${result.reason}: ${result.detail}\n`);
        return EXIT.failed;
      }
      io.stdout(
        values.json
          ? `${JSON.stringify(result.report, null, 2)}\n`
          : renderSummary(result.report, { colour: io.colour }),
      );
      return EXIT.ok;
    } catch (error) {
      if (error instanceof UsageError) throw error;
      const what = error instanceof SourceConfigError ? '' : 'cannot read: ';
      io.stderr(`parse: ${where}: ${what}${oneLine(error)}\n`);
      return EXIT.failed;
    }
  },
};

export { parseCommand };
