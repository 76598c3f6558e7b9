/**
 * The configuration a run uses, and what changing it means for the state:
 * - Invalid or unreadable configuration never silences monitoring: the last valid configuration
 *   stays in force (in memory while warm; in the table across cold starts) and the configuration
 *   alert fires, one page per distinct set of problems, resolved once it is valid again. That
 *   alert is a state item like a target's and goes through the same claim, publish, commit.
 * - The last valid configuration is stored (`storedConfig.ts`: chunked, credentials redacted).
 * - Targets removed from the configuration are found by comparing the new configuration with the
 *   last one applied (stored, so this works across cold starts and changes made while no run was
 *   going): each alert whose firing page went out is resolved ("target removed from
 *   configuration"), then the target's item is deleted. Removals that could not finish are kept
 *   in the pointer and retried by the next run.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Notification } from '../../core/alerts/types.ts';
import { evaluateRemovedTarget } from '../../core/evaluate.ts';
import {
  buildMonitorConfig,
  ConfigurationError,
  leaf,
  type MonitorConfig,
  type RawConfig,
} from '../../core/monitorConfig.ts';
import { evaluateConfigAlert } from '../../core/notify/configAlert.ts';
import { STATE_KEYS } from '../../core/stateKeys.ts';
import { redactCredentials } from '../../core/text/sanitize.ts';
import { CLAIM_OUTCOMES } from '../accounting/claim.ts';
import { ContentionError } from '../accounting/conditionalUpdate.ts';
import { commitTarget, settleTarget, targetKey } from '../accounting/targetItems.ts';
import type { CycleDeps } from '../ports.ts';
import {
  LAST_VALID_KEY,
  type LastValidPointer,
  readConfigGeneration,
  readStoredConfig,
  type StoredConfig,
  saveRemoving,
  saveStoredConfig,
} from './stored.ts';

const CONFIG_ALERT_KEY = STATE_KEYS.configAlert;

interface Applied {
  hash: string;
  config: MonitorConfig;
  raw: RawConfig;
  removing: string[];
  /** The stored pointer's generation when this container applied it: the table's word, not the hash. */
  generation: string;
}

interface ResolvedConfig {
  config: MonitorConfig | null;
  raw: RawConfig | null;
  error: string | null;
  /** Pages SNS refused (configuration alert, removal resolves); the run fails visibly at its end. */
  publishErrors: unknown[];
  /** State table failures met on the way (the run still fetches its targets, then fails visibly). */
  stateErrors: unknown[];
  /**
   * Whether `config` is stored as the last one applied. Only then may targets be evaluated: a
   * target that pages must be in the stored configuration, or its later removal goes unseen.
   */
  applied: boolean;
  /** The stored pointer's generation `config` was applied at (null: not applied, or none stored). */
  generation: string | null;
  writes: number;
}

/** Takes the pages and writes of one step into the run's figures. */
type RecordOutcome = (o: { sent: Notification[]; failed: Array<{ error: unknown }>; writes: number }) => void;

// Per config source (one per warm container): the configuration last applied, unredacted.
const lastApplied = new WeakMap<object, Applied>();

const hashOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

function problemLines(error: unknown): string[] {
  if (error instanceof ConfigurationError) {
    return error.problems.map((p) => `${p.parameter}${p.field ? ` (field ${p.field})` : ''}: ${p.message}`);
  }
  return [`cannot read the configuration: ${(error as Error).message}`];
}

/**
 * The last valid configuration for a run whose configuration is invalid. From the table it is
 * the redacted copy; a target parameter unchanged since then (equal once redacted) takes its
 * current value back, credentials included.
 */
async function fallbackConfig(
  deps: CycleDeps,
  current: RawConfig | null,
  tableGeneration: string | null,
): Promise<Applied | null> {
  const warm = lastApplied.get(deps.config);
  if (warm && warm.generation === tableGeneration) return warm;
  const stored = await readStoredConfig(deps.table);
  if (stored?.raw == null) return null;
  const raw = stored.raw;
  for (const [name, value] of Object.entries(current?.targets ?? {}))
    if (raw.targets[name] !== undefined && redactCredentials(value) === raw.targets[name]) raw.targets[name] = value;
  try {
    const { hash, removing, generation } = stored.pointer;
    return { hash, config: buildMonitorConfig(raw, deps.secretScope), raw, removing, generation };
  } catch {
    return null;
  }
}

/**
 * Resolve and delete removed targets; the names whose removal did not finish. A target whose
 * grouped alerts' records must outlive their resolves (`evaluateRemovedTarget`) keeps its item,
 * and its name stays owed, until they expire.
 */
async function removeTargets(
  deps: CycleDeps,
  names: string[],
  rules: MonitorConfig['rules'],
  now: Date,
  token: string,
  record: RecordOutcome,
): Promise<string[]> {
  if (names.length === 0) return [];
  const options = { token, leaseMs: deps.claimLeaseMs };
  const items = await deps.table.loadMany(names.map(targetKey));
  const owed: string[] = [];
  for (const name of names) {
    deps.warm.delete(name);
    const key = targetKey(name);
    const settled = await settleTarget(deps.table, deps.notifier, key, items.get(key) ?? null, now, options);
    record(settled);
    if (settled.status !== CLAIM_OUTCOMES.committed) {
      owed.push(name);
      continue;
    }
    const item = settled.stored;
    if (item === null) continue;
    const { notifications, state } = evaluateRemovedTarget(item.state, rules, now, deps.evaluate);
    const next = state ?? { ...item.state, alerts: {} };
    const changed = JSON.stringify(next) !== JSON.stringify(item.state);
    const outcome = await commitTarget(
      deps.table,
      deps.notifier,
      { key, loaded: item, next, notifications, deleteAfter: state === null, write: state === null || changed },
      now,
      options,
    );
    record(outcome);
    if (outcome.status !== CLAIM_OUTCOMES.committed || outcome.failed.length > 0 || state !== null) owed.push(name);
    else deps.logger.info('target removed from configuration', { target: name, resolved: outcome.sent.length });
  }
  return owed;
}

/** Times a run applies the configuration again after another run moved the stored pointer on. */
const MAX_APPLY_ATTEMPTS = 5;

/**
 * Apply a valid configuration: store it with every removal it owes, then do the removals, then
 * store which are still owed. Warm, unchanged and the table still at the generation this
 * container applied: nothing more to do (`tableGeneration` was read by the caller). Every write
 * of the pointer is conditional on the version read; when another run moved it on meanwhile,
 * this run reads it again and redoes the (idempotent) removals, so neither run can drop a
 * removal the other still owes. Why the pointer first: a run of another container still on the
 * older configuration may create a removed target's item just after this run's removals read it;
 * that run then finds the pointer moved on and records the removal owed (`oweRemovals`, right
 * after its claim creates the item, before any page of it).
 */
async function applyConfig(
  deps: CycleDeps,
  raw: RawConfig,
  config: MonitorConfig,
  now: Date,
  token: string,
  record: RecordOutcome,
  tableGeneration: string | null,
): Promise<number> {
  const hash = hashOf(raw);
  const warm = lastApplied.get(deps.config);
  if (warm?.hash === hash && warm.removing.length === 0 && warm.generation === tableGeneration) return 0;
  let writes = 0;
  const apply = (pointer: LastValidPointer) => {
    lastApplied.set(deps.config, { hash, config, raw, removing: pointer.removing, generation: pointer.generation });
    return writes;
  };
  for (let attempt = 1; attempt <= MAX_APPLY_ATTEMPTS; attempt++) {
    const stored = await readStoredConfig(deps.table);
    const configured = new Set(config.targets.map((t) => t.name));
    const before = Object.keys(stored?.raw?.targets ?? {}).map(leaf);
    const gone = [...new Set([...before, ...(stored?.pointer.removing ?? [])])].filter((n) => !configured.has(n));
    let announced: StoredConfig | null = stored;
    if (stored?.pointer.hash !== hash) {
      const outcome = await saveStoredConfig(deps.table, raw, hash, gone, now, stored);
      writes += outcome.writes;
      announced = outcome.saved && { pointer: outcome.saved, raw, version: (stored?.version ?? 0) + 1 };
    } else if (stored.pointer.removing.join() !== gone.join()) {
      writes++;
      const pointer = await saveRemoving(deps.table, stored, gone);
      announced = pointer && { pointer, raw, version: stored.version + 1 };
    }
    if (announced === null) continue;
    if (gone.length === 0) return apply(announced.pointer);
    const owed = await removeTargets(deps, gone, config.rules, now, token, (o) => {
      writes += o.writes;
      record(o);
    });
    if (owed.join() === gone.join()) return apply(announced.pointer);
    writes++;
    const pointer = await saveRemoving(deps.table, announced, owed);
    if (pointer !== null) return apply(pointer);
  }
  // Other runs kept storing the configuration while this one tried: it is not applied this run.
  throw new ContentionError(`meta#${LAST_VALID_KEY}`, MAX_APPLY_ATTEMPTS);
}

/**
 * After a run evaluated on the configuration of `generation` and created items (each item's
 * claim, before its pages go out; the run's end for items written without pages): when the table
 * moved on to another meanwhile, every target in `created` that the stored configuration does not
 * list is recorded as a removal owed, so the run that applied it cannot have missed it. Answers
 * the writes made.
 */
async function oweRemovals(deps: CycleDeps, created: readonly string[], generation: string): Promise<number> {
  if (created.length === 0) return 0;
  // The usual answer, from the pointer alone: the table is still at this run's configuration.
  const at = await readConfigGeneration(deps.table);
  if (at === null || at === generation) return 0;
  let writes = 0;
  for (let attempt = 1; attempt <= MAX_APPLY_ATTEMPTS; attempt++) {
    const stored = await readStoredConfig(deps.table);
    if (stored === null || stored.pointer.generation === generation) return writes;
    const listed = new Set(Object.keys(stored.raw?.targets ?? {}).map(leaf));
    const missing = created.filter((n) => !listed.has(n) && !stored.pointer.removing.includes(n));
    if (missing.length === 0) return writes;
    writes++;
    if ((await saveRemoving(deps.table, stored, [...stored.pointer.removing, ...missing])) !== null) {
      deps.logger.warn('targets created under a configuration replaced meanwhile: removal owed', { targets: missing });
      return writes;
    }
  }
  throw new ContentionError(`meta#${LAST_VALID_KEY}`, MAX_APPLY_ATTEMPTS);
}

/** The configuration alert's item evaluated and committed like a target's. */
async function commitConfigAlert(
  deps: CycleDeps,
  problems: string[] | null,
  targetsInForce: number | null,
  now: Date,
  token: string,
  record: RecordOutcome,
): Promise<void> {
  const options = { token, leaseMs: deps.claimLeaseMs };
  const loaded = (await deps.table.loadMany([CONFIG_ALERT_KEY])).get(CONFIG_ALERT_KEY) ?? null;
  const settled = await settleTarget(deps.table, deps.notifier, CONFIG_ALERT_KEY, loaded, now, options);
  record(settled);
  if (settled.status !== CLAIM_OUTCOMES.committed) return;
  const item = settled.stored;
  const { state, notifications } = evaluateConfigAlert({
    previous: item?.state ?? null,
    problems,
    targetsInForce,
    now,
  });
  const write =
    JSON.stringify(Object.keys(state.alerts).sort()) !== JSON.stringify(Object.keys(item?.state.alerts ?? {}).sort());
  record(
    await commitTarget(
      deps.table,
      deps.notifier,
      { key: CONFIG_ALERT_KEY, loaded: item, next: state, notifications, deleteAfter: false, write },
      now,
      options,
    ),
  );
}

/**
 * The configuration for this run, its problems if any, and what resolving it published and wrote.
 *
 * @example
 * const { config, error } = await resolveConfig(deps, new Date());
 */
async function resolveConfig(deps: CycleDeps, now: Date): Promise<ResolvedConfig> {
  const token = randomUUID();
  const out: ResolvedConfig = {
    config: null,
    raw: null,
    error: null,
    publishErrors: [],
    stateErrors: [],
    applied: false,
    generation: null,
    writes: 0,
  };
  // Why: a table failure here must not stop the targets being fetched, nor the heartbeat.
  const guarded = async <T>(what: string, step: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await step();
    } catch (error) {
      out.stateErrors.push(error);
      deps.logger.error(`${what} failed`, { error: (error as Error).message });
      return fallback;
    }
  };
  const record = (o: { sent: Notification[]; failed: Array<{ error: unknown }>; writes: number }) => {
    out.writes += o.writes;
    out.publishErrors.push(...o.failed.map((f) => f.error));
  };
  // The table's word on which configuration was applied last. Why: when another container applied
  // one since this container did, this container's cached parameters may predate it (a removal it
  // would undo, a removed target it would page again): it reads them afresh.
  const tableGeneration = await guarded(
    'reading the configuration pointer',
    () => readConfigGeneration(deps.table),
    undefined,
  );
  const warm = lastApplied.get(deps.config);
  const fresh = warm !== undefined && warm.generation !== tableGeneration;
  let raw: RawConfig | null = null;
  let config: MonitorConfig;
  try {
    raw = await deps.config.loadRaw(fresh ? { fresh } : undefined);
    config = buildMonitorConfig(raw, deps.secretScope);
  } catch (error) {
    const lines = problemLines(error).map(redactCredentials);
    const fallback = await guarded(
      'reading the last valid configuration',
      () => fallbackConfig(deps, raw, tableGeneration ?? null),
      null,
    );
    deps.logger.error('invalid configuration', {
      problems: lines.slice(0, 50),
      problemCount: lines.length,
      lastValidInForce: fallback !== null,
    });
    const inForce = fallback?.config.targets.length ?? null;
    await guarded(
      'the configuration alert',
      () => commitConfigAlert(deps, lines, inForce, now, token, record),
      undefined,
    );
    return {
      ...out,
      applied: fallback !== null,
      generation: fallback?.generation ?? null,
      config: fallback?.config ?? null,
      raw: fallback?.raw ?? null,
      error: lines.slice(0, 50).join('; '),
    };
  }
  const valid = config;
  const writes = await guarded(
    'applying the configuration',
    () => applyConfig(deps, raw, valid, now, token, record, tableGeneration ?? null),
    null,
  );
  out.applied = writes !== null;
  out.generation = out.applied ? (lastApplied.get(deps.config)?.generation ?? null) : null;
  out.writes += writes ?? 0;
  await guarded(
    'the configuration alert',
    () => commitConfigAlert(deps, null, valid.targets.length, now, token, record),
    undefined,
  );
  return { ...out, config, raw };
}

export type { ResolvedConfig };
export { CONFIG_ALERT_KEY, oweRemovals, resolveConfig };
