/**
 * The environment contract between the stack and the Lambda, as `src/core/emittedMetrics.ts` is
 * the one table of metrics: each variable's name, and for a number its range and default, written
 * once. The Lambda reads with it (environment.ts, forwarderEnvironment.ts); the stack sets with it
 * (infra/constructs), and checks its deploy options against the same ranges (infra/config.ts).
 * Pure: no AWS SDK, so infra imports it.
 */
import {
  DEFAULT_CLAIM_LEASE_MS,
  DEFAULT_DOWN_AFTER_FAILURES,
  DEFAULT_FETCH_CONCURRENCY,
  DEFAULT_PAGERDUTY_EVENTS_URL,
  DEFAULT_REPEAT_INTERVAL_MS,
  DEFAULT_SSM_PREFIX,
  DEFAULT_TARGETS_PER_SHARD,
  MAX_REPEAT_INTERVAL_MS,
} from '../core/constants.ts';

/** Runs per SSM read on a warm container: a configuration change takes effect within this many runs. */
const RUNS_PER_CONFIG_READ = 5;

/**
 * The configuration cache's lifetime for a schedule: `RUNS_PER_CONFIG_READ` intervals less half of
 * one, so that the runs in between reuse it even when a run starts late or early (a lifetime of
 * exactly one interval would expire on every other run, by a few milliseconds either way).
 *
 * @example
 * configMaxAgeFor(1); // 270: SSM is read on every fifth run of a one-minute schedule
 */
function configMaxAgeFor(scheduleMinutes: number): number {
  return (RUNS_PER_CONFIG_READ - 0.5) * scheduleMinutes * 60;
}

/** The stack's default schedule is one minute (infra/config.ts). */
const DEFAULT_CONFIG_MAX_AGE_SECONDS = configMaxAgeFor(1);

/** The function's timeout when the stack is given none, and the longest Lambda allows (15 minutes). */
const DEFAULT_FUNCTION_TIMEOUT_SECONDS = 60;
const MAX_FUNCTION_TIMEOUT_SECONDS = 900;

/**
 * A claim's lease, in function timeouts. The lease must outlive the run that took the claim: that
 * run may still be publishing the claim's pages up to its timeout, and a run that took the claim
 * over before then would page them a second time while the first is still at it. Twice leaves
 * the margin for a claim taken late in a run and for clocks that differ between containers.
 */
const LEASE_TIMEOUTS = 2;
const DEFAULT_CLAIM_LEASE_SECONDS = DEFAULT_CLAIM_LEASE_MS / 1000;

/**
 * The lease the stack sets for a function timeout: `LEASE_TIMEOUTS` timeouts, never less than the
 * 5-minute default (a short timeout keeps the lease it always had).
 *
 * @example
 * claimLeaseSecondsFor(60); // 300
 * claimLeaseSecondsFor(900); // 1800
 */
function claimLeaseSecondsFor(timeoutSeconds: number): number {
  return Math.max(DEFAULT_CLAIM_LEASE_SECONDS, LEASE_TIMEOUTS * timeoutSeconds);
}

/**
 * Why a lease is too short for a function timeout (null: it is long enough). The stack checks its
 * function at synth time with it; the Lambda, the variables it is given.
 *
 * @example
 * claimLeaseProblem(300, 900); // 'CLAIM_LEASE_SECONDS expects at least 1800 ...'
 */
function claimLeaseProblem(leaseSeconds: number, timeoutSeconds: number): string | null {
  const least = LEASE_TIMEOUTS * timeoutSeconds;
  if (leaseSeconds >= least) return null;
  return (
    `${MONITOR_ENVIRONMENT.claimLeaseSeconds.name} expects at least ${least} (${LEASE_TIMEOUTS} x the function's ` +
    `${timeoutSeconds} s timeout), found ${leaseSeconds}: a run still publishing at its timeout would lose its claims to the next run`
  );
}

/** A whole-number variable: what the Lambda accepts, and what it uses when the variable is unset. */
interface IntegerVariable {
  name: string;
  min: number;
  max: number;
  default: number;
}

/** Any other variable: its name, and a default when the Lambda has one. */
interface OtherVariable {
  name: string;
  default?: string;
  defaultMs?: number;
  /** A duration's longest value. */
  maxMs?: number;
}

/** The monitor function's variables (handler.ts and shardedHandler.ts). */
const MONITOR_ENVIRONMENT = {
  ssmPrefix: { name: 'SSM_PREFIX', default: DEFAULT_SSM_PREFIX },
  topicArn: { name: 'TOPIC_ARN' },
  stateTable: { name: 'STATE_TABLE' },
  /** A duration (`4h`, `30m`). */
  repeatInterval: { name: 'REPEAT_INTERVAL', defaultMs: DEFAULT_REPEAT_INTERVAL_MS, maxMs: MAX_REPEAT_INTERVAL_MS },
  downAfterFailures: { name: 'DOWN_AFTER_FAILURES', min: 1, max: 100, default: DEFAULT_DOWN_AFTER_FAILURES },
  configMaxAgeSeconds: {
    name: 'CONFIG_MAX_AGE_SECONDS',
    min: 0,
    max: 86_400,
    default: DEFAULT_CONFIG_MAX_AGE_SECONDS,
  },
  fetchConcurrency: { name: 'FETCH_CONCURRENCY', min: 1, max: 1000, default: DEFAULT_FETCH_CONCURRENCY },
  /** `true` or `false`. */
  chatbotFormat: { name: 'CHATBOT_FORMAT' },
  /** Set by the stack only with `-c chatbotTopic=true`. */
  chatbotTopicArn: { name: 'CHATBOT_TOPIC_ARN' },
  /** `all`, `none` or target names separated by commas. */
  targetMetrics: { name: 'TARGET_METRICS' },
  /**
   * Secrets every target may name besides its own `<prefix>/secrets/<target>` (and below), separated
   * by commas; each under `<prefix>/secrets/`. Empty: none.
   */
  sharedSecretParameters: { name: 'SHARED_SECRET_PARAMETERS' },
  /**
   * The discovery sources the deployment enabled (`ec2`, `autoscaling`, `elbv2`), separated by
   * commas; the function's role may call only theirs. Unset or empty: none (a discovery document
   * then fails to list as "source not enabled").
   */
  discoverySources: { name: 'DISCOVERY_SOURCES' },
  /** `none` or `sqs`; the shard variables below are set by the stack only in sharded mode. */
  shardMode: { name: 'SHARD_MODE' },
  shardQueueUrl: { name: 'SHARD_QUEUE_URL' },
  targetsPerShard: { name: 'TARGETS_PER_SHARD', min: 10, max: 1000, default: DEFAULT_TARGETS_PER_SHARD },
  /** The run cadence in seconds: a shard older than this is obsolete. */
  shardMaxAgeSeconds: { name: 'SHARD_MAX_AGE_SECONDS', min: 10, max: 86_400, default: 60 },
  /** The function's timeout, as the stack set it: the Lambda cannot read its own before a run. */
  functionTimeoutSeconds: {
    name: 'FUNCTION_TIMEOUT_SECONDS',
    min: 1,
    max: MAX_FUNCTION_TIMEOUT_SECONDS,
    default: DEFAULT_FUNCTION_TIMEOUT_SECONDS,
  },
  /** How long a claim keeps other runs off a state item: at least `LEASE_TIMEOUTS` function timeouts. */
  claimLeaseSeconds: {
    name: 'CLAIM_LEASE_SECONDS',
    min: LEASE_TIMEOUTS,
    max: 86_400,
    default: DEFAULT_CLAIM_LEASE_SECONDS,
  },
  /**
   * `host:port` of the Lambda runtime API, set by the Lambda service (never by the stack): the
   * address policy refuses it to every target. Unset outside a Lambda.
   */
  runtimeApi: { name: 'AWS_LAMBDA_RUNTIME_API' },
} as const satisfies Record<string, OtherVariable | IntegerVariable>;

/** The PagerDuty forwarder's variables (pagerDutyHandler.ts). */
const FORWARDER_ENVIRONMENT = {
  routingKeyParameter: { name: 'PAGERDUTY_ROUTING_KEY_PARAMETER' },
  eventsUrl: { name: 'PAGERDUTY_EVENTS_URL', default: DEFAULT_PAGERDUTY_EVENTS_URL },
  /** How long a decrypted routing key is reused by a warm function before SSM is asked again. */
  routingKeyMaxAgeSeconds: { name: 'ROUTING_KEY_MAX_AGE_SECONDS', min: 0, max: 86_400, default: 300 },
  /** One PagerDuty incident per alert group (`group`, the default) or per alert (`alert`). */
  eventsPer: { name: 'PAGERDUTY_EVENTS_PER', default: 'group' },
  /** The state table: the last order accepted per dedup_key and the pace per routing key. */
  stateTable: { name: 'STATE_TABLE' },
} as const satisfies Record<string, OtherVariable | IntegerVariable>;

/** What the stack knows when it creates the monitor function. */
interface MonitorValues {
  ssmPrefix: string;
  topicArn: string;
  stateTable: string;
  repeatInterval: string;
  downAfterFailures: number;
  configMaxAgeSeconds: number;
  fetchConcurrency: number;
  chatbotFormat: boolean;
  targetMetrics: 'all' | 'none' | string[];
  sharedSecretParameters: readonly string[];
  /** The discovery sources enabled (absent or empty: none, and the variable is not set). */
  discoverySources?: readonly string[];
  /** The function's timeout: the claim lease is derived from it (`claimLeaseSecondsFor`). */
  timeoutSeconds: number;
}

/**
 * The monitor function's variables, by name, in the form the Lambda reads them.
 *
 * @example
 * monitorVariables({ ...values, targetMetrics: [] }).TARGET_METRICS; // 'none'
 */
function monitorVariables(values: MonitorValues): Record<string, string> {
  const e = MONITOR_ENVIRONMENT;
  return {
    [e.ssmPrefix.name]: values.ssmPrefix,
    [e.topicArn.name]: values.topicArn,
    [e.stateTable.name]: values.stateTable,
    [e.repeatInterval.name]: values.repeatInterval,
    [e.downAfterFailures.name]: String(values.downAfterFailures),
    [e.configMaxAgeSeconds.name]: String(values.configMaxAgeSeconds),
    [e.fetchConcurrency.name]: String(values.fetchConcurrency),
    [e.chatbotFormat.name]: String(values.chatbotFormat),
    // An empty list means no target: `none`, as the function also reads an empty value.
    [e.targetMetrics.name]: Array.isArray(values.targetMetrics)
      ? values.targetMetrics.join(',') || 'none'
      : values.targetMetrics,
    [e.sharedSecretParameters.name]: values.sharedSecretParameters.join(','),
    [e.functionTimeoutSeconds.name]: String(values.timeoutSeconds),
    [e.claimLeaseSeconds.name]: String(claimLeaseSecondsFor(values.timeoutSeconds)),
    ...((values.discoverySources?.length ?? 0) > 0
      ? { [e.discoverySources.name]: values.discoverySources?.join(',') ?? '' }
      : {}),
  };
}

/** The variables sharded mode adds to the monitor function. */
function shardVariables(values: { queueUrl: string; targetsPerShard: number; maxAgeSeconds: number }) {
  const e = MONITOR_ENVIRONMENT;
  return {
    [e.shardMode.name]: 'sqs',
    [e.shardQueueUrl.name]: values.queueUrl,
    [e.targetsPerShard.name]: String(values.targetsPerShard),
    [e.shardMaxAgeSeconds.name]: String(values.maxAgeSeconds),
  } satisfies Record<string, string>;
}

/** The PagerDuty forwarder's variables. */
function forwarderVariables(values: {
  routingKeyParameter: string;
  eventsUrl: string;
  eventsPer: string;
  stateTable: string;
}): Record<string, string> {
  const e = FORWARDER_ENVIRONMENT;
  return {
    [e.routingKeyParameter.name]: values.routingKeyParameter,
    [e.eventsUrl.name]: values.eventsUrl,
    [e.eventsPer.name]: values.eventsPer,
    [e.stateTable.name]: values.stateTable,
  };
}

export type { IntegerVariable, MonitorValues };
export {
  claimLeaseProblem,
  claimLeaseSecondsFor,
  configMaxAgeFor,
  DEFAULT_CONFIG_MAX_AGE_SECONDS,
  DEFAULT_FUNCTION_TIMEOUT_SECONDS,
  FORWARDER_ENVIRONMENT,
  forwarderVariables,
  LEASE_TIMEOUTS,
  MAX_FUNCTION_TIMEOUT_SECONDS,
  MONITOR_ENVIRONMENT,
  monitorVariables,
  shardVariables,
};
