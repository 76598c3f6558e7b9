/**
 * The Lambda's environment, read and validated once at start-up. Every problem is listed.
 */

import { DEFAULT_DOWN_AFTER_FAILURES, DEFAULT_REPEAT_INTERVAL_MS } from '../core/constants.ts';
import { parseDuration } from '../core/rules/duration.ts';
import { z } from '../core/zod.ts';

const DEFAULT_SSM_PREFIX = '/httpd-status-alerts';
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
const DEFAULT_FETCH_CONCURRENCY = 16;

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
}

class EnvironmentError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid environment: ${problems.join('; ')}`);
    this.name = 'EnvironmentError';
    this.problems = problems;
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

const integer = (name: string, min: number, max: number, fallback: number) =>
  variable((v, fail) => {
    if (v === undefined || v === '') return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max)
      fail(`${name} expects a whole number from ${min} to ${max}, found "${v}"`);
    return n;
  });

const ENV_SCHEMA = z.object({
  SSM_PREFIX: variable((v, fail) => {
    const prefix = v === undefined || v === '' ? DEFAULT_SSM_PREFIX : v.replace(/\/+$/, '');
    if (!/^\/[A-Za-z0-9_.\-/]+$/.test(prefix))
      fail(`SSM_PREFIX expects a path like /httpd-status-alerts, found "${v}"`);
    return prefix;
  }),
  TOPIC_ARN: z
    .string({ error: 'TOPIC_ARN is required: the ARN of the SNS topic to publish to' })
    .check(z.regex(/^arn:[^:]+:sns:/, { error: 'TOPIC_ARN expects an SNS topic ARN (arn:aws:sns:...)' })),
  STATE_TABLE: z
    .string({ error: 'STATE_TABLE is required: the name of the DynamoDB state table' })
    .check(z.minLength(3, { error: 'STATE_TABLE expects a DynamoDB table name' })),
  REPEAT_INTERVAL: variable((v, fail) => {
    if (v === undefined || v === '') return DEFAULT_REPEAT_INTERVAL_MS;
    const ms = parseDuration(v);
    if (ms === null || ms <= 0) fail(`REPEAT_INTERVAL expects a duration like 4h or 30m, found "${v}"`);
    return ms as number;
  }),
  DOWN_AFTER_FAILURES: integer('DOWN_AFTER_FAILURES', 1, 100, DEFAULT_DOWN_AFTER_FAILURES),
  CONFIG_MAX_AGE_SECONDS: integer('CONFIG_MAX_AGE_SECONDS', 0, 86_400, DEFAULT_CONFIG_MAX_AGE_SECONDS),
  FETCH_CONCURRENCY: integer('FETCH_CONCURRENCY', 1, 1000, DEFAULT_FETCH_CONCURRENCY),
  CHATBOT_FORMAT: z.optional(z.enum(['true', 'false', ''], { error: 'CHATBOT_FORMAT expects true or false' })),
  CHATBOT_TOPIC_ARN: variable((v, fail) => {
    if (v === undefined || v === '') return null;
    if (!/^arn:[^:]+:sns:/.test(v)) fail(`CHATBOT_TOPIC_ARN expects an SNS topic ARN (arn:aws:sns:...), found "${v}"`);
    return v;
  }),
  SHARD_MODE: z.optional(z.enum(['none', 'sqs', ''], { error: 'SHARD_MODE expects none or sqs' })),
  SHARD_QUEUE_URL: z.optional(z.string()),
  TARGETS_PER_SHARD: integer('TARGETS_PER_SHARD', 10, 1000, 500),
  SHARD_MAX_AGE_SECONDS: integer('SHARD_MAX_AGE_SECONDS', 10, 86_400, 60),
  // Custom metrics cost per metric and month: opt-in, per target (the dashboard reads the logs).
  TARGET_METRICS: variable((v) => {
    const t = (v ?? '').trim();
    if (t === 'all') return 'all' as const;
    if (t === '' || t === 'none') return 'none' as const;
    return t
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
  }),
});

/**
 * Read the environment into a validated configuration.
 *
 * @example
 * const config = readRuntimeConfig(process.env);
 * @throws EnvironmentError listing every problem
 */
function readRuntimeConfig(env: Record<string, string | undefined>): RuntimeConfig {
  const parsed = ENV_SCHEMA.safeParse(env);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
  if (env.SHARD_MODE === 'sqs' && !env.SHARD_QUEUE_URL)
    problems.push('SHARD_QUEUE_URL is required when SHARD_MODE is sqs');
  if (!parsed.success || problems.length > 0) throw new EnvironmentError(problems);
  const v = parsed.data;
  return {
    ssmPrefix: v.SSM_PREFIX,
    topicArn: v.TOPIC_ARN,
    stateTable: v.STATE_TABLE,
    repeatIntervalMs: v.REPEAT_INTERVAL,
    downAfterFailures: v.DOWN_AFTER_FAILURES,
    configMaxAgeSeconds: v.CONFIG_MAX_AGE_SECONDS,
    fetchConcurrency: v.FETCH_CONCURRENCY,
    chatbotFormat: v.CHATBOT_FORMAT === 'true',
    chatbotTopicArn: v.CHATBOT_TOPIC_ARN,
    shardMode: v.SHARD_MODE === 'sqs' ? 'sqs' : 'none',
    shardQueueUrl: v.SHARD_QUEUE_URL || null,
    targetsPerShard: v.TARGETS_PER_SHARD,
    shardMaxAgeSeconds: v.SHARD_MAX_AGE_SECONDS,
    targetMetrics: v.TARGET_METRICS,
  };
}

export type { RuntimeConfig };

/** Whether `target` gets per-target metrics under the `TARGET_METRICS` setting. */
function wantsTargetMetrics(setting: RuntimeConfig['targetMetrics'], target: string): boolean {
  return setting === 'all' || (Array.isArray(setting) && setting.includes(target));
}

export {
  configMaxAgeFor,
  DEFAULT_CONFIG_MAX_AGE_SECONDS,
  DEFAULT_FETCH_CONCURRENCY,
  DEFAULT_SSM_PREFIX,
  EnvironmentError,
  readRuntimeConfig,
  wantsTargetMetrics,
};
