/**
 * The PagerDuty forwarder's environment and its one job: every alert of every SNS record becomes
 * an Events API v2 event. Kept apart from the entry (src/lambda/pagerDutyHandler.ts) so tests can give it
 * a routing key and a sender of their own.
 */
import type { SNSEvent } from 'aws-lambda';
import type { PagerDutySender } from '../adapters/pagerDutyEventsClient.ts';
import { pagerDutyEvents } from '../core/notify/pagerDuty.ts';
import { EnvironmentError } from './environment.ts';
import { FORWARDER_ENVIRONMENT as E } from './environmentContract.ts';

interface PagerDutyConfig {
  /** SSM parameter (SecureString) holding the integration's routing key. */
  routingKeyParameter: string;
  eventsUrl: string;
  routingKeyMaxAgeSeconds: number;
}

/**
 * @example readPagerDutyConfig(process.env).eventsUrl // 'https://events.pagerduty.com/v2/enqueue'
 * @throws EnvironmentError listing every problem
 */
function readPagerDutyConfig(env: Record<string, string | undefined>): PagerDutyConfig {
  const problems: string[] = [];
  const parameter = env[E.routingKeyParameter.name] ?? '';
  if (!/^[A-Za-z0-9_.\-/]{1,2048}$/.test(parameter))
    problems.push(
      `${E.routingKeyParameter.name} expects the name of an SSM SecureString, found ${JSON.stringify(parameter)}`,
    );
  const eventsUrl = env[E.eventsUrl.name] || E.eventsUrl.default;
  if (!URL.canParse(eventsUrl) || !/^https?:$/.test(new URL(eventsUrl).protocol))
    problems.push(`${E.eventsUrl.name} expects an http(s) URL, found ${JSON.stringify(eventsUrl)}`);
  const { name, min, max, default: fallback } = E.routingKeyMaxAgeSeconds;
  const maxAge = Number(env[name] || fallback);
  if (!Number.isInteger(maxAge) || maxAge < min || maxAge > max)
    problems.push(`${name} expects a whole number from ${min} to ${max}, found ${JSON.stringify(env[name])}`);
  if (problems.length > 0) throw new EnvironmentError(problems);
  return { routingKeyParameter: parameter, eventsUrl, routingKeyMaxAgeSeconds: maxAge };
}

interface ForwarderDeps {
  /** The routing key, decrypted (cached by the caller). */
  routingKey: () => Promise<string>;
  sender: PagerDutySender;
}

/** Some events of an invocation were not accepted; the invocation fails so Lambda retries it. */
class ForwardError extends Error {
  constructor(failures: Error[]) {
    super(
      `expected every event to reach PagerDuty, found ${failures.length} failed: ${failures.map((f) => f.message).join('; ')}`,
      { cause: failures[0] },
    );
    this.name = 'ForwardError';
  }
}

/**
 * Sends every alert of every record; the rest are still sent when one fails, then the invocation
 * fails. A retried invocation sends its events again, which PagerDuty deduplicates by `dedup_key`.
 *
 * @example await forwardToPagerDuty(snsEvent, { routingKey: async () => key, sender }) // { sent: 1 }
 * @throws PagerDutyMessageError for a record that is not an alert message; ForwardError for rejected events
 */
async function forwardToPagerDuty(event: SNSEvent, deps: ForwarderDeps): Promise<{ sent: number }> {
  const records = event.Records ?? [];
  if (records.length === 0) return { sent: 0 };
  const routingKey = await deps.routingKey();
  const events = records.flatMap((record) => pagerDutyEvents(record.Sns.Message, routingKey));
  const failures: Error[] = [];
  for (const e of events) {
    try {
      await deps.sender.send(e);
    } catch (error) {
      failures.push(error as Error);
    }
  }
  if (failures.length > 0) throw new ForwardError(failures);
  return { sent: events.length };
}

export type { ForwarderDeps, PagerDutyConfig };
export { ForwardError, forwardToPagerDuty, readPagerDutyConfig };
