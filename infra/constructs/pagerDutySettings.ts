/**
 * The PagerDuty forwarder's context options, read once and validated together: which SSM
 * SecureString holds the routing key (none: no forwarder), the Events API endpoint, which
 * severities are forwarded, and whether an incident is opened per alert group or per alert.
 */
import { DEFAULT_PAGERDUTY_EVENTS_URL, DEFAULT_SSM_PREFIX } from '../../src/core/constants.ts';
import { SSM_PREFIX, secretsFolder } from '../../src/core/monitorConfig.ts';
import { EVENTS_PER, type EventsPer } from '../../src/core/pagerduty/events.ts';
import { SEVERITY_NAMES } from '../../src/core/rules/types.ts';
import { ConfigError } from '../config.ts';

interface PagerDutySettings {
  /** SSM SecureString holding the routing key; null: no forwarder. */
  routingKeyParameter: string | null;
  eventsUrl: string;
  /** Severities forwarded (a subscription filter policy); all three by default. */
  severities: string[];
  /** One incident per alert group (the default, as Alertmanager) or per alert. */
  eventsPer: EventsPer;
}

class PagerDutyConfigError extends ConfigError {
  constructor(problems: string[]) {
    super(problems, 'PagerDuty context');
    this.name = 'PagerDutyConfigError';
  }
}

/**
 * Why the routing key may not live where it is (null: it may): not under `<prefix>/secrets/`, as the
 * monitor's role may decrypt every SecureString there, and a target named after it (`pagerduty`)
 * could name it as its `authParameter` and have it sent to a host of its choosing. A `prefix` that
 * is not an SSM path is the prefix option's own problem.
 */
function routingKeyPlaceProblem(parameter: string, prefix: unknown): string | null {
  if (typeof prefix !== 'string' || !SSM_PREFIX.test(prefix)) return null;
  const folder = secretsFolder(prefix);
  const name = parameter.startsWith('/') ? parameter : `/${parameter}`;
  if (!name.startsWith(folder)) return null;
  return `pagerDutyRoutingKeyParameter: expected a parameter outside ${folder} (the monitor function may decrypt every SecureString there, and a target may name one as its authParameter), found ${JSON.stringify(parameter)}`;
}

/**
 * Reads `pagerDutyRoutingKeyParameter` (an SSM parameter name outside `<prefix>/secrets/`), `pagerDutyEventsUrl` (https) and
 * `pagerDutySeverities` ("critical,warning") and `pagerDutyEventsPer` (`group` or `alert`).
 *
 * @example
 * readPagerDutySettings((key) => app.node.tryGetContext(key)); // { routingKeyParameter: null, ... }
 * @throws PagerDutyConfigError naming every bad key
 */
function readPagerDutySettings(get: (key: string) => unknown): PagerDutySettings {
  const problems: string[] = [];
  const parameter = get('pagerDutyRoutingKeyParameter');
  if (parameter !== undefined && (typeof parameter !== 'string' || !/^[A-Za-z0-9_.\-/]{1,2048}$/.test(parameter)))
    problems.push(
      `pagerDutyRoutingKeyParameter: expected an SSM parameter name like /pagerduty/routing-key, found ${JSON.stringify(parameter)}`,
    );
  else if (typeof parameter === 'string') {
    const misplaced = routingKeyPlaceProblem(parameter, get('prefix') ?? DEFAULT_SSM_PREFIX);
    if (misplaced !== null) problems.push(misplaced);
  }
  const url = get('pagerDutyEventsUrl') ?? DEFAULT_PAGERDUTY_EVENTS_URL;
  if (typeof url !== 'string' || !/^https:\/\/[^\s/]+\/\S*$/.test(url))
    problems.push(
      `pagerDutyEventsUrl: expected an https:// URL like ${DEFAULT_PAGERDUTY_EVENTS_URL}, found ${JSON.stringify(url)}`,
    );
  const rawSeverities = get('pagerDutySeverities');
  const severities =
    rawSeverities === undefined
      ? [...SEVERITY_NAMES]
      : String(rawSeverities)
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  const unknown = severities.filter((s) => !(SEVERITY_NAMES as readonly string[]).includes(s));
  if (unknown.length > 0 || severities.length === 0)
    problems.push(
      `pagerDutySeverities: expected some of ${SEVERITY_NAMES.join(',')}, found ${JSON.stringify(rawSeverities)}`,
    );
  const rawPer = get('pagerDutyEventsPer') ?? EVENTS_PER.group;
  const eventsPer = Object.values(EVENTS_PER).find((p) => p === rawPer);
  if (eventsPer === undefined)
    problems.push(
      `pagerDutyEventsPer: expected group (one incident per alert group) or alert (one per alert), found ${JSON.stringify(rawPer)}`,
    );
  if (problems.length > 0 || eventsPer === undefined) throw new PagerDutyConfigError(problems);
  return {
    routingKeyParameter: typeof parameter === 'string' ? parameter : null,
    eventsUrl: url as string,
    severities,
    eventsPer,
  };
}

export { PagerDutyConfigError, type PagerDutySettings, readPagerDutySettings };
