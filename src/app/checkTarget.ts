/**
 * One target's check within a run: settle a claim a dead run left, decide what to evaluate from
 * (the table's state, or this container's warm memory of it), evaluate, claim, publish, commit,
 * and decide what to remember warm. The decisions are small pure functions, tested one by one.
 */
import type { AlertRecord, TargetState } from '../core/alerts/types.ts';
import { DEFAULT_CHECKPOINT_INTERVAL_MS, DEFAULT_DOWN_AFTER_FAILURES } from '../core/constants.ts';
import { type EvaluateResult, evaluateTarget } from '../core/evaluate.ts';
import type { MonitorConfig, TargetConfig } from '../core/monitorConfig.ts';
import type { Observation } from '../core/rules/types.ts';
import { CLAIM_OUTCOMES } from './accounting/claim.ts';
import { type CommitOutcome, commitTarget, settleTarget, targetKey } from './accounting/targetItems.ts';
import type { PageRouter, StoredState, WarmEntry } from './ports.ts';
import { leaseOf, type RunContext } from './runContext.ts';

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
  const withoutValue = (r: AlertRecord | undefined) => (r === undefined ? '' : JSON.stringify({ ...r, value: null }));
  return before.some((fp) => withoutValue(stored.alerts[fp]) !== withoutValue(next.alerts[fp]));
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

/**
 * The state to evaluate from: this container's warm memory when it extends exactly the item the
 * table holds (same generation and version; version 0: neither stored), else the table's. The
 * version alone is not enough: an item deleted and created again restarts its versions.
 */
function evaluateFrom(item: StoredState | null, warm: WarmEntry | undefined): TargetState | null {
  const base =
    warm !== undefined && warm.version === (item?.version ?? 0) && warm.generation === item?.generation
      ? warm.state
      : (item?.state ?? null);
  // The forecast's samples and the last report live only in the warm container, whatever the item.
  return base === null || warm?.warmOnly === undefined ? base : { ...base, ...warm.warmOnly };
}

/**
 * The state to evaluate this tick's observation on. A run's time is its schedule tick's (the
 * scheduled event's time: a retry of the event, or another container's run of the same event,
 * has the same); when `previous` was evaluated at that very time, the failure it counted is this
 * tick's, so it is taken back before the evaluation counts this tick's outcome. Two runs of one
 * tick thus count one failed fetch, not two (`target-down` pages after two ticks, not one).
 */
function forThisTick(previous: TargetState | null, now: Date): TargetState | null {
  if (previous?.evaluatedAt == null || previous.consecutiveFailures === 0) return previous;
  if (Date.parse(previous.evaluatedAt) !== now.getTime()) return previous;
  return { ...previous, consecutiveFailures: previous.consecutiveFailures - 1 };
}

/** When this container first evaluated a target nobody stored yet (now, unless it remembers earlier). */
function firstSeenOf(warm: WarmEntry | undefined, now: Date): number {
  return warm?.version === 0 ? (warm.firstSeenMs ?? now.getTime()) : now.getTime();
}

interface WriteInput {
  name: string;
  item: StoredState | null;
  next: TargetState;
  now: Date;
  /** For a target not stored yet: when this container first evaluated it. */
  firstSeenMs: number;
  checkpointMs: number;
  downAfter: number;
}

/**
 * Whether the evaluation is written without pages: a new target once it has something to keep
 * or its spread turn came; a stored one when it changed (`changed`) or its checkpoint is due.
 */
function shouldWrite({ name, item, next, now, firstSeenMs, checkpointMs, downAfter }: WriteInput): boolean {
  if (item === null)
    return (
      Object.keys(next.alerts).length > 0 ||
      next.consecutiveFailures > 0 ||
      now.getTime() - firstSeenMs >= spreadOffsetMs(name, checkpointMs)
    );
  const lastWrittenMs = Date.parse(item.state.evaluatedAt ?? '1970-01-01T00:00:00Z');
  return changed(item.state, next, downAfter) || now.getTime() - lastWrittenMs >= checkpointMs;
}

/**
 * What the container remembers of the target after its commit: nothing when another run moved
 * the item on (or it is gone); the evaluation as a version-0 entry for a target nobody stored
 * yet; else the evaluation (or what was written) at the item's new version.
 */
function warmAfter(
  item: StoredState | null,
  outcome: CommitOutcome,
  evaluated: TargetState,
  firstSeenMs: number,
): WarmEntry | null {
  const committed = outcome.status === CLAIM_OUTCOMES.committed;
  if (committed && item === null && outcome.writes === 0) return { version: 0, state: evaluated, firstSeenMs };
  if (!committed || outcome.stored === null) return null;
  const { version, generation } = outcome.stored;
  return {
    version,
    ...(generation === undefined ? {} : { generation }),
    state: outcome.writes > 0 ? outcome.stored.state : evaluated,
  };
}

/** One target's check: its observation, the item the run read (null: absent). */
interface TargetCheck {
  config: MonitorConfig;
  target: TargetConfig;
  observation: Observation;
  loaded: StoredState | null;
  /** Takes each commit's outcome into the run's figures. */
  report: (outcome: CommitOutcome) => void;
  /**
   * Called when this check's claim created the target's item, before its pages go out (answers
   * its writes): the run records the removal owed if the configuration moved on meanwhile.
   */
  onCreated?: () => Promise<number>;
}

/**
 * Evaluate one target on its stored (or warm) state and claim, publish (through the run's
 * `router`), commit; the metrics the rules saw.
 */
async function checkTarget(
  ctx: RunContext,
  router: PageRouter,
  check: TargetCheck,
): Promise<EvaluateResult['metrics'] | null> {
  const { deps, now } = ctx;
  const { target, report } = check;
  const key = targetKey(target.name);
  const options = leaseOf(ctx);
  const settled = await settleTarget(deps.table, router, key, check.loaded, now, options);
  report(settled);
  if (settled.status !== CLAIM_OUTCOMES.committed) {
    deps.warm.delete(target.name);
    return null;
  }
  const item = settled.stored;
  const warm = deps.warm.get(target.name);
  const previous = forThisTick(evaluateFrom(item, warm), now);
  if (previous?.evaluatedAt && Date.parse(previous.evaluatedAt) > now.getTime()) {
    deps.logger.warn('target evaluated later than this run: skipped', { target: target.name });
    report({ sent: [], failed: [], status: CLAIM_OUTCOMES.skipped, stored: item, writes: 0 });
    return null;
  }
  const result = evaluateTarget({
    target: target.name,
    labels: target.labels,
    maxRequestWorkers: target.maxRequestWorkers ?? null,
    observation: check.observation,
    rules: check.config.rules,
    silences: check.config.silences,
    previous,
    now,
    options: deps.evaluate,
    // The run reads the metrics only through the rules and the log line (which names no count).
    countOnlyWhatRulesRead: true,
  });
  // The forecast's samples and the last report stay in this container: the table never holds them.
  const { samples, lastReport, ...tableState } = result.state;
  const warmOnly = { samples, lastReport };
  const firstSeenMs = firstSeenOf(warm, now);
  const write = shouldWrite({
    name: target.name,
    item,
    next: tableState,
    now,
    firstSeenMs,
    checkpointMs: deps.checkpointIntervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS,
    downAfter: deps.evaluate.downAfterFailures ?? DEFAULT_DOWN_AFTER_FAILURES,
  });
  const outcome = await commitTarget(
    deps.table,
    router,
    {
      key,
      loaded: item,
      next: tableState,
      notifications: result.notifications,
      deleteAfter: false,
      write,
      ...(check.onCreated === undefined ? {} : { onCreated: check.onCreated }),
    },
    now,
    options,
  );
  report(outcome);
  const remembered = warmAfter(item, outcome, tableState, firstSeenMs);
  if (remembered === null) deps.warm.delete(target.name);
  else deps.warm.set(target.name, { ...remembered, warmOnly });
  return result.metrics;
}

export type { TargetCheck };
export { changed, checkTarget, evaluateFrom, firstSeenOf, forThisTick, shouldWrite, spreadOffsetMs, warmAfter };
