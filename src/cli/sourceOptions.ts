/**
 * The options every report-reading command shares, and their help text. Kept apart from
 * `source.ts` so that `--help` loads no parser or fetcher.
 */
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from '../adapters/httpDefaults.ts';

/** Names a file holding `user:password` for basic auth, when `--auth-file` is not given. */
const AUTH_FILE_ENV = 'HTTPD_STATUS_AUTH_FILE';

const SOURCE_OPTIONS = {
  'ca-file': { type: 'string' },
  'auth-file': { type: 'string' },
  timeout: { type: 'string' },
  'max-bytes': { type: 'string' },
} as const;

const SOURCE_HELP = `Reading the report:
  <file>, -               a saved page, or standard input
  http(s)://host/...      fetched: same-host redirects only, TLS verified
  --ca-file <pem>         CA bundle (PEM) that replaces the system roots, e.g. for a self-signed page
  --auth-file <file>      basic auth from a file holding user:password (first line); default: the
                          file named by $${AUTH_FILE_ENV}; never user:password@ in the URL (refused)
  --timeout <seconds>     whole fetch, redirects included (default ${DEFAULT_TIMEOUT_MS / 1000}; e.g. 10, 500ms, 10s)
  --max-bytes <n>         size cap for a fetched page, a file or standard input (default ${DEFAULT_MAX_BYTES / 1024 / 1024}MiB;
                          e.g. 500000, 512KiB, 16MiB); larger input is rejected before it is held`;

export { AUTH_FILE_ENV, SOURCE_HELP, SOURCE_OPTIONS };
