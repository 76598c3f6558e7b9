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
import type { AlertRecord, TargetState } from '../core/alerts/types.ts';
import {
  DEFAULT_CHECKPOINT_INTERVAL_MS,
  DEFAULT_DOWN_AFTER_FAILURES,
  DEFAULT_REPEAT_INTERVAL_MS,
} from '../core/constants.ts';
import { NotAStatusReportError } from '../core/errors.ts';
import { type EvaluateResult, evaluateTarget } from '../core/evaluate.ts';
import { ConfigurationError, type MonitorConfig, type TargetConfig } from '../core/monitorConfig.ts';
import { parseReport } from '../core/report/parse.ts';
import type { Observation } from '../core/rules/types.ts';
import { type CommitOutcome, commitTarget, isClaimed, recoverClaim, targetKey } from './accounting/commit.ts';
import { flushGroups, GroupInbox, groupingNotifier, openGroups } from './accounting/groups.ts';
import { fetchAll, inStartOrder } from './concurrency.ts';
import { resolveConfig } from './config/resolve.ts';
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
 * Whether `next` differs from what the table holds in anything but the latest value, counters and
 * time. Failure counts past `downAfter` are the same to the table (target-down holds either way),
 * so a target that stays down does not write every run; the warm container keeps the exact count.
 */
function changed(stored: TargetState, next: TargetState, downAfter: number): boolean {
  const failures = (state: TargetState) => Math.min(state.consecutiveFailures, downAfter);
  if (failures(stored) !== failures(next)) return true;
  const before = Object.keys(stored.alerts);
  if (before.length !== Object.keys(next.alerts).length) return true;
  const bare = (r: AlertRecord | undefined) => (r === undefined ? '' : JSON.stringify({ ...r, value: null }));
  return before.some((fp) => bare(stored.alerts[fp]) !== bare(next.alerts[fp]));
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
  config: ConfigSource,
  fetch: CycleDeps['fetch'],
): Promise<{ observation: Observation; latencyMs: number }> {
  let request: FetchTarget;
  try {
    request = await fetchTargetFor(target, config);
  } catch (error) {
    return { observation: { kind: 'down', reason: 'config', detail: (error as Error).message }, latencyMs: 0 };
  }
  const result = await fetch(request);
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
 * When a new target, quiet so far, is first written: spread over one checkpoint interval by its
 * name, so 3,000 new targets cost 3,000 writes over 15 minutes, not in one run.
 */
function spreadOffsetMs(name: string, intervalMs: number): number {
  let hash = 2166136261; // FNV-1a
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 16777619);
  return (hash >>> 0) % Math.max(intervalMs, 1);
}

/** What one target's check adds to the run's summary. */
function tally(summary: CycleSummary, outcome: CommitOutcome, failures: unknown[], deps: CycleDeps, target: string) {
  // Pages sent are counted where they reach SNS (`groupingNotifier`, the groups' flush).
  summary.failed += outcome.failed.length;
  summary.writes += outcome.writes;
  if (outcome.conflict) summary.conflicts++;
  for (const { notification, error } of outcome.failed) {
    failures.push(error);
    deps.logger.error('publish failed', { target, rule: notification.rule, error: (error as Error).message });
  }
}

/** Evaluate one target on its stored (or warm) state and claim, publish, commit; the metrics the rules saw. */
async function checkOne(
  deps: CycleDeps,
  config: MonitorConfig,
  target: TargetConfig,
  observation: Observation,
  loaded: StoredState | null,
  now: Date,
  token: string,
  report: (outcome: CommitOutcome) => void,
): Promise<EvaluateResult['metrics'] | null> {
  const key = targetKey(target.name);
  const options = { token, leaseMs: deps.claimLeaseMs };
  let item = loaded;
  if (isClaimed(item)) {
    const recovered = await recoverClaim(deps.table, deps.notifier, key, item, now, options);
    report(recovered);
    if (recovered.conflict) {
      deps.warm.delete(target.name);
      return null;
    }
    item = recovered.stored;
  }
  const warm = deps.warm.get(target.name);
  // Version 0 is a target this container evaluated but nobody stored yet.
  const base = warm?.version === (item?.version ?? 0) ? (warm?.state ?? null) : (item?.state ?? null);
  const previous = base === null ? null : { ...base, ...warm?.carried };
  if (previous?.evaluatedAt && Date.parse(previous.evaluatedAt) > now.getTime()) {
    deps.logger.warn('target evaluated later than this run: skipped', { target: target.name });
    report({ sent: [], failed: [], conflict: true, stored: item, writes: 0 });
    return null;
  }
  const result = evaluateTarget({
    target: target.name,
    labels: target.labels,
    maxRequestWorkers: target.maxRequestWorkers ?? null,
    observation,
    rules: config.rules,
    silences: config.silences,
    previous,
    now,
    options: deps.evaluate,
  });
  // The forecast's samples and the last report stay in this container: the table never holds them.
  const { samples, lastReport, ...tableState } = result.state;
  const carried = { samples, lastReport };
  const checkpointMs = deps.checkpointIntervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS;
  const firstSeenMs =
    item === null ? (warm?.version === 0 ? (warm.firstSeenMs ?? now.getTime()) : now.getTime()) : null;
  const write =
    item === null
      ? Object.keys(tableState.alerts).length > 0 ||
        tableState.consecutiveFailures > 0 ||
        now.getTime() - (firstSeenMs as number) >= spreadOffsetMs(target.name, checkpointMs)
      : changed(item.state, tableState, deps.evaluate.downAfterFailures ?? DEFAULT_DOWN_AFTER_FAILURES) ||
        now.getTime() - Date.parse(item.state.evaluatedAt ?? '1970-01-01T00:00:00Z') >= checkpointMs;
  const outcome = await commitTarget(
    deps.table,
    deps.notifier,
    { key, loaded: item, next: tableState, notifications: result.notifications, deleteAfter: false, write },
    now,
    options,
  );
  report(outcome);
  if (!outcome.conflict && item === null && outcome.writes === 0)
    deps.warm.set(target.name, { version: 0, state: tableState, firstSeenMs: firstSeenMs as number, carried });
  else if (outcome.conflict || outcome.stored === null) deps.warm.delete(target.name);
  else
    deps.warm.set(target.name, {
      version: outcome.stored.version,
      state: outcome.writes > 0 ? outcome.stored.state : tableState,
      carried,
    });
  return result.metrics;
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
  const carried = {
    configError: resolved.error,
    failures: resolved.publishErrors,
    stateFailures: resolved.stateErrors,
    writes: resolved.writes,
    evaluate: resolved.applied,
  };
  if (resolved.config === null) {
    const paged = await sendGroups(deps, groups, now, {
      all: true,
      publishFailures: carried.failures,
      stateFailures: carried.stateFailures,
      silences: [],
    });
    deps.logger.error('no valid configuration yet: nothing checked', { configError: resolved.error });
    deps.metrics.run({ alertsSent: paged.sent, targets: 0, targetsDown: 0 });
    if (carried.failures.length > 0)
      throw new PublishFailedError(carried.failures.length, { cause: new AggregateError(carried.failures) });
    if (carried.stateFailures.length > 0)
      throw new TargetsFailedError(carried.stateFailures.length, { cause: new AggregateError(carried.stateFailures) });
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
  return checkTargets(deps, resolved.config, now, { ...carried, groups, flushAllGroups: true });
}

/** A run's grouping: the inbox its targets hand grouped pages to, the notifier routing them there. */
interface RunGroups {
  inbox: GroupInbox;
  notifier: Notifier & { published: number };
  token: string;
}

function runGroups(deps: CycleDeps, now: Date): RunGroups {
  const inbox = new GroupInbox(deps.table, now);
  return { inbox, notifier: groupingNotifier(deps.notifier, inbox), token: randomUUID() };
}

/**
 * Page the groups this run handed pages to (and, with `all`, every open group: one may be due
 * although nothing of it changed). Failures join `into`; answers what the run's pages came to:
 * every page SNS accepted (straight from the run's notifier, and its groups' pages), and the
 * groups' writes, failures and conflicts.
 */
async function sendGroups(
  deps: CycleDeps,
  groups: RunGroups,
  now: Date,
  into: { all: boolean; publishFailures: unknown[]; stateFailures: unknown[]; silences: readonly Silence[] },
): Promise<{ sent: number; failed: number; writes: number; conflicts: number }> {
  let keys = [...groups.inbox.touched];
  if (into.all) {
    try {
      keys = [...keys, ...(await openGroups(deps.table))];
    } catch (error) {
      into.stateFailures.push(error);
      deps.logger.error('open groups unreadable', { error: (error as Error).message });
    }
  }
  const options = {
    token: groups.token,
    leaseMs: deps.claimLeaseMs,
    repeatIntervalMs: deps.evaluate.repeatIntervalMs ?? DEFAULT_REPEAT_INTERVAL_MS,
    silences: into.silences,
  };
  const flushed = await flushGroups(deps.table, deps.notifier, keys, now, options, deps.logger);
  into.stateFailures.push(...flushed.errors);
  for (const { notification, error } of flushed.failed) {
    into.publishFailures.push(error);
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
  carried: {
    configError: string | null;
    failures: unknown[];
    stateFailures?: unknown[];
    writes?: number;
    /** False when the configuration could not be stored: targets are fetched, not evaluated. */
    evaluate?: boolean;
    /** The run's grouping when the caller made it (its configuration step handed pages over too). */
    groups?: RunGroups;
    /** Page every open group that is due, not only those this run handed pages to (not in a shard). */
    flushAllGroups?: boolean;
  } = {
    configError: null,
    failures: [],
  },
): Promise<CycleSummary> {
  const token = randomUUID();
  const groups = carried.groups ?? runGroups(deps, now);
  const targetDeps: CycleDeps = { ...deps, notifier: groups.notifier };
  const summary: CycleSummary = {
    targets: 0,
    down: 0,
    sent: 0,
    skipped: 0,
    failed: 0,
    conflicts: 0,
    writes: carried.writes ?? 0,
    configError: carried.configError,
  };
  const publishFailures = [...carried.failures];
  const stateFailures: unknown[] = [...(carried.stateFailures ?? [])];
  // One batched read of every target's state, while the first fetches run (a fetch needs no state);
  // conditional writes guard against overlap. A failed read is the run's one state failure.
  const loading: Promise<Map<string, StoredState> | null> =
    carried.evaluate === false
      ? Promise.resolve(null)
      : deps.table.loadMany(config.targets.map((t) => targetKey(t.name))).catch((error: unknown) => {
          stateFailures.push(error);
          deps.logger.error('state table unreadable: targets fetched, nothing evaluated', {
            error: (error as Error).message,
          });
          return null;
        });
  await fetchAll(inStartOrder(config.targets, deps.fetchPriority), deps.concurrency, async (target) => {
    const { observation, latencyMs } = await observe(target, deps.config, deps.fetch);
    summary.targets++;
    if (observation.kind === 'down') {
      summary.down++;
      deps.logger.warn('target down', { target: target.name, reason: observation.reason, detail: observation.detail });
    }
    const stored = await loading;
    let metrics: EvaluateResult['metrics'] | null = null;
    if (stored !== null) {
      try {
        metrics = await checkOne(
          targetDeps,
          config,
          target,
          observation,
          stored.get(targetKey(target.name)) ?? null,
          now,
          token,
          (o) => {
            tally(summary, o, publishFailures, deps, target.name);
            if (o.conflict) summary.skipped++;
          },
        );
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
  });
  const paged = await sendGroups(deps, groups, now, {
    all: carried.flushAllGroups === true,
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
  if (publishFailures.length > 0)
    throw new PublishFailedError(publishFailures.length, {
      cause: new AggregateError([...publishFailures, ...stateFailures]),
    });
  if (stateFailures.length > 0)
    throw new TargetsFailedError(stateFailures.length, { cause: new AggregateError(stateFailures) });
  return summary;
}

export type { CycleSummary, RunGroups };
export { checkTargets, PublishFailedError, runCycle, runGroups, sendGroups, TargetsFailedError };
