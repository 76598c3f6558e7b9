/**
 * The deploy options as one checked set: `monitor.config.json` (the file a user commits) under
 * the CDK context (`cdk.json` and `-c key=value`, which override it). Unknown keys are rejected
 * with the nearest known key suggested, and every problem of every option is listed at once.
 */
import { type AlertsConfig, ConfigError, readConfig } from './config.ts';
import { readChatTopicFlag } from './constructs/notifications.ts';
import { type PagerDutySettings, readPagerDutySettings } from './constructs/pagerDutySettings.ts';
import { readShardingSettings, type ShardingSettings } from './constructs/sharding.ts';

/** The file read when present; `-c configFile=<path>` names another. */
const DEFAULT_OPTIONS_FILE = 'monitor.config.json';

/** Every option the app reads (config.ts, sharding.ts, pagerDutySettings.ts, notifications.ts), plus `configFile`. */
const OPTION_KEYS = [
  'chatbotFormat',
  'chatbotTopic',
  'configFile',
  'configMaxAgeSeconds',
  'dashboardTargets',
  'discoverySources',
  'downAfterFailures',
  'emails',
  'fetchConcurrency',
  'httpsEndpoints',
  'logRetentionDays',
  'memoryMb',
  'pagerDutyEventsPer',
  'pagerDutyEventsUrl',
  'pagerDutyRoutingKeyParameter',
  'pagerDutySeverities',
  'prefix',
  'repeatInterval',
  'reserveConcurrency',
  'scheduleMinutes',
  'secretsKeyArn',
  'securityGroupIds',
  'shardConcurrency',
  'shardMode',
  'sharedSecretParameters',
  'stackName',
  'subnetIds',
  'targetMetrics',
  'targets',
  'targetsPerShard',
  'timeoutSeconds',
  'vpcId',
] as const;

/** Context keys that belong to the CDK itself (feature flags carry `@` or `:`). */
const CDK_KEYS = new Set(['cli-telemetry', 'acknowledged-issue-numbers', 'notices']);

/** Where pages go besides the alert topic (docs/routing.md). */
interface RoutingSettings {
  pagerDuty: PagerDutySettings;
  /** A topic of its own for AWS Chatbot (`chatbotTopic`). */
  chatTopic: boolean;
}

/** The app's stack name when `stackName` is not given (a second monitor in the account needs another). */
const DEFAULT_STACK_NAME = 'HttpdStatusAlerts';
/** CloudFormation's rule for a stack name. */
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

/** The stack name option: a CloudFormation stack name, else the problem (null: none). */
function readStackName(value: unknown): { name: string; problem: string | null } {
  if (value === undefined) return { name: DEFAULT_STACK_NAME, problem: null };
  if (typeof value === 'string' && STACK_NAME.test(value)) return { name: value, problem: null };
  return {
    name: DEFAULT_STACK_NAME,
    problem: `stackName: expected a CloudFormation stack name (a letter, then letters, digits and -, at most 128), found ${JSON.stringify(value)}`,
  };
}

interface DeployOptions {
  /** The CloudFormation stack (`stackName`, default `HttpdStatusAlerts`): one per monitor in an account and region. */
  stackName: string;
  config: AlertsConfig;
  sharding: ShardingSettings;
  routing: RoutingSettings;
}

function isCdkKey(key: string): boolean {
  return key.startsWith('@') || key.includes(':') || CDK_KEYS.has(key);
}

/** Edit distance counting a swap of neighbours as one edit (optimal string alignment), case-insensitive. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const d: number[][] = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => (d[i] as number[])[j] as number;
  for (let i = 1; i <= x.length; i += 1) {
    for (let j = 1; j <= y.length; j += 1) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(x.length, y.length);
}

/** The known key nearest to `key`, when near enough to be a typo (at most a third of it differs). */
function nearestOption(key: string): string | null {
  let best: { key: string; d: number } | null = null;
  for (const known of OPTION_KEYS) {
    const d = distance(key, known);
    if (best === null || d < best.d) best = { key: known, d };
  }
  return best !== null && best.d <= Math.max(2, Math.floor(key.length / 3)) ? best.key : null;
}

function unknownKeyProblems(keys: readonly string[], where: string): string[] {
  return keys
    .filter((k) => !isCdkKey(k) && !(OPTION_KEYS as readonly string[]).includes(k))
    .map((k) => {
      const near = nearestOption(k);
      return `${where} ${k}: unknown option${near === null ? '' : `, did you mean ${near}?`} (known: see docs/deploy.md)`;
    });
}

/**
 * Parses the options file's text: a JSON object of options with their typed values.
 *
 * @throws ConfigError when it is not one
 */
function parseOptionsFile(path: string, text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`${path}: expected JSON, found invalid JSON: ${(error as Error).message}`]);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ConfigError([`${path}: expected a JSON object of options, found ${JSON.stringify(parsed).slice(0, 40)}`]);
  return parsed as Record<string, unknown>;
}

/**
 * Checks the options file's values and the context together; the context wins where both set a key.
 *
 * @example
 * readDeployOptions({ path: 'monitor.config.json', values: { emails: ['oncall@example.com'] } }, app.node.getAllContext())
 * @throws ConfigError listing every problem: unknown keys (with a suggestion) and invalid values
 */
function readDeployOptions(
  file: { path: string; values: Record<string, unknown> } | null,
  context: Record<string, unknown>,
): DeployOptions {
  const problems = [
    ...(file === null ? [] : unknownKeyProblems(Object.keys(file.values), `${file.path}:`)),
    ...unknownKeyProblems(Object.keys(context), 'context (cdk.json or -c):'),
  ];
  const get = (key: string) => (key in context ? context[key] : file?.values[key]);
  // Every reader runs, so every problem of every option is listed at once.
  const collect = <T>(read: () => T): T | null => {
    try {
      return read();
    } catch (error) {
      // ShardingConfigError and PagerDutyConfigError are ConfigErrors too.
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
      return null;
    }
  };
  const stackName = readStackName(get('stackName'));
  if (stackName.problem !== null) problems.push(stackName.problem);
  const config = collect(() => readConfig(get));
  const sharding = collect(() => readShardingSettings(get));
  const pagerDuty = collect(() => readPagerDutySettings(get));
  const chatTopic = collect(() => readChatTopicFlag(get));
  const routing = pagerDuty === null || chatTopic === null ? null : { pagerDuty, chatTopic };
  if (problems.length > 0 || config === null || sharding === null || routing === null) throw new ConfigError(problems);
  return { stackName: stackName.name, config, sharding, routing };
}

export type { DeployOptions, RoutingSettings };
export { DEFAULT_OPTIONS_FILE, DEFAULT_STACK_NAME, nearestOption, OPTION_KEYS, parseOptionsFile, readDeployOptions };
