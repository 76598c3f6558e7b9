/**
 * Deployment options, read once from CDK context (`-c key=value`, cdk.context.json or cdk.json).
 * Values given with `-c` arrive as strings, so lists accept "a,b" and objects accept JSON text.
 * Every problem is collected and thrown together, each naming its context key.
 */

import {
  DEFAULT_DOWN_AFTER_FAILURES,
  DEFAULT_FETCH_CONCURRENCY,
  DEFAULT_REPEAT_INTERVAL_MS,
  DEFAULT_SSM_PREFIX,
} from '../src/core/constants.ts';
import { DISCOVERY_SOURCES, type DiscoverySourceName } from '../src/core/discovery/document.ts';
import { ProblemListError, problemLines } from '../src/core/errors.ts';
import {
  type ConfigProblem,
  readTarget,
  type SecretScope,
  SSM_PREFIX,
  secretsFolder,
  TARGET_NAME,
} from '../src/core/monitorConfig.ts';
import { formatDuration, parseDuration } from '../src/core/rules/duration.ts';
import {
  configMaxAgeFor,
  DEFAULT_CONFIG_MAX_AGE_SECONDS,
  DEFAULT_FUNCTION_TIMEOUT_SECONDS,
  MONITOR_ENVIRONMENT as ENV,
} from '../src/lambda/environmentContract.ts';
import { MAX_DASHBOARD_TARGETS } from './constructs/dashboard.ts';
import { memoryForTargets } from './memorySize.ts';

/** One example target seeded into `<prefix>/targets/<name>` (the Lambda's target contract). */
type SeedTarget = { url: string } & Record<string, unknown>;

interface VpcPlacement {
  vpcId: string;
  subnetIds: string[];
  /** Empty: the stack creates one egress-only security group. */
  securityGroupIds: string[];
}

interface AlertsConfig {
  /** SSM prefix of all configuration, e.g. `/httpd-status-alerts`. */
  prefix: string;
  scheduleMinutes: number;
  memoryMb: number;
  timeoutSeconds: number;
  logRetentionDays: number;
  /** Reserve one concurrent execution so that runs never overlap. */
  reserveConcurrency: boolean;
  /** Subscribed to every alert and to the ops alarms. */
  emails: string[];
  /** Subscribed to critical alerts only (filter policy) and to the ops alarms. */
  httpsEndpoints: string[];
  targets: Record<string, SeedTarget>;
  /** Targets shown on the dashboard: the seeded ones and `dashboardTargets`; past 100, those named first. */
  dashboardTargets: string[];
  /** Seeded targets past the dashboard's 100 (not shown; the dashboard's note says so). */
  dashboardOmitted: number;
  /** Customer KMS key of the SecureString secrets; null means the AWS-managed `aws/ssm` key. */
  secretsKeyArn: string | null;
  /**
   * Secrets every target may name as its `authParameter`, besides its own
   * `<prefix>/secrets/<target>` (and below); each under `<prefix>/secrets/`.
   */
  sharedSecretParameters: string[];
  vpc: VpcPlacement | null;
  repeatInterval: string;
  downAfterFailures: number;
  configMaxAgeSeconds: number;
  fetchConcurrency: number;
  /** Publish in the AWS Chatbot custom-notification format. */
  chatbotFormat: boolean;
  /** Targets that get per-target CloudWatch metrics (`TARGET_METRICS`): all, none, or these names. */
  targetMetrics: 'all' | 'none' | string[];
  /** The discovery sources enabled: a client and a read-only grant each (`DISCOVERY_SOURCES`). */
  discoverySources: DiscoverySourceName[];
}

const DEFAULT_CONFIG: AlertsConfig = {
  prefix: DEFAULT_SSM_PREFIX,
  scheduleMinutes: 1,
  memoryMb: 256,
  timeoutSeconds: DEFAULT_FUNCTION_TIMEOUT_SECONDS,
  logRetentionDays: 30,
  reserveConcurrency: true,
  emails: [],
  httpsEndpoints: [],
  targets: {},
  dashboardTargets: [],
  dashboardOmitted: 0,
  secretsKeyArn: null,
  sharedSecretParameters: [],
  vpc: null,
  repeatInterval: formatDuration(DEFAULT_REPEAT_INTERVAL_MS),
  downAfterFailures: DEFAULT_DOWN_AFTER_FAILURES,
  configMaxAgeSeconds: DEFAULT_CONFIG_MAX_AGE_SECONDS,
  fetchConcurrency: DEFAULT_FETCH_CONCURRENCY,
  chatbotFormat: false,
  targetMetrics: 'none',
  discoverySources: [],
};

/** Values CloudWatch Logs accepts for retention (days). */
const RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

/** Deploy options with problems; `what` names where they came from in the message. */
class ConfigError extends ProblemListError {
  constructor(problems: string[], what = 'CDK context') {
    super(problemLines(`invalid ${what}`, problems), problems);
    this.name = 'ConfigError';
  }
}

type Lookup = (key: string) => unknown;

function list(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (text.startsWith('[')) return JSON.parse(text) as unknown[];
    return text === '' ? [] : text.split(',').map((item) => item.trim());
  }
  return [value];
}

function object(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

/** A whole-number option's range, and the value used when it is unset (or invalid). */
interface IntegerRange {
  min: number;
  max: number;
  default: number;
  /** A word the option also takes (read by its caller), named in the problem: `auto`. */
  orWord?: string;
}

/** Reads whole-number context values in a range; a bad one is listed in `problems` and its default kept. */
function integerReader(get: Lookup, problems: string[]) {
  return (key: string, { min, max, default: fallback, orWord }: IntegerRange): number => {
    const raw = get(key);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (Number.isInteger(value) && value >= min && value <= max) return value;
    const expected = `${orWord === undefined ? '' : `${orWord} or `}an integer from ${min} to ${max}`;
    problems.push(`${key}: expected ${expected}, found ${JSON.stringify(raw)}`);
    return fallback;
  };
}

/**
 * The seeded targets, each checked by the Lambda's own target validation (name, document,
 * credentials in the URL, the parameters it names within `scope`), so that a deploy never seeds a
 * target the Lambda then rejects.
 */
function readSeedTargets(raw: unknown, scope: SecretScope, problems: string[]): Record<string, SeedTarget> {
  const out: Record<string, SeedTarget> = {};
  if (raw === undefined) return out;
  let parsed: unknown;
  try {
    parsed = object(raw);
  } catch {
    parsed = null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(`targets: expected a JSON object {"<name>": {"url": "..."}}, found ${JSON.stringify(raw)}`);
    return out;
  }
  for (const [name, target] of Object.entries(parsed)) {
    const found: ConfigProblem[] = [];
    if (readTarget(`${scope.prefix}/targets/${name}`, name, JSON.stringify(target), found, scope) !== null)
      out[name] = target as SeedTarget;
    for (const p of found) problems.push(`targets.${name}${p.field === null ? '' : `.${p.field}`}: ${p.message}`);
  }
  return out;
}

/**
 * Builds the configuration from context values.
 * @example readConfig((key) => app.node.tryGetContext(key))
 */
function readConfig(get: Lookup): AlertsConfig {
  const problems: string[] = [];
  const c: AlertsConfig = { ...DEFAULT_CONFIG, targets: {} };

  const int = integerReader(get, problems);
  const flag = (key: string, fallback: boolean): boolean => {
    const raw = get(key);
    if (raw === undefined) return fallback;
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return false;
    problems.push(`${key}: expected true or false, found ${JSON.stringify(raw)}`);
    return fallback;
  };
  const strings = (key: string, pattern: RegExp, what: string): string[] => {
    const raw = get(key);
    if (raw === undefined) return [];
    try {
      const items = list(raw);
      for (const item of items) {
        if (typeof item !== 'string' || !pattern.test(item))
          problems.push(`${key}: ${JSON.stringify(item)} is not ${what}`);
      }
      return items.filter((item): item is string => typeof item === 'string');
    } catch {
      problems.push(`${key}: expected a list ("a,b" or a JSON array)`);
      return [];
    }
  };

  const prefix = get('prefix');
  if (prefix !== undefined) {
    if (typeof prefix === 'string' && SSM_PREFIX.test(prefix)) c.prefix = prefix;
    else
      problems.push(
        `prefix: expected an SSM path like /httpd-status-alerts (no trailing /), found ${JSON.stringify(prefix)}`,
      );
  }
  c.scheduleMinutes = int('scheduleMinutes', { min: 1, max: 60, default: c.scheduleMinutes });
  // `auto`: chosen below from the seeded targets, once they are read.
  const memoryAuto = get('memoryMb') === 'auto';
  if (!memoryAuto) c.memoryMb = int('memoryMb', { min: 128, max: 10240, default: c.memoryMb, orWord: 'auto' });
  // The longest timeout Lambda allows; the claim lease the stack sets grows with it (twice).
  c.timeoutSeconds = int('timeoutSeconds', {
    min: 5,
    max: ENV.functionTimeoutSeconds.max,
    default: c.timeoutSeconds,
  });
  if (c.timeoutSeconds > c.scheduleMinutes * 60) {
    problems.push(
      `timeoutSeconds: ${c.timeoutSeconds} s is longer than the ${c.scheduleMinutes}-minute schedule; runs would queue up`,
    );
  }
  c.logRetentionDays = int('logRetentionDays', { min: 1, max: 3653, default: c.logRetentionDays });
  if (!(RETENTION_DAYS as readonly number[]).includes(c.logRetentionDays)) {
    problems.push(`logRetentionDays: ${c.logRetentionDays} is not one of ${RETENTION_DAYS.join(', ')}`);
  }
  c.reserveConcurrency = flag('reserveConcurrency', c.reserveConcurrency);
  c.chatbotFormat = flag('chatbotFormat', c.chatbotFormat);
  c.emails = strings('emails', /^[^@\s,]+@[^@\s,]+\.[^@\s,]+$/, 'an e-mail address');
  c.httpsEndpoints = strings('httpsEndpoints', /^https:\/\/\S+$/, 'an https:// URL');

  // Why under <prefix>/secrets/: a shared secret is a SecureString, which the function may decrypt only there.
  c.sharedSecretParameters = strings('sharedSecretParameters', SSM_PREFIX, 'an SSM parameter name').filter((name) => {
    if (!SSM_PREFIX.test(name)) return false;
    if (name.startsWith(secretsFolder(c.prefix))) return true;
    problems.push(
      `sharedSecretParameters: expected parameter names under ${secretsFolder(c.prefix)} (the only place the function may decrypt), found ${JSON.stringify(name)}`,
    );
    return false;
  });
  const sources = new RegExp(`^(${DISCOVERY_SOURCES.join('|')})$`);
  c.discoverySources = [
    ...new Set(strings('discoverySources', sources, `a discovery source (${DISCOVERY_SOURCES.join(', ')})`)),
  ].filter((name): name is DiscoverySourceName => sources.test(name));
  c.targets = readSeedTargets(
    get('targets'),
    { prefix: c.prefix, sharedSecretParameters: c.sharedSecretParameters },
    problems,
  );
  if (memoryAuto) c.memoryMb = memoryForTargets(Object.keys(c.targets).length);
  const extra = strings('dashboardTargets', TARGET_NAME, 'a target name');
  // Why: the ones named for the dashboard first; seeded targets fill it up to its 100, the rest are
  // simply not shown (a fleet seeded with the deploy may be any size).
  if (extra.length > MAX_DASHBOARD_TARGETS)
    problems.push(
      `dashboardTargets: expected at most ${MAX_DASHBOARD_TARGETS} names (one dashboard), found ${extra.length}`,
    );
  const all = [...new Set([...Object.keys(c.targets), ...extra])];
  c.dashboardTargets =
    all.length <= MAX_DASHBOARD_TARGETS
      ? all
      : [...new Set([...extra, ...Object.keys(c.targets)])].slice(0, MAX_DASHBOARD_TARGETS);
  c.dashboardOmitted = all.length - c.dashboardTargets.length;
  // Why: custom metrics are billed per metric, up to eight per target; the dashboard reads the logs instead.
  const metrics = get('targetMetrics');
  if (metrics === 'all' || metrics === 'none') c.targetMetrics = metrics;
  else if (metrics === 'dashboard') c.targetMetrics = c.dashboardTargets;
  else if (metrics !== undefined) {
    c.targetMetrics = strings('targetMetrics', TARGET_NAME, 'a target name (or all, none, dashboard)');
    // Why: a typo (`wat`) would otherwise silently give no target its metrics.
    for (const name of c.targetMetrics.filter((n) => TARGET_NAME.test(n) && !c.dashboardTargets.includes(n)))
      problems.push(
        `targetMetrics: expected all, none, dashboard or names of targets (seeded or in dashboardTargets), found ${JSON.stringify(name)}`,
      );
  }

  const keyArn = get('secretsKeyArn');
  if (keyArn !== undefined) {
    if (typeof keyArn === 'string' && /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/.test(keyArn))
      c.secretsKeyArn = keyArn;
    else
      problems.push(
        `secretsKeyArn: expected a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>), found ${JSON.stringify(keyArn)}`,
      );
  }

  const vpcId = get('vpcId');
  const subnetIds = strings('subnetIds', /^subnet-([0-9a-f]{8}|[0-9a-f]{17})$/, 'a subnet id');
  const securityGroupIds = strings('securityGroupIds', /^sg-([0-9a-f]{8}|[0-9a-f]{17})$/, 'a security group id');
  if (vpcId !== undefined) {
    if (typeof vpcId !== 'string' || !/^vpc-([0-9a-f]{8}|[0-9a-f]{17})$/.test(vpcId))
      problems.push(`vpcId: ${JSON.stringify(vpcId)} is not a VPC id`);
    else if (subnetIds.length === 0)
      problems.push('subnetIds: required with vpcId (private subnets with a route to AWS APIs)');
    else c.vpc = { vpcId, subnetIds, securityGroupIds };
  } else if (subnetIds.length > 0 || securityGroupIds.length > 0) {
    problems.push('vpcId: required with subnetIds or securityGroupIds');
  }

  const repeat = get('repeatInterval');
  if (repeat !== undefined) {
    // The function's own reading of REPEAT_INTERVAL decides what is valid.
    const ms = typeof repeat === 'string' ? parseDuration(repeat) : null;
    if (ms !== null && ms > 0 && ms <= ENV.repeatInterval.maxMs) c.repeatInterval = repeat as string;
    else
      problems.push(
        `repeatInterval: expected a duration like 30m or 4h, at most ${formatDuration(ENV.repeatInterval.maxMs)}, found ${JSON.stringify(repeat)}`,
      );
  }
  // The Lambda's own ranges (the environment contract) decide what is valid.
  c.downAfterFailures = int('downAfterFailures', ENV.downAfterFailures);
  // Why: a cache of one interval expires on every other run; the default follows the schedule.
  c.configMaxAgeSeconds = int('configMaxAgeSeconds', {
    ...ENV.configMaxAgeSeconds,
    default: configMaxAgeFor(c.scheduleMinutes),
  });
  c.fetchConcurrency = int('fetchConcurrency', ENV.fetchConcurrency);

  if (problems.length > 0) throw new ConfigError(problems);
  return c;
}

export {
  type AlertsConfig,
  ConfigError,
  DEFAULT_CONFIG,
  integerReader,
  readConfig,
  type SeedTarget,
  type VpcPlacement,
};
