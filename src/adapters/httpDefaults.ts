/**
 * Defaults of the status-page fetcher, in one place. A target may override the timeout and the
 * size cap; the redirect limit and the user agent are the same for every target.
 */

/** Whole-request limit: connect, headers and body together, redirects included. */
const DEFAULT_TIMEOUT_MS = 5000;

/** Response size cap: a 256-slot prefork page is about 150 KiB; anything near 4 MiB is not a report. */
const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;

/** Same-host redirects followed before giving up. */
const MAX_REDIRECTS = 3;

/** Sent with every request, so server logs show who asks. */
const USER_AGENT = 'httpd-status-alerts/0.1';

export { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS, MAX_REDIRECTS, USER_AGENT };
