/**
 * What `parse` does (its description and options are in parseCommand.ts).
 */
import { REPORT_FORMATS, type ReportFormat } from '../core/report/types.ts';
import { type CliIo, oneLine, parseOptions, UsageError } from './command.ts';
import { readReport, SourceConfigError } from './source.ts';
import { SOURCE_OPTIONS } from './sourceOptions.ts';
import { renderSummary } from './summary.ts';

const EXIT = { ok: 0, failed: 1 } as const;

const OPTIONS = {
  json: { type: 'boolean' },
  format: { type: 'string' },
  ...SOURCE_OPTIONS,
} as const;

/** Runs `parse` with the arguments after the command name; resolves to the exit status. */
async function runParse(argv: string[], io: CliIo): Promise<number> {
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
    if (values.json) io.json(`${JSON.stringify(result.report, null, 2)}\n`);
    else io.styled(renderSummary(result.report));
    return EXIT.ok;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const what = error instanceof SourceConfigError ? '' : 'cannot read: ';
    io.stderr(`parse: ${where}: ${what}${oneLine(error)}\n`);
    return EXIT.failed;
  }
}

export { runParse };
