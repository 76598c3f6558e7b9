/**
 * One scheduled run: configuration, every target fetched concurrently (bounded), parsed,
 * evaluated, published and committed, metrics. One slow or broken target never delays or fails
 * the others; a page SNS did not accept fails the run visibly after every target was handled.
 */
import { randomUUID } from 'node:crypto';
import type { StateTable } from './adapters/dynamoStateStore.ts';
import { fetchAll, inStartOrder } from './adapters/fetchAll.ts';
import type { FetchResult, FetchTarget } from './adapters/httpStatusSource.ts';
import type { Notifier } from './adapters/snsNotifier.ts';
import type { ConfigSource } from './adapters/ssmConfigSource.ts';
import { commitEvaluation } from './commit.ts';
import { evaluateTarget } from './core/alerts/evaluateTarget.ts';
import type { EvaluateOptions, Observation } from './core/alerts/types.ts';
import { NotAStatusReportError } from './core/errors.ts';
import { ConfigurationError, type MonitorConfig, type TargetConfig } from './core/monitorConfig.ts';
import { parseReport } from './core/report/parse.ts';
import type { MetricResult } from './core/rules/compute.ts';
import { resolveConfig } from './runConfig.ts';

interface TargetMetrics {
  target: string;
  up: boolean;
  fetchLatencyMs: number;
  /** The catalogue's metrics exactly as the rules saw them (`EvaluateResult.metrics`). */
  metrics: ReadonlyMap<string, MetricResult>;
}

interface MetricsSink {
  target(values: TargetMetrics): void;
  run(values: { alertsSent: number; targets: number; targetsDown: number }): void;
}

interface Logger {
  info(message: string, extra: Record<string, unknown>): void;
  warn(message: string, extra: Record<string, unknown>): void;
  error(message: string, extra: Record<string, unknown>): void;
}

interface CycleDeps {
  config: ConfigSource;
  table: StateTable;
  notifier: Notifier;
  fetch(target: FetchTarget): Promise<FetchResult>;
  metrics: MetricsSink;
  logger: Logger;
  concurrency: number;
  evaluate: Partial<EvaluateOptions>;
  /** How long a claim on an alert blocks other runs (covers one run's publish). */
  claimLeaseMs: number;
  /** Start order: higher first (`LatencyMemory.priority`); default name order. */
  fetchPriority?(target: string): number;
}

interface CycleSummary {
  targets: number;
  down: number;
  sent: number;
  skipped: number;
  failed: number;
  conflicts: number;
  configError: string | null;
}

class PublishFailedError extends Error {
  constructor(count: number, options?: ErrorOptions) {
    super(`expected SNS to accept every page, found ${count} rejected; they are sent again on the next run`, options);
    this.name = 'PublishFailedError';
  }
}

async function fetchTargetFor(target: TargetConfig, config: ConfigSource): Promise<FetchTarget> {
  const base: FetchTarget = { name: target.name, url: target.url };
  if (target.timeoutMs !== undefined) base.timeoutMs = target.timeoutMs;
  if (target.maxBytes !== undefined) base.maxBytes = target.maxBytes;
  if (target.authParameter !== undefined) {
    const secret = await config.getSecret(target.authParameter);
    const colon = secret.indexOf(':');
    if (colon < 0)
      throw new ConfigurationError([
        {
          parameter: target.authParameter,
          field: null,
          message: 'expected "user:password", found a value without ":"',
        },
      ]);
    base.auth = { username: secret.slice(0, colon), password: secret.slice(colon + 1) };
  }
  if (target.caBundleParameter !== undefined) base.ca = await config.getSecret(target.caBundleParameter);
  return base;
}

/** What this run learnt about one target: its report, or why there is none. */
async function observe(
  target: TargetConfig,
  deps: CycleDeps,
): Promise<{ observation: Observation; latencyMs: number }> {
  let request: FetchTarget;
  try {
    request = await fetchTargetFor(target, deps.config);
  } catch (error) {
    return { observation: { kind: 'down', reason: 'config', detail: (error as Error).message }, latencyMs: 0 };
  }
  const result = await deps.fetch(request);
  if (!result.ok)
    return { observation: { kind: 'down', reason: result.reason, detail: result.detail }, latencyMs: result.latencyMs };
  try {
    return { observation: { kind: 'report', report: parseReport(result.body) }, latencyMs: result.latencyMs };
  } catch (error) {
    if (!(error instanceof NotAStatusReportError)) throw error;
    const detail = `HTTP ${result.status} from ${result.url} is not a server-status report: ${error.message}`;
    return { observation: { kind: 'down', reason: 'not-a-report', detail }, latencyMs: result.latencyMs };
  }
}

/**
 * Run one cycle at `now`.
 *
 * @example
 * await runCycle(deps, new Date());
 * @throws PublishFailedError when SNS rejected a page (after every target was handled)
 */
async function runCycle(deps: CycleDeps, now: Date): Promise<CycleSummary> {
  const { config, error: configError, publishError } = await resolveConfig(deps, now);
  if (config === null) {
    deps.logger.error('no valid configuration yet: nothing checked', { configError });
    if (publishError) throw new PublishFailedError(1, { cause: publishError });
    return { targets: 0, down: 0, sent: 0, skipped: 0, failed: 0, conflicts: 0, configError };
  }
  return checkTargets(deps, config, now, { configError, failures: publishError ? [publishError] : [] });
}

/**
 * The per-target half of a run: fetch, parse, evaluate, publish, commit, metrics. The sharded
 * mode calls it directly with one shard's configuration.
 *
 * @throws PublishFailedError when SNS rejected a page (after every target was handled)
 */
async function checkTargets(
  deps: CycleDeps,
  config: MonitorConfig,
  now: Date,
  carried: { configError: string | null; failures: unknown[] } = { configError: null, failures: [] },
): Promise<CycleSummary> {
  const token = randomUUID();
  const summary: CycleSummary = {
    targets: 0,
    down: 0,
    sent: 0,
    skipped: 0,
    failed: 0,
    conflicts: 0,
    configError: carried.configError,
  };
  const failures = [...carried.failures];
  // One batched read of every target's state, while the first fetches run (a fetch needs no state);
  // the conditional writes guard against overlap.
  const storing = deps.table.loadMany(config.targets.map((t) => t.name));
  // Handled here too: it may reject before any fetch has finished and awaited it.
  storing.catch(() => {});
  const targets = inStartOrder(config.targets, deps.fetchPriority);
  await fetchAll(targets, deps.concurrency, async (target) => {
    const { observation, latencyMs } = await observe(target, deps);
    const stored = await storing;
    const loaded = stored.get(target.name) ?? { state: null, targetVersion: null, alertVersions: {} };
    const result = evaluateTarget({
      target: target.name,
      labels: target.labels,
      maxRequestWorkers: target.maxRequestWorkers ?? null,
      observation,
      rules: config.rules,
      silences: config.silences,
      previous: loaded.state,
      now,
      options: deps.evaluate,
    });
    const outcome = await commitEvaluation(deps.table, deps.notifier, loaded, result, now, {
      token,
      leaseMs: deps.claimLeaseMs,
    });
    summary.targets++;
    if (observation.kind === 'down') {
      summary.down++;
      deps.logger.warn('target down', { target: target.name, reason: observation.reason, detail: observation.detail });
    }
    summary.sent += outcome.sent.length;
    summary.skipped += outcome.skipped.length;
    summary.failed += outcome.failed.length;
    summary.conflicts += outcome.conflicts;
    for (const { notification, error } of outcome.failed) {
      failures.push(error);
      deps.logger.error('publish failed', {
        target: target.name,
        rule: notification.rule,
        error: (error as Error).message,
      });
    }
    deps.metrics.target({
      target: target.name,
      up: observation.kind === 'report',
      fetchLatencyMs: latencyMs,
      metrics: result.metrics,
    });
  }).catch(async (error: unknown) => {
    await storing; // a failed state read is the run's one error, not one per target
    throw error;
  });
  deps.metrics.run({ alertsSent: summary.sent, targets: summary.targets, targetsDown: summary.down });
  deps.logger.info('run complete', { ...summary });
  if (failures.length > 0) throw new PublishFailedError(failures.length, { cause: new AggregateError(failures) });
  return summary;
}

export type { CycleDeps, CycleSummary, Logger, MetricsSink, TargetMetrics };
export { checkTargets, PublishFailedError, runCycle };
