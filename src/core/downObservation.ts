/**
 * A `down` observation, made here for the Lambda's run and the CLI alike. Its detail is untrusted:
 * a fetch error quotes what the server sent (a certificate's names in a TLS error, a redirect's
 * Location, a body's first bytes). It is cleaned once, as data, where the observation is made, so
 * that every place it goes holds the same text: the `target down` log line, the JSON payload, the
 * state table's group item, the CLI's `--json`. What people read (the text page, PagerDuty's
 * `custom_details`, the plugin line) cleans it further for a page. Made in the app, not in the
 * fetcher: the failures of the configuration step (a secret unreadable) and of the parser
 * (`not-a-report`) become observations too, and a fetcher written later cannot forget it.
 */
import { MAX_FAILURE_DETAIL_CHARS } from './constants.ts';
import type { Observation } from './rules/types.ts';
import { cleanReportText, TEXT_USES } from './text/sanitize.ts';

type DownObservation = Extract<Observation, { kind: 'down' }>;

/**
 * The observation of a target that could not be read: `reason` one of `DOWN_REASONS` (the CLI adds
 * `read`), `detail` without invisible characters or URL credentials, at most
 * `MAX_FAILURE_DETAIL_CHARS` characters.
 *
 * @example
 * downObservation('tls', "TLS with web-1:443 failed: ... cert's CN: <!channel>\u202e (ERR_TLS_CERT_ALTNAME_INVALID)").detail
 * // "TLS with web-1:443 failed: ... cert's CN: <!channel> (ERR_TLS_CERT_ALTNAME_INVALID)"
 */
function downObservation(reason: string, detail: string): DownObservation {
  return {
    kind: 'down',
    reason,
    detail: cleanReportText(detail, { use: TEXT_USES.data, max: MAX_FAILURE_DETAIL_CHARS }),
  };
}

export type { DownObservation };
export { downObservation };
