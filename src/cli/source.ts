/**
 * Where a command's report comes from: a file, standard input (`-`) or an http(s) URL, with the
 * options every reading command shares (`--ca-file`, `--auth-file`, `--timeout`, `--max-bytes`).
 * URLs go through the same fetcher as the Lambda, so a failure has the same reason in both.
 */
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from '../adapters/httpDefaults.ts';
import type { FetchTarget } from '../app/ports.ts';
import { type DownObservation, downObservation } from '../core/downObservation.ts';
import { NotAStatusReportError } from '../core/errors.ts';
import { parseReport } from '../core/report/parse.ts';
import type { ReportFormat, StatusReport } from '../core/report/types.ts';
import { parseDuration } from '../core/rules/duration.ts';
import { redactCredentials, urlHasCredentials } from '../core/text/sanitize.ts';
import { type CliIo, InputTooLargeError, oneLine, UsageError } from './command.ts';
import { AUTH_FILE_ENV } from './sourceOptions.ts';

/** Credentials and CA files are small; a larger one is a mistake (a wrong path), not a secret. */
const SMALL_FILE_MAX_BYTES = 1024 * 1024;

interface SourceValues {
  'ca-file'?: string | undefined;
  'auth-file'?: string | undefined;
  timeout?: string | undefined;
  'max-bytes'?: string | undefined;
}

/** What a source yielded: a report, or why there is none (the fetcher's reasons, plus `read`; detail cleaned). */
type SourceResult = { kind: 'report'; report: StatusReport } | DownObservation;

/** A CA or credentials file that cannot be used: a configuration problem, not a down target. */
class SourceConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SourceConfigError';
  }
}

const BYTE_UNITS: Record<string, number> = { '': 1, KiB: 1024, MiB: 1024 * 1024, GiB: 1024 * 1024 * 1024 };

function isUrl(source: string): boolean {
  const head = source.slice(0, 8).toLowerCase();
  return head.startsWith('http://') || head.startsWith('https://');
}

function parseMaxBytes(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MAX_BYTES;
  const match = /^(\d+)(KiB|MiB|GiB)?$/.exec(text);
  const bytes = match === null ? Number.NaN : Number(match[1]) * (BYTE_UNITS[match[2] ?? ''] as number);
  if (!Number.isSafeInteger(bytes) || bytes <= 0)
    throw new UsageError(`--max-bytes expects a positive size such as 4194304 or 4MiB, found "${text}"`);
  return bytes;
}

/** Whole or decimal seconds, as every check_* plugin takes `--timeout` (`5`, `2.5`). */
function bareSeconds(text: string): number | null {
  return /^\d{1,6}(\.\d{1,3})?$/.test(text) ? Math.round(Number(text) * 1000) : null;
}

function parseTimeout(text: string | undefined): number {
  if (text === undefined) return DEFAULT_TIMEOUT_MS;
  const ms = bareSeconds(text) ?? parseDuration(text);
  if (ms === null || ms <= 0)
    throw new UsageError(`--timeout expects seconds or a duration such as 5, 5s or 500ms, found "${text}"`);
  return ms;
}

async function readSmallFile(path: string, what: string, io: CliIo): Promise<string> {
  try {
    return await io.readInput(path, SMALL_FILE_MAX_BYTES);
  } catch (error) {
    throw new SourceConfigError(`cannot read the ${what} ${path}: ${oneLine(error)}`, { cause: error });
  }
}

async function readAuth(path: string, io: CliIo): Promise<{ username: string; password: string }> {
  const text = await readSmallFile(path, 'credentials file', io);
  const newline = text.indexOf('\n');
  const line = (newline < 0 ? text : text.slice(0, newline)).replace(/\r$/, '');
  const colon = line.indexOf(':');
  // Never echo the content: it is a password.
  if (colon <= 0)
    throw new SourceConfigError(`expected user:password on the first line of ${path}, found no "user:" part`);
  return { username: line.slice(0, colon), password: line.slice(colon + 1) };
}

/** The fetch/read settings of a command's options; reads the CA and credentials files only for a URL. */
async function sourceSettings(source: string, values: SourceValues, io: CliIo) {
  const timeoutMs = parseTimeout(values.timeout);
  const maxBytes = parseMaxBytes(values['max-bytes']);
  // Loopback allowed: a check run on the server itself, as Nagios does, asks localhost. Link-local
  // and the unspecified addresses stay refused (src/core/addressPolicy.ts).
  const request: Omit<FetchTarget, 'name' | 'url'> = { timeoutMs, maxBytes, allowLoopback: true };
  if (isUrl(source)) {
    if (values['ca-file'] !== undefined) request.ca = await readSmallFile(values['ca-file'], 'CA file', io);
    const authFile = values['auth-file'] ?? io.env[AUTH_FILE_ENV];
    if (authFile !== undefined && authFile !== '') request.auth = await readAuth(authFile, io);
  }
  return request;
}

function parseText(text: string, format: ReportFormat | undefined): StatusReport {
  return parseReport(text, format === undefined ? {} : { format });
}

/**
 * Read and parse the report at `source`. Failures to fetch, read or parse become a `down` result
 * with the Lambda's reasons (`timeout`, `refused`, `http-status`, `not-a-report`, ...; `too-large`
 * and `read` for files); `UsageError` (a URL with credentials among them) and `SourceConfigError`
 * are thrown.
 *
 * @example
 * await readReport('https://web-1/server-status?auto', { timeout: '2s' }, io) // { kind: 'report', report }
 */
async function readReport(
  source: string,
  values: SourceValues,
  io: CliIo,
  format?: ReportFormat,
): Promise<SourceResult> {
  // Why: a password in a URL ends up in shell history and process lists; the fetcher sends only `--auth-file`'s.
  if (isUrl(source) && urlHasCredentials(source))
    throw new UsageError(
      `expected a URL without credentials (put "user:password" in a file named by --auth-file), found ${redactCredentials(source)}`,
    );
  const settings = await sourceSettings(source, values, io);
  if (isUrl(source)) {
    let name: string;
    try {
      name = new URL(source).host;
    } catch (error) {
      throw new UsageError(`expected a URL such as https://web-1/server-status, found "${source}"`, { cause: error });
    }
    const result = await io.fetch({ name, url: source, ...settings });
    if (!result.ok) return downObservation(result.reason, result.detail);
    try {
      return { kind: 'report', report: parseText(result.body, format) };
    } catch (error) {
      if (!(error instanceof NotAStatusReportError)) throw error;
      const detail = `HTTP ${result.status} from ${result.url} is not a server-status report: ${error.message}`;
      return downObservation('not-a-report', detail);
    }
  }
  let text: string;
  try {
    text = await io.readInput(source, settings.maxBytes as number);
  } catch (error) {
    const reason = error instanceof InputTooLargeError ? 'too-large' : 'read';
    return downObservation(reason, oneLine(error));
  }
  try {
    return { kind: 'report', report: parseText(text, format) };
  } catch (error) {
    if (!(error instanceof NotAStatusReportError)) throw error;
    return downObservation('not-a-report', error.message);
  }
}

export type { SourceResult, SourceValues };
export { isUrl, readReport, SourceConfigError };
