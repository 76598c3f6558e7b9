/**
 * One scheduled run: configuration, every target fetched concurrently (bounded), parsed,
 * evaluated, published and committed, metrics. One slow or broken target never delays or fails
 * the others: a fetch, storage or publish failure of one target is logged and counted, every
 * other target, the heartbeat and the run's metrics still happen, and the run fails visibly at
 * the end. A steady run (no alert changes) writes nothing per target: counters live in the warm
 * container and reach the table every `checkpointIntervalMs`.
 */
import type { Silence } from '../core/alerts/silences.ts';
import { DEFAULT_REPEAT_INTERVAL_MS, FETCH_PATIENCE_MS } from '../core/constants.ts';
import { downObservation } from '../core/downObservation.ts';
import { NotAStatusReportError } from '../core/errors.ts';
import type { EvaluateResult } from '../core/evaluate.ts';
import {
  ConfigurationError,
  type MonitorConfig,
  type SecretScope,
  type TargetConfig,
  targetScopeProblems,
} from '../core/monitorConfig.ts';
import { parseReport } from '../core/report/parse.ts';
import type { Observation } from '../core/rules/types.ts';
import { CLAIM_OUTCOMES } from './accounting/claim.ts';
import { GroupInbox, groupingRouter } from './accounting/groupInbox.ts';
import { flushGroups } from './accounting/groupItems.ts';
import { openGroups } from './accounting/groupRegistry.ts';
import { targetKey } from './accounting/targetItems.ts';
import { checkTarget } from './checkTarget.ts';
import { fetchAll, inStartOrder } from './concurrency.ts';
import { oweRemovals } from './config/removals.ts';
import { resolveConfig } from './config/resolve.ts';
import type { ConfigSource, CycleDeps, FetchTarget, PageRouter, StoredState } from './ports.ts';
import { leaseOf, type RunContext, startRun } from './runContext.ts';

interface CycleSummary {
  targets: number;
  down: number;
  sent: number;
  /** Targets another run held or changed meanwhile: left to that run. */
  skipped: number;
  /** Pages SNS refused, and targets whose storage failed. */
  failed: number;
  conflicts: number;
  /** Conditional writes to the state table (claims, commits, changes, checkpoints). */
  writes: number;
  configError: string | null;
}

/**
 * What to fetch for `target`, its secrets read. The parameters it names are checked against the
 * scope again right before they are read (defense in depth: a configuration that reached here by
 * another path, a shard message or a stored copy, still cannot read another target's secret).
 *
 * @throws ConfigurationError when a parameter is out of scope or a secret is not `user:password`
 */
async function fetchTargetFor(target: TargetConfig, config: ConfigSource, scope: SecretScope): Promise<FetchTarget> {
  const outOfScope = targetScopeProblems(target, scope);
  if (outOfScope.length > 0)
    throw new ConfigurationError(
      outOfScope.map(({ field, message }) => ({ parameter: `target ${target.name}`, field, message })),
    );
  const base: FetchTarget = { name: target.name, url: target.url };
  if (target.timeoutMs !== undefined) base.timeoutMs = target.timeoutMs;
  if (target.maxBytes !== undefined) base.maxBytes = target.maxBytes;
  if (target.allowLoopback === true) base.allowLoopback = true;
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

/** What this run learnt about one target: its report, or why there is none (its detail cleaned: `downObservation`). */
async function observe(
  target: TargetConfig,
  deps: Pick<CycleDeps, 'config' | 'fetch' | 'secretScope'>,
): Promise<{ observation: Observation; latencyMs: number }> {
  let request: FetchTarget;
  try {
    request = await fetchTargetFor(target, deps.config, deps.secretScope);
  } catch (error) {
    return { observation: downObservation('config', (error as Error).message), latencyMs: 0 };
  }
  const result = await deps.fetch(request);
  if (!result.ok) return { observation: downObservation(result.reason, result.detail), latencyMs: result.latencyMs };
  try {
    return { observation: { kind: 'report', report: parseReport(result.body) }, latencyMs: result.latencyMs };
  } catch (error) {
    if (!(error instanceof NotAStatusReportError)) throw error;
    const detail = `HTTP ${result.status} from ${result.url} is not a server-status report: ${error.message}`;
    return { observation: downObservation('not-a-report', detail), latencyMs: result.latencyMs };
  }
}

/** A run's grouping: the inbox its targets hand grouped pages to, and the router taking them there. */
interface RunGroups {
  inbox: GroupInbox;
  router: PageRouter & { published: number };
}

function runGroups(ctx: RunContext): RunGroups {
  const { deps, now } = ctx;
  const inbox = new GroupInbox(deps.table, now, deps.groupLimits);
  return { inbox, router: groupingRouter(deps.notifier, inbox, deps.logger) };
}

/**
 * Page the groups this run handed pages to (and, with `all`, every open group: one may be due
 * although nothing of it changed), with the silences in force. Adds to the run's ledger every page
 * SNS accepted (straight from the run's router, and its groups' pages), the groups' writes,
 * failures and conflicts; answers how many of the groups' pages and items failed.
 */
async function sendGroups(
  ctx: RunContext,
  groups: RunGroups,
  sending: { all: boolean; silences: readonly Silence[] },
): Promise<{ failed: number }> {
  const { deps, now, ledger } = ctx;
  let keys = [...groups.inbox.touched];
  if (sending.all) {
    try {
      keys = [...keys, ...(await openGroups(deps.table))];
    } catch (error) {
      ledger.stateFailures.push(error);
      deps.logger.error('open groups unreadable', { error: (error as Error).message });
    }
  }
  const options = {
    ...leaseOf(ctx),
    repeatIntervalMs: deps.evaluate.repeatIntervalMs ?? DEFAULT_REPEAT_INTERVAL_MS,
    silences: sending.silences,
  };
  const flushed = await flushGroups(deps.table, deps.notifier, keys, now, options, deps.logger);
  ledger.stateFailures.push(...flushed.errors);
  for (const { notification, error } of flushed.failed) {
    ledger.publishFailures.push(error);
    deps.logger.error('publish failed', { group: notification.subject, error: (error as Error).message });
  }
  ledger.sent += groups.router.published + flushed.sent.length;
  ledger.writes += flushed.writes + groups.inbox.writes;
  ledger.conflicts += flushed.conflicts;
  return { failed: flushed.failed.length + flushed.errors.length };
}

/** What the configuration step left for the targets' step, and which groups it pages. */
interface TargetStep {
  /** The configuration's problems, when the last valid one is in force (null: none). */
  configError: string | null;
  /** False when the configuration could not be stored: targets are fetched, not evaluated. */
  applied: boolean;
  /** The stored configuration's generation the targets are checked at (null: none stored). */
  generation: string | null;
  /** Page every open group that is due, not only those this run handed pages to (the scheduled run's). */
  flushAllGroups: boolean;
}

/**
 * Run one scheduled cycle at `now`: the configuration step, then every target.
 *
 * @example
 * await runCycle(deps, new Date());
 * @throws PublishFailedError when SNS rejected a page, TargetsFailedError when a target's state
 *   could not be read or written (after every target was handled and the metrics sent)
 */
async function runCycle(deps: CycleDeps, now: Date): Promise<CycleSummary> {
  const ctx = startRun(deps, now);
  const groups = runGroups(ctx);
  const resolved = await resolveConfig(ctx, groups.router);
  if (resolved.config === null) {
    await sendGroups(ctx, groups, { all: true, silences: [] });
    deps.logger.error('no valid configuration yet: nothing checked', { configError: resolved.error });
    const failure = ctx.ledger.toError();
    deps.metrics.run({ alertsSent: ctx.ledger.sent, targets: 0, targetsDown: 0, failed: failure !== null });
    if (failure !== null) throw failure;
    const { sent, writes } = ctx.ledger;
    return { targets: 0, down: 0, sent, skipped: 0, failed: 0, conflicts: 0, writes, configError: resolved.error };
  }
  const { error: configError, applied, generation } = resolved;
  return checkTargets(ctx, groups, resolved.config, { configError, applied, generation, flushAllGroups: true });
}

/**
 * One shard's targets (sharded mode): `config` checked at the stored configuration's
 * `generation` its consumer found (`shards.ts`); no configuration step, and only the groups this
 * shard handed pages to are paged (the dispatch pages every open group).
 *
 * @throws PublishFailedError when SNS rejected a page, TargetsFailedError when a target's state
 *   could not be read or written (after every target was handled and the metrics sent)
 */
async function checkShard(
  deps: CycleDeps,
  config: MonitorConfig,
  now: Date,
  generation: string | null,
): Promise<CycleSummary> {
  const ctx = startRun(deps, now);
  const step = { configError: null, applied: true, generation, flushAllGroups: false };
  return checkTargets(ctx, runGroups(ctx), config, step);
}

/** The per-target half of a run: fetch, parse, evaluate, publish, commit, metrics; the run's error last. */
async function checkTargets(
  ctx: RunContext,
  groups: RunGroups,
  config: MonitorConfig,
  step: TargetStep,
): Promise<CycleSummary> {
  const { deps, ledger } = ctx;
  const counts = { targets: 0, down: 0, skipped: 0, failed: 0 };
  /** Targets whose item this run created: owed a removal if the configuration moved on meanwhile. */
  const created: string[] = [];
  const { generation } = step;
  // One batched read of every target's state, while the first fetches run (a fetch needs no state);
  // conditional writes guard against overlap. A failed read is the run's one state failure.
  const loading: Promise<Map<string, StoredState> | null> = !step.applied
    ? Promise.resolve(null)
    : deps.table.loadMany(config.targets.map((t) => targetKey(t.name))).catch((error: unknown) => {
        ledger.stateFailures.push(error);
        deps.logger.error('state table unreadable: targets fetched, nothing evaluated', {
          error: (error as Error).message,
        });
        return null;
      });
  await fetchAll(
    inStartOrder(config.targets, deps.fetchPriority),
    deps.concurrency,
    async (target) => {
      const { observation, latencyMs } = await observe(target, deps);
      counts.targets++;
      if (observation.kind === 'down') {
        counts.down++;
        deps.logger.warn('target down', {
          target: target.name,
          reason: observation.reason,
          detail: observation.detail,
        });
      }
      const stored = await loading;
      let metrics: EvaluateResult['metrics'] | null = null;
      if (stored !== null) {
        try {
          metrics = await checkTarget(ctx, groups.router, {
            config,
            target,
            observation,
            loaded: stored.get(targetKey(target.name)) ?? null,
            report: (outcome) => {
              // Pages sent are counted where they reach SNS (`groupingRouter`, the groups' flush).
              counts.failed += outcome.failed.length;
              ledger.claimed(outcome);
              for (const { notification, error } of outcome.failed)
                deps.logger.error('publish failed', {
                  target: target.name,
                  rule: notification.rule,
                  error: (error as Error).message,
                });
              if (outcome.status !== CLAIM_OUTCOMES.committed) {
                ledger.conflicts++;
                counts.skipped++;
              }
              if (!stored.has(targetKey(target.name)) && outcome.writes > 0) created.push(target.name);
            },
            // Before a new item's pages go out, not only at the run's end: a run that dies between
            // would leave a page of a target the configuration dropped meanwhile never resolved.
            ...(generation === null ? {} : { onCreated: () => oweRemovals(ctx, [target.name], generation) }),
          });
        } catch (error) {
          // Why: one target's storage failure (throttling, a value DynamoDB refuses) must not stop the others.
          deps.warm.delete(target.name);
          ledger.stateFailures.push(error);
          counts.failed++;
          deps.logger.error('target state failed', { target: target.name, error: (error as Error).message });
        }
      }
      deps.metrics.target({
        target: target.name,
        up: observation.kind === 'report',
        fetchLatencyMs: latencyMs,
        metrics: metrics ?? new Map(),
      });
    },
    { patienceMs: deps.fetchPatienceMs ?? FETCH_PATIENCE_MS },
  );
  if (generation !== null && created.length > 0) {
    try {
      ledger.writes += await oweRemovals(ctx, created, generation);
    } catch (error) {
      ledger.stateFailures.push(error);
      deps.logger.error('removals owed unrecorded', { targets: created, error: (error as Error).message });
    }
  }
  const paged = await sendGroups(ctx, groups, { all: step.flushAllGroups, silences: config.silences });
  const summary: CycleSummary = {
    targets: counts.targets,
    down: counts.down,
    sent: ledger.sent,
    skipped: counts.skipped,
    failed: counts.failed + paged.failed,
    conflicts: ledger.conflicts,
    writes: ledger.writes,
    configError: step.configError,
  };
  const failure = ledger.toError();
  deps.metrics.run({
    alertsSent: summary.sent,
    targets: summary.targets,
    targetsDown: summary.down,
    failed: failure !== null,
  });
  deps.logger.info('run complete', { ...summary });
  if (failure !== null) throw failure;
  return summary;
}

export type { CycleSummary, RunGroups };
export { checkShard, runCycle, runGroups, sendGroups };
