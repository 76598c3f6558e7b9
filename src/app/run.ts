/**
 * One scheduled run: configuration, every target fetched concurrently (bounded), parsed,
 * evaluated, published and committed, metrics. One slow or broken target never delays or fails
 * the others: a fetch, storage or publish failure of one target is logged and counted, every
 * other target, the heartbeat and the run's metrics still happen, and the run fails visibly at
 * the end. A steady run (no alert changes) writes nothing per target: counters live in the warm
 * container and reach the table every `checkpointIntervalMs`.
 */
import { randomUUID } from 'node:crypto';
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
import { GroupInbox, groupingNotifier } from './accounting/groupInbox.ts';
import { flushGroups } from './accounting/groupItems.ts';
import { openGroups } from './accounting/groupRegistry.ts';
import { type CommitOutcome, targetKey } from './accounting/targetItems.ts';
import { checkTarget } from './checkTarget.ts';
import { fetchAll, inStartOrder } from './concurrency.ts';
import { oweRemovals, resolveConfig } from './config/resolve.ts';
import type { ConfigSource, CycleDeps, FetchTarget, Notifier, StoredState } from './ports.ts';

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

class PublishFailedError extends Error {
  constructor(count: number, options?: ErrorOptions) {
    super(`expected SNS to accept every page, found ${count} rejected; they are sent again on the next run`, options);
    this.name = 'PublishFailedError';
  }
}

/** Some targets could not be read or written in the state table; the others were checked. */
class TargetsFailedError extends Error {
  constructor(count: number, options?: ErrorOptions) {
    super(`expected every target's state to be read and written, found ${count} failed; the next run retries`, options);
    this.name = 'TargetsFailedError';
  }
}

/**
 * The one way a run's failures become its error (null: none): a refused page first (SNS sends it
 * again next run), with every failure as its cause; else the state table's failures.
 */
function runFailure(publishFailures: readonly unknown[], stateFailures: readonly unknown[]): Error | null {
  if (publishFailures.length > 0)
    return new PublishFailedError(publishFailures.length, {
      cause: new AggregateError([...publishFailures, ...stateFailures]),
    });
  if (stateFailures.length > 0)
    return new TargetsFailedError(stateFailures.length, { cause: new AggregateError(stateFailures) });
  return null;
}

/** What the configuration step of a run left for its targets' step. */
interface ConfigStep {
  error: string | null;
  publishFailures: unknown[];
  stateFailures: unknown[];
  writes: number;
  /** False when the configuration could not be stored: targets are fetched, not evaluated. */
  applied: boolean;
  /** The stored configuration's generation it was applied at (null: none; a shard leaves that to its dispatch). */
  generation: string | null;
}

/** A run without a configuration step (a shard): nothing failed, nothing written, applied by the dispatch. */
const noConfigStep = (): ConfigStep => ({
  error: null,
  publishFailures: [],
  stateFailures: [],
  writes: 0,
  applied: true,
  generation: null,
});

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

/** What one target's commit adds to the run's summary; its refused pages join `failures`. */
function addToSummary(
  summary: CycleSummary,
  outcome: CommitOutcome,
  failures: unknown[],
  deps: CycleDeps,
  target: string,
) {
  // Pages sent are counted where they reach SNS (`groupingNotifier`, the groups' flush).
  summary.failed += outcome.failed.length;
  summary.writes += outcome.writes;
  if (outcome.status !== CLAIM_OUTCOMES.committed) summary.conflicts++;
  for (const { notification, error } of outcome.failed) {
    failures.push(error);
    deps.logger.error('publish failed', { target, rule: notification.rule, error: (error as Error).message });
  }
}

/**
 * Run one cycle at `now`.
 *
 * @example
 * await runCycle(deps, new Date());
 * @throws PublishFailedError when SNS rejected a page, TargetsFailedError when a target's state
 *   could not be read or written (after every target was handled and the metrics sent)
 */
async function runCycle(deps: CycleDeps, now: Date): Promise<CycleSummary> {
  const groups = runGroups(deps, now);
  const resolved = await resolveConfig({ ...deps, notifier: groups.notifier }, now);
  const configStep: ConfigStep = {
    error: resolved.error,
    publishFailures: resolved.publishErrors,
    stateFailures: resolved.stateErrors,
    writes: resolved.writes,
    applied: resolved.applied,
    generation: resolved.generation,
  };
  if (resolved.config === null) {
    const paged = await sendGroups(deps, groups, now, {
      all: true,
      publishFailures: configStep.publishFailures,
      stateFailures: configStep.stateFailures,
      silences: [],
    });
    deps.logger.error('no valid configuration yet: nothing checked', { configError: resolved.error });
    deps.metrics.run({ alertsSent: paged.sent, targets: 0, targetsDown: 0 });
    const failure = runFailure(configStep.publishFailures, configStep.stateFailures);
    if (failure !== null) throw failure;
    return {
      targets: 0,
      down: 0,
      sent: paged.sent,
      skipped: 0,
      failed: 0,
      conflicts: 0,
      writes: resolved.writes + paged.writes,
      configError: resolved.error,
    };
  }
  return checkTargets(deps, resolved.config, now, { configStep, groups, flushAllGroups: true });
}

/** A run's grouping: the inbox its targets hand grouped pages to, the notifier routing them there. */
interface RunGroups {
  inbox: GroupInbox;
  notifier: Notifier & { published: number };
  token: string;
}

function runGroups(deps: CycleDeps, now: Date): RunGroups {
  const inbox = new GroupInbox(deps.table, now, deps.groupLimits);
  return { inbox, notifier: groupingNotifier(deps.notifier, inbox, deps.logger), token: randomUUID() };
}

/** What a run's group flush needs: which groups, the silences in force, and where failures go. */
interface GroupSending {
  /** Every open group, not only those this run handed pages to (one may be due although nothing of it changed). */
  all: boolean;
  /** The run's failures, appended to. */
  publishFailures: unknown[];
  stateFailures: unknown[];
  silences: readonly Silence[];
}

/**
 * Page the groups this run handed pages to (and, with `all`, every open group). Failures join
 * the run's; answers what the run's pages came to: every page SNS accepted (straight from the
 * run's notifier, and its groups' pages), and the groups' writes, failures and conflicts.
 */
async function sendGroups(
  deps: CycleDeps,
  groups: RunGroups,
  now: Date,
  sending: GroupSending,
): Promise<{ sent: number; failed: number; writes: number; conflicts: number }> {
  let keys = [...groups.inbox.touched];
  if (sending.all) {
    try {
      keys = [...keys, ...(await openGroups(deps.table))];
    } catch (error) {
      sending.stateFailures.push(error);
      deps.logger.error('open groups unreadable', { error: (error as Error).message });
    }
  }
  const options = {
    token: groups.token,
    leaseMs: deps.claimLeaseMs,
    repeatIntervalMs: deps.evaluate.repeatIntervalMs ?? DEFAULT_REPEAT_INTERVAL_MS,
    silences: sending.silences,
  };
  const flushed = await flushGroups(deps.table, deps.notifier, keys, now, options, deps.logger);
  sending.stateFailures.push(...flushed.errors);
  for (const { notification, error } of flushed.failed) {
    sending.publishFailures.push(error);
    deps.logger.error('publish failed', { group: notification.subject, error: (error as Error).message });
  }
  return {
    sent: groups.notifier.published + flushed.sent.length,
    failed: flushed.failed.length + flushed.errors.length,
    writes: flushed.writes + groups.inbox.writes,
    conflicts: flushed.conflicts,
  };
}

/**
 * The per-target half of a run: fetch, parse, evaluate, publish, commit, metrics. The sharded
 * mode calls it directly with one shard's configuration.
 *
 * @throws PublishFailedError when SNS rejected a page, TargetsFailedError when a target's state
 *   could not be read or written (after every target was handled and the metrics sent)
 */
async function checkTargets(
  deps: CycleDeps,
  config: MonitorConfig,
  now: Date,
  options: {
    /** What the run's configuration step left (default: none, as in a shard). */
    configStep?: ConfigStep;
    /** The run's grouping when the caller made it (its configuration step handed pages over too). */
    groups?: RunGroups;
    /** Page every open group that is due, not only those this run handed pages to (not in a shard). */
    flushAllGroups?: boolean;
  } = {},
): Promise<CycleSummary> {
  const configStep = options.configStep ?? noConfigStep();
  const token = randomUUID();
  const groups = options.groups ?? runGroups(deps, now);
  const targetDeps: CycleDeps = { ...deps, notifier: groups.notifier };
  const summary: CycleSummary = {
    targets: 0,
    down: 0,
    sent: 0,
    skipped: 0,
    failed: 0,
    conflicts: 0,
    writes: configStep.writes,
    configError: configStep.error,
  };
  /** Targets whose item this run created: owed a removal if the configuration moved on meanwhile. */
  const created: string[] = [];
  const generation = configStep.generation;
  const publishFailures = [...configStep.publishFailures];
  const stateFailures = [...configStep.stateFailures];
  // One batched read of every target's state, while the first fetches run (a fetch needs no state);
  // conditional writes guard against overlap. A failed read is the run's one state failure.
  const loading: Promise<Map<string, StoredState> | null> = !configStep.applied
    ? Promise.resolve(null)
    : deps.table.loadMany(config.targets.map((t) => targetKey(t.name))).catch((error: unknown) => {
        stateFailures.push(error);
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
      summary.targets++;
      if (observation.kind === 'down') {
        summary.down++;
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
          metrics = await checkTarget(targetDeps, {
            config,
            target,
            observation,
            loaded: stored.get(targetKey(target.name)) ?? null,
            now,
            token,
            report: (outcome) => {
              addToSummary(summary, outcome, publishFailures, deps, target.name);
              if (outcome.status !== CLAIM_OUTCOMES.committed) summary.skipped++;
              if (!stored.has(targetKey(target.name)) && outcome.writes > 0) created.push(target.name);
            },
            // Before a new item's pages go out, not only at the run's end: a run that dies between
            // would leave a page of a target the configuration dropped meanwhile never resolved.
            ...(generation === null ? {} : { onCreated: () => oweRemovals(deps, [target.name], generation) }),
          });
        } catch (error) {
          // Why: one target's storage failure (throttling, a value DynamoDB refuses) must not stop the others.
          deps.warm.delete(target.name);
          stateFailures.push(error);
          summary.failed++;
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
      summary.writes += await oweRemovals(deps, created, generation);
    } catch (error) {
      stateFailures.push(error);
      deps.logger.error('removals owed unrecorded', { targets: created, error: (error as Error).message });
    }
  }
  const paged = await sendGroups(deps, groups, now, {
    all: options.flushAllGroups === true,
    publishFailures,
    stateFailures,
    silences: config.silences,
  });
  summary.sent += paged.sent;
  summary.failed += paged.failed;
  summary.writes += paged.writes;
  summary.conflicts += paged.conflicts;
  deps.metrics.run({ alertsSent: summary.sent, targets: summary.targets, targetsDown: summary.down });
  deps.logger.info('run complete', { ...summary });
  const failure = runFailure(publishFailures, stateFailures);
  if (failure !== null) throw failure;
  return summary;
}

export type { ConfigStep, CycleSummary, RunGroups };
export { checkTargets, PublishFailedError, runCycle, runFailure, runGroups, sendGroups, TargetsFailedError };
