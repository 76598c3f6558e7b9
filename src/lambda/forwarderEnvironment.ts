/**
 * The PagerDuty forwarder's environment, read and validated once at start-up through the readers
 * of ./environment.ts and the names of ./environmentContract.ts (`FORWARDER_ENVIRONMENT`).
 */
import { EVENTS_PER, type EventsPer } from '../core/pagerduty/events.ts';
import { z } from '../core/zod.ts';
import { integer, readEnvironment, variable } from './environment.ts';
import { FORWARDER_ENVIRONMENT as E } from './environmentContract.ts';

/** How long a decrypted routing key is reused by a warm function before SSM is asked again. */
const DEFAULT_ROUTING_KEY_MAX_AGE_SECONDS = E.routingKeyMaxAgeSeconds.default;

interface PagerDutyConfig {
  /** SSM parameter (SecureString) holding the integration's routing key. */
  routingKeyParameter: string;
  eventsUrl: string;
  routingKeyMaxAgeSeconds: number;
  eventsPer: EventsPer;
  /** The monitor's state table: last order accepted per dedup_key, pacing windows, key problems. */
  stateTable: string;
}

/** An SSM parameter's name, as SSM accepts it. */
const PARAMETER_NAME = /^[A-Za-z0-9_.\-/]{1,2048}$/;
/** A DynamoDB table's name, as DynamoDB accepts it. */
const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;
const EVENTS_PER_VALUES: readonly EventsPer[] = Object.values(EVENTS_PER);

const PAGERDUTY_ENV_SCHEMA = z.object({
  [E.routingKeyParameter.name]: variable((v = '', fail) =>
    PARAMETER_NAME.test(v)
      ? v
      : fail(`${E.routingKeyParameter.name} expects the name of an SSM SecureString, found ${JSON.stringify(v)}`),
  ),
  [E.eventsUrl.name]: variable((v, fail) => {
    const url = v || E.eventsUrl.default;
    return URL.canParse(url) && /^https?:$/.test(new URL(url).protocol)
      ? url
      : fail(`${E.eventsUrl.name} expects an http(s) URL, found ${JSON.stringify(url)}`);
  }),
  [E.routingKeyMaxAgeSeconds.name]: integer(E.routingKeyMaxAgeSeconds),
  [E.eventsPer.name]: variable(
    (v, fail) =>
      EVENTS_PER_VALUES.find((p) => p === (v || E.eventsPer.default)) ??
      fail(`${E.eventsPer.name} expects group or alert, found ${JSON.stringify(v)}`),
  ),
  [E.stateTable.name]: variable((v = '', fail) =>
    TABLE_NAME.test(v)
      ? v
      : fail(`${E.stateTable.name} expects the name of the DynamoDB state table, found ${JSON.stringify(v)}`),
  ),
});

/**
 * @example readPagerDutyConfig(process.env).eventsUrl // 'https://events.pagerduty.com/v2/enqueue'
 * @throws EnvironmentError listing every problem
 */
function readPagerDutyConfig(env: Record<string, string | undefined>): PagerDutyConfig {
  const v = readEnvironment(PAGERDUTY_ENV_SCHEMA, env);
  return {
    routingKeyParameter: v[E.routingKeyParameter.name],
    eventsUrl: v[E.eventsUrl.name],
    routingKeyMaxAgeSeconds: v[E.routingKeyMaxAgeSeconds.name],
    eventsPer: v[E.eventsPer.name],
    stateTable: v[E.stateTable.name],
  };
}

export type { PagerDutyConfig };
export { DEFAULT_ROUTING_KEY_MAX_AGE_SECONDS, readPagerDutyConfig };
