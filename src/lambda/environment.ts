/**
 * The Lambdas' environment, read and validated once at start-up. Every problem is listed. The
 * readers here (`variable`, `integer`, `readEnvironment`) are the ones every function's
 * environment goes through: the monitor's below, the PagerDuty forwarder's in forwarderEnvironment.ts.
 * A value found is shown as a JSON string, so that a stray quote or line break shows.
 */
import type * as zm from 'zod/mini';
import { parseRuntimeApi, type RuntimeApiEndpoint } from '../core/addressPolicy.ts';
import { DISCOVERY_SOURCES, type DiscoverySourceName } from '../core/discovery/document.ts';
import { ProblemListError } from '../core/errors.ts';
import { SSM_PREFIX, secretsFolder } from '../core/monitorConfig.ts';
import { formatDuration, parseDuration } from '../core/rules/duration.ts';
import { z } from '../core/zod.ts';
import { claimLeaseProblem, MONITOR_ENVIRONMENT as E, type IntegerVariable } from './environmentContract.ts';

interface RuntimeConfig {
  ssmPrefix: string;
  topicArn: string;
  stateTable: string;
  repeatIntervalMs: number;
  downAfterFailures: number;
  configMaxAgeSeconds: number;
  fetchConcurrency: number;
  chatbotFormat: boolean;
  /** Topic that gets a copy of every page in AWS Chatbot's format (`-c chatbotTopic=true`); null: none. */
  chatbotTopicArn: string | null;
  /** `sqs`: the scheduled run dispatches shards to `shardQueueUrl`; the queue feeds them back. */
  shardMode: 'none' | 'sqs';
  shardQueueUrl: string | null;
  targetsPerShard: number;
  shardMaxAgeSeconds: number;
  /** Which targets get per-target CloudWatch metrics: every one, none (default), or the names listed. */
  targetMetrics: 'all' | 'none' | string[];
  /** Secrets every target may name besides its own (each under `<prefix>/secrets/`). */
  sharedSecretParameters: string[];
  /** How long a claim keeps other runs off a state item: at least twice the function's timeout. */
  claimLeaseMs: number;
  /** The discovery sources the deployment enabled (a client each, an IAM grant each). */
  discoverySources: DiscoverySourceName[];
  /** The Lambda runtime API (`AWS_LAMBDA_RUNTIME_API`), refused to every target; null outside a Lambda. */
  runtimeApi: RuntimeApiEndpoint | null;
}

class EnvironmentError extends ProblemListError {
  constructor(problems: string[]) {
    super(`invalid environment: ${problems.join('; ')}`, problems);
    this.name = 'EnvironmentError';
  }
}

/** An optional variable read by `read`, which reports a problem with `fail` and returns its value. */
function variable<T>(read: (value: string | undefined, fail: (message: string) => never) => T) {
  return z.pipe(
    z.optional(z.string()),
    z.transform((value: string | undefined, ctx) => {
      try {
        return read(value, (message) => {
          throw new Problem(message);
        });
      } catch (error) {
        if (!(error instanceof Problem)) throw error;
        ctx.issues.push({ code: 'custom', message: error.message, input: value });
        return z.NEVER;
      }
    }),
  );
}

/** Carries a problem out of a reader; caught by `variable`. */
class Problem extends Error {}

/** A whole number within the variable's bounds; its default when unset or empty. */
const integer = ({ name, min, max, default: fallback }: IntegerVariable) =>
  variable((v, fail) => {
    if (v === undefined || v === '') return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max)
      fail(`${name} expects a whole number from ${min} to ${max}, found ${JSON.stringify(v)}`);
    return n;
  });

const ENV_SCHEMA = z.object({
  [E.ssmPrefix.name]: variable((v, fail) => {
    const prefix = v === undefined || v === '' ? E.ssmPrefix.default : v.replace(/\/+$/, '');
    if (!SSM_PREFIX.test(prefix))
      fail(`${E.ssmPrefix.name} expects a path like /httpd-status-alerts, found ${JSON.stringify(v)}`);
    return prefix;
  }),
  [E.topicArn.name]: z
    .string({ error: `${E.topicArn.name} is required: the ARN of the SNS topic to publish to` })
    .check(z.regex(/^arn:[^:]+:sns:/, { error: `${E.topicArn.name} expects an SNS topic ARN (arn:aws:sns:...)` })),
  [E.stateTable.name]: z
    .string({ error: `${E.stateTable.name} is required: the name of the DynamoDB state table` })
    .check(z.minLength(3, { error: `${E.stateTable.name} expects a DynamoDB table name` })),
  [E.repeatInterval.name]: variable((v, fail) => {
    if (v === undefined || v === '') return E.repeatInterval.defaultMs;
    const ms = parseDuration(v);
    if (ms === null || ms <= 0 || ms > E.repeatInterval.maxMs)
      fail(
        `${E.repeatInterval.name} expects a duration like 4h or 30m, at most ${formatDuration(E.repeatInterval.maxMs)}, found ${JSON.stringify(v)}`,
      );
    return ms as number;
  }),
  [E.downAfterFailures.name]: integer(E.downAfterFailures),
  [E.configMaxAgeSeconds.name]: integer(E.configMaxAgeSeconds),
  [E.fetchConcurrency.name]: integer(E.fetchConcurrency),
  [E.chatbotFormat.name]: z.optional(
    z.enum(['true', 'false', ''], { error: `${E.chatbotFormat.name} expects true or false` }),
  ),
  [E.chatbotTopicArn.name]: variable((v, fail) => {
    if (v === undefined || v === '') return null;
    if (!/^arn:[^:]+:sns:/.test(v))
      fail(`${E.chatbotTopicArn.name} expects an SNS topic ARN (arn:aws:sns:...), found ${JSON.stringify(v)}`);
    return v;
  }),
  [E.shardMode.name]: z.optional(z.enum(['none', 'sqs', ''], { error: `${E.shardMode.name} expects none or sqs` })),
  [E.shardQueueUrl.name]: z.optional(z.string()),
  [E.targetsPerShard.name]: integer(E.targetsPerShard),
  [E.shardMaxAgeSeconds.name]: integer(E.shardMaxAgeSeconds),
  [E.functionTimeoutSeconds.name]: integer(E.functionTimeoutSeconds),
  [E.claimLeaseSeconds.name]: integer(E.claimLeaseSeconds),
  // Custom metrics cost per metric and month: opt-in, per target (the dashboard reads the logs).
  [E.targetMetrics.name]: variable((v) => {
    const t = (v ?? '').trim();
    if (t === 'all') return 'all' as const;
    if (t === '' || t === 'none') return 'none' as const;
    return t
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
  }),
  // Checked against the prefix in `sharedSecretProblems`, which knows it.
  [E.sharedSecretParameters.name]: variable((v) => listOf(v)),
  [E.discoverySources.name]: variable((v, fail) => {
    const names = [...new Set(listOf(v))];
    const unknown = names.filter((n) => !(DISCOVERY_SOURCES as readonly string[]).includes(n));
    if (unknown.length > 0)
      fail(
        `${E.discoverySources.name} expects ${DISCOVERY_SOURCES.join(', ')} separated by commas, found ${JSON.stringify(unknown.join(','))}`,
      );
    return names as DiscoverySourceName[];
  }),
  [E.runtimeApi.name]: variable((v, fail) => {
    if (v === undefined || v === '') return null;
    return (
      parseRuntimeApi(v) ??
      fail(`${E.runtimeApi.name} expects host:port such as 127.0.0.1:9001, found ${JSON.stringify(v)}`)
    );
  }),
});

/** A comma-separated list, its items trimmed, empty ones dropped. */
function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * The variables `schema` reads from `env`, after its own problems and `more` (checks across
 * variables) were all listed.
 * @throws EnvironmentError listing every problem
 */
function readEnvironment<S extends zm.ZodMiniType>(
  schema: S,
  env: Record<string, string | undefined>,
  more: (env: Record<string, string | undefined>) => string[] = () => [],
): zm.output<S> {
  const parsed = schema.safeParse(env);
  const problems = [...(parsed.success ? [] : parsed.error.issues.map((issue) => issue.message)), ...more(env)];
  if (!parsed.success || problems.length > 0) throw new EnvironmentError(problems);
  return parsed.data;
}

/** A sharded run needs its queue. */
function shardProblems(env: Record<string, string | undefined>): string[] {
  return env[E.shardMode.name] === 'sqs' && !env[E.shardQueueUrl.name]
    ? [`${E.shardQueueUrl.name} is required when ${E.shardMode.name} is sqs`]
    : [];
}

/** A shared secret is a SecureString under `<prefix>/secrets/`, the one folder the function may decrypt. */
function sharedSecretProblems(env: Record<string, string | undefined>): string[] {
  const prefix = (env[E.ssmPrefix.name] || E.ssmPrefix.default).replace(/\/+$/, '');
  const folder = secretsFolder(prefix);
  return listOf(env[E.sharedSecretParameters.name])
    .filter((name) => !name.startsWith(folder) || name.length === folder.length)
    .map(
      (name) =>
        `${E.sharedSecretParameters.name} expects parameter names under ${folder}, separated by commas, found ${JSON.stringify(name)}`,
    );
}

/**
 * The claim lease outlives the function's timeout (`claimLeaseProblem`). Checked only when both
 * are whole numbers: a value that is not has its own problem listed.
 */
function leaseProblems(env: Record<string, string | undefined>): string[] {
  const read = ({ name, default: fallback }: IntegerVariable) => {
    const v = env[name];
    return v === undefined || v === '' ? fallback : Number(v);
  };
  const lease = read(E.claimLeaseSeconds);
  const timeout = read(E.functionTimeoutSeconds);
  if (!Number.isInteger(lease) || !Number.isInteger(timeout)) return [];
  const problem = claimLeaseProblem(lease, timeout);
  return problem === null ? [] : [problem];
}

/**
 * Read the environment into a validated configuration.
 *
 * @example
 * const config = readRuntimeConfig(process.env);
 * @throws EnvironmentError listing every problem
 */
function readRuntimeConfig(env: Record<string, string | undefined>): RuntimeConfig {
  const v = readEnvironment(ENV_SCHEMA, env, (raw) => [
    ...shardProblems(raw),
    ...leaseProblems(raw),
    ...sharedSecretProblems(raw),
  ]);
  return {
    ssmPrefix: v[E.ssmPrefix.name],
    topicArn: v[E.topicArn.name],
    stateTable: v[E.stateTable.name],
    repeatIntervalMs: v[E.repeatInterval.name],
    downAfterFailures: v[E.downAfterFailures.name],
    configMaxAgeSeconds: v[E.configMaxAgeSeconds.name],
    fetchConcurrency: v[E.fetchConcurrency.name],
    chatbotFormat: v[E.chatbotFormat.name] === 'true',
    chatbotTopicArn: v[E.chatbotTopicArn.name],
    shardMode: v[E.shardMode.name] === 'sqs' ? 'sqs' : 'none',
    shardQueueUrl: v[E.shardQueueUrl.name] || null,
    targetsPerShard: v[E.targetsPerShard.name],
    shardMaxAgeSeconds: v[E.shardMaxAgeSeconds.name],
    targetMetrics: v[E.targetMetrics.name],
    sharedSecretParameters: v[E.sharedSecretParameters.name],
    claimLeaseMs: v[E.claimLeaseSeconds.name] * 1000,
    discoverySources: v[E.discoverySources.name],
    runtimeApi: v[E.runtimeApi.name],
  };
}

export type { RuntimeConfig };

/** Whether `target` gets per-target metrics under the `TARGET_METRICS` setting. */
function wantsTargetMetrics(setting: RuntimeConfig['targetMetrics'], target: string): boolean {
  return setting === 'all' || (Array.isArray(setting) && setting.includes(target));
}

export { EnvironmentError, integer, readEnvironment, readRuntimeConfig, variable, wantsTargetMetrics };
