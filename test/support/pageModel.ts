/**
 * A model of the monitor's world for the model-based test of page accounting: a few targets whose
 * closing-slot count the model sets, rules on it (renamed, removed, narrowed), silences, a
 * clock, several warm containers (each with its own warm memory and its own configuration cache at
 * the stack's age, 270 s), and faults: crashes at any table write or publish (before or
 * after it), SNS refusals, DynamoDB errors, late ticks (a tick's event run again after later
 * ones), sharded consumers on clocks of their own, and a configuration fixed in steps. Runs drive
 * the real `runCycle` against a state table (memory or dynalite); every accepted publish is
 * logged. `checkAfterCleanRun`, `checkLog` and `checkIncidents` state the invariants.
 */
import { createMemoryStateTable } from '../../src/adapters/memoryStateStore.ts';
import type { DiscoveryDeps } from '../../src/app/discovery/ports.ts';
import type {
  ConfigSource,
  CycleDeps,
  Notifier,
  ShardMessage,
  ShardQueue,
  StateTable,
  WarmConfig,
  WarmStates,
} from '../../src/app/ports.ts';
import { runCycle } from '../../src/app/run.ts';
import { consumeShards, dispatchShards } from '../../src/app/shards.ts';
import type { Notification } from '../../src/core/alerts/types.ts';
import { DEFAULT_DOWN_AFTER_FAILURES } from '../../src/core/constants.ts';
import type { RawConfig } from '../../src/core/monitorConfig.ts';
import { DISCOVERY_ALERT_RULE } from '../../src/core/notify/discoveryAlert.ts';
import type { EventsPer } from '../../src/core/pagerduty/events.ts';
import { globMatch } from '../../src/core/rules/glob.ts';
import type { PagerDutyLedger } from '../../src/forwarder/ports.ts';
import { ForwarderModel, type ForwardFault } from './forwarderModel.ts';
import { messageFields } from './messages.ts';
import { onlyTheseRules } from './rulesDocuments.ts';

const TARGET_POOL = ['a0', 'a1', 'b0', 'b1'] as const;
const GLOBS = ['*', 'a*', 'b*', 'a0', 'b1'] as const;
const LEASE_MS = 90_000;
const STEP_MS = 60_000;
/** The configuration cache of a warm container: the stack's default for a one-minute schedule. */
const CONFIG_MAX_AGE_MS = 270_000;
/** The longest `keepFiringFor` the generated rules have, in steps (settling waits it out). */
const MAX_KEEP_STEPS = 2;
/** The rule every target gets unless a configured rule watches `target_up` (src/core/evaluate.ts). */
const BUILT_IN_TARGET_DOWN: ModelRule = {
  name: 'target-down',
  threshold: 0,
  glob: '*',
  grouping: 1,
  wasGrouped: true,
  forSteps: DEFAULT_DOWN_AFTER_FAILURES - 1,
  keepSteps: 0,
  down: true,
};
/**
 * How old a shard message may be when consumed (`SHARD_MAX_AGE_SECONDS`): two and a half steps,
 * so a message can be checked a tick or two late, after a later dispatch (the stack's default,
 * one interval, drops most of those).
 */
const SHARD_MAX_AGE_SECONDS = 150;
/** Warm containers the model runs. */
const CONTAINERS = 3;
/**
 * The model's one discovery document, present or deleted (`discovery` commands). No source is
 * enabled in the model, so its listing always fails (`not-enabled`): its discovery alert fires
 * while it is present, and is owed a resolve once it is deleted.
 */
const DISCOVERY_PARAMETER = '/m/discovery/d0';
const DISCOVERY_DOCUMENT = JSON.stringify({
  source: 'ec2',
  filters: { 'tag:Role': ['web'] },
  url: 'http://{{privateIp}}/server-status?auto',
});
const T0 = Date.parse('2026-11-22T12:00:00Z');
/** Every rule's `groupInterval`: two steps, so alerts joining a group wait one run. */
const GROUP_INTERVAL_MS = 2 * STEP_MS;
/** `groupBy` choices: one page per alert, per rule, per target. */
const GROUPINGS = [[], ['rule'], ['target']] as const;

interface ModelRule {
  name: string;
  threshold: number;
  glob: string;
  /** Index into GROUPINGS. */
  grouping: number;
  /** Grouped at some point: its alerts may stay in their group after a regroup to `[]` (sticky). */
  wasGrouped: boolean;
  /** `for` in steps: how long the condition holds (pending) before the alert fires. */
  forSteps: number;
  /**
   * `target-down` (target_up == 0, the stack's downAfterFailures): the condition is a failing
   * fetch, and `forSteps` is the ticks after the first failure it takes (no `for` configured).
   */
  down?: boolean;
  /** `keepFiringFor` in steps: how long a firing alert keeps firing once its condition stops. */
  keepSteps: number;
}

/**
 * What a pair is owed at a run: `firing` (or `silenced`) and `not` are sure; `pending` (the
 * condition holds for less than `for`) owes nothing and must not have fired; `either` (within a
 * step of `for` running out, or kept firing after its condition stopped) accepts both.
 */
type Owed = 'firing' | 'silenced' | 'not' | 'pending' | 'either';

interface ModelSilence {
  target: string;
  rule: string;
  untilMs: number;
}

/** Where a run dies: at its `op`-th effect (table write or publish), before or after the effect. */
interface CrashPoint {
  op: number;
  after: boolean;
}

/** Index of a warm container, below CONTAINERS. */
type ContainerId = number;

/** A warm container: its memory of targets and its configuration cache (lost when it dies). */
interface Container {
  warm: WarmStates;
  warmConfig: WarmConfig;
  /** The discovery machine's memory (when each document was last listed). */
  discoveryWarm: DiscoveryDeps['warm'];
  cache: { atMs: number; raw: RawConfig } | null;
  source: ConfigSource;
}

type Command =
  | {
      kind: 'run';
      container: ContainerId;
      crash: CrashPoint | null;
      snsFailures: number;
      dynamoFailures: number;
      /** Turns waited before successive calls (cycled): how the run's own targets and groups interleave. */
      jitter?: readonly number[];
      /** Sharded mode: what becomes of each shard message (`World.consume`); default all checked now. */
      shards?: readonly number[];
    }
  | {
      kind: 'overlap';
      /** The two containers (distinct: B is taken among the others); default 0 and 1. */
      containerA?: ContainerId;
      containerB?: ContainerId;
      crashA: CrashPoint | null;
      crashB: CrashPoint | null;
      /** Macrotasks each of the two runs waits before its successive table calls and publishes (cycled). */
      jitterA?: readonly number[];
      jitterB?: readonly number[];
    }
  /**
   * Forwarder invocations: each takes the delivery at `picks[i]` of the queue (any order), with
   * the fault `faults[i]` (cycled; `forwardFault`).
   */
  | { kind: 'forward'; picks: readonly number[]; faults: readonly number[] }
  | { kind: 'closing'; target: number; count: number }
  | { kind: 'addTarget'; target: number }
  | { kind: 'removeTarget'; target: number }
  | {
      kind: 'addRule';
      threshold: number;
      glob: number;
      grouping: number;
      forSteps?: number;
      keepSteps?: number;
      /** A target-down rule instead of one on closing slots. */
      down?: boolean;
    }
  /** The target's fetches fail (a network error) from the next run on, or succeed again. */
  | { kind: 'fetchFails'; target: number; failing: boolean }
  | { kind: 'regroup'; index: number; grouping: number }
  | { kind: 'removeRule'; index: number }
  | { kind: 'renameRule'; index: number }
  | { kind: 'narrowRule'; index: number; glob: number }
  | { kind: 'silence'; target: number; rule: number; minutes: number }
  | { kind: 'endSilences' }
  /**
   * A tick's event run late, after later ticks' runs (EventBridge's retry after a throttle, or a
   * duplicate delivery): a run whose time is `back` steps before the clock (1: the last tick's
   * time again). In sharded mode a dispatch, its shards checked as `shards` says.
   */
  | { kind: 'lateRun'; container: ContainerId; back: number; shards?: readonly number[] }
  /**
   * The configuration made invalid (`parts` broken parameters, default 1: a different problem
   * set for each count) or valid again. Changing `parts` while broken is a fix made in steps.
   */
  | { kind: 'breakConfig'; broken: boolean; parts?: number }
  /** The discovery document added, or deleted (its alert then owes a resolve, across crashes and refusals). */
  | { kind: 'discovery'; present: boolean };

/** How a sequence runs: its table, sharded or not, and the forwarder's mapping and ledger. */
interface ModelOptions {
  table?: StateTable;
  sharded?: boolean;
  /** Targets per shard message (sharded mode). */
  perShard?: number;
  eventsPer?: EventsPer;
  /** The forwarder's ledger (default one in memory with the DynamoDB ledger's conditions). */
  ledger?: PagerDutyLedger;
  /**
   * Sharded mode: each container's clock as a consumer, ahead (+) or behind (-) the dispatcher's,
   * in ms (by container index, default 0). Within half a step: a `for` never runs out a tick early.
   */
  skews?: readonly number[];
}

interface Published {
  target: string;
  rule: string;
  status: 'firing' | 'resolved';
  evaluatedAt: string;
  atMs: number;
  /** Sent as or within a group's page: the alert's later pages go through its group too. */
  grouped: boolean;
}

class CrashError extends Error {
  constructor() {
    super('the process died here');
    this.name = 'CrashError';
  }
}

class World {
  nowMs = T0;
  targets = new Set<string>(['a0', 'b0']);
  closing = new Map<string, number>(TARGET_POOL.map((t) => [t, 0]));
  /** Targets whose fetches fail now. */
  failing = new Set<string>();
  /** When each target's fetches last succeeded again after failing. */
  recoveredMs = new Map<string, number>();
  rules: ModelRule[] = [
    { name: 'r0', threshold: 1, glob: '*', grouping: 1, wasGrouped: true, forSteps: 0, keepSteps: 0 },
  ];
  silences: ModelSilence[] = [];
  /** An invalid silences parameter is present: the last valid configuration stays in force. */
  broken = false;
  /** The discovery document is present (`DISCOVERY_PARAMETER`): its alert fires while it is. */
  discovery = false;
  /** How many silences parameters are broken while `broken` (each count its own problem set). */
  brokenParts = 1;
  /** [from, to) while the configuration was invalid: silences written then were not in force. */
  brokenSpans: Array<[number, number]> = [];
  ruleCounter = 1;
  containers: Container[] = [];
  /** When the configuration last changed: a warm container may use its cached copy this long after. */
  configChangedMs = Number.NEGATIVE_INFINITY;
  log: Published[] = [];
  /** Every accepted page's order, by what it is ordered within (its alert, or its group). */
  orders: OrderedPage[] = [];
  /** Runs that died or lost a write: duplicates may follow; claims may block until the lease ends. */
  dirtyRuns = 0;
  dirtyTimes: number[] = [];
  lastDirtyMs = Number.NEGATIVE_INFINITY;
  violations: string[] = [];
  /**
   * Per pair, what the model says it should be paged as (firing, silenced, not) and since when:
   * a grouped alert's page may wait one group interval after it changed.
   */
  stable = new Map<string, { state: Owed; sinceMs: number }>();
  /**
   * Per pair, the episode the model follows: since when its condition has held (the first run
   * that saw it), when it last held, and whether it reached `for` (so `keepFiringFor` applies).
   */
  episodes = new Map<string, { heldSinceMs: number; lastHeldMs: number; fired: boolean }>();
  /** When the configuration became valid again: everything it held back changed at once. */
  validAgainMs = Number.NEGATIVE_INFINITY;
  /** Run failures the model did not inject (reported, and the run counted as faulty). */
  unexpected: string[] = [];
  /** Sharded mode: runs dispatch shards of `perShard` targets into `shardQueue`; consumers check them. */
  sharded: boolean;
  perShard: number;
  /** SQS: shard messages not yet checked (or delivered again). */
  shardQueue: ShardMessage[] = [];
  /** Each container's clock as a consumer, relative to the dispatcher's (ms). */
  skews: readonly number[];
  /**
   * Every accepted page as an incident thread sees it: its `dedup_key` (a group page's group
   * id, else the alert's fingerprint), its order, status, and the alerts it says are firing.
   */
  threads: Array<{ key: string; order: number; status: 'firing' | 'resolved'; firing: string[]; seq: number }> = [];
  /** Every accepted page goes on to the PagerDuty forwarder. */
  readonly forwarder: ForwarderModel;
  readonly table: StateTable;

  constructor(options: ModelOptions = {}) {
    this.table = options.table ?? createMemoryStateTable();
    this.sharded = options.sharded === true;
    this.perShard = options.perShard ?? 1;
    this.forwarder = new ForwarderModel(options.eventsPer ?? 'group', options.ledger);
    this.skews = options.skews ?? [];
    for (let i = 0; i < CONTAINERS; i++) this.containers.push(this.newContainer());
  }

  /** A cold container: no memory, an empty configuration cache. */
  newContainer(): Container {
    const container: Container = {
      warm: new Map(),
      warmConfig: { applied: null },
      discoveryWarm: new Map(),
      cache: null,
      source: {
        loadRaw: async (options) => {
          const cache = container.cache;
          if (options?.fresh !== true && cache !== null && this.nowMs - cache.atMs < CONFIG_MAX_AGE_MS)
            return structuredClone(cache.raw);
          container.cache = { atMs: this.nowMs, raw: this.raw() };
          return structuredClone(container.cache.raw);
        },
        getSecret: async () => '',
      },
    };
    return container;
  }

  raw(): RawConfig {
    const targets: Record<string, string> = {};
    for (const t of this.targets)
      targets[`/m/targets/${t}`] = JSON.stringify({ url: `http://${t}.test/server-status` });
    const rules = this.rules.map((r) => ({
      name: r.name,
      metric: r.down === true ? 'target_up' : 'slots_closing',
      op: r.down === true ? '==' : '>=',
      threshold: r.down === true ? 0 : r.threshold,
      severity: 'warning',
      targets: [r.glob],
      groupBy: GROUPINGS[r.grouping],
      groupInterval: `${GROUP_INTERVAL_MS / 60_000}m`,
      ...(r.forSteps > 0 && r.down !== true ? { for: `${(r.forSteps * STEP_MS) / 60_000}m` } : {}),
      ...(r.keepSteps > 0 ? { keepFiringFor: `${(r.keepSteps * STEP_MS) / 60_000}m` } : {}),
    }));
    const silences = this.silences.map((s) => ({
      target: s.target,
      rule: s.rule,
      until: new Date(s.untilMs).toISOString(),
    }));
    return {
      targets,
      // The model's rules are the only ones (rules documents add to the built-ins, which it switches off).
      rules: rules.length > 0 ? { '/m/rules/all': onlyTheseRules(rules) } : {},
      silences: {
        ...(silences.length > 0 ? { '/m/silences/all': JSON.stringify({ silences }) } : {}),
        ...(this.broken
          ? Object.fromEntries(
              Array.from({ length: this.brokenParts }, (_, i) => [`/m/silences/broken-${i}`, '{"silences":[{}]}']),
            )
          : {}),
      },
      ...(this.discovery ? { discovery: { [DISCOVERY_PARAMETER]: DISCOVERY_DOCUMENT } } : {}),
    };
  }

  /** Every (target, rule) pair the model knows, configured or not: the ones pages may name. */
  pairs(): Array<{ target: string; rule: string }> {
    const names = new Set([...this.inForce().map((r) => r.name), ...this.log.map((p) => p.rule)]);
    return TARGET_POOL.flatMap((target) => [...names].map((rule) => ({ target, rule })));
  }

  /**
   * The rules in force: the model's, and the built-in `target-down` (grouped by rule, the default)
   * unless one of them watches `target_up`, as the evaluation adds it.
   */
  inForce(): ModelRule[] {
    if (this.rules.some((r) => r.down === true || r.name === BUILT_IN_TARGET_DOWN.name)) return this.rules;
    return [...this.rules, BUILT_IN_TARGET_DOWN];
  }

  ruleNamed(name: string): ModelRule | undefined {
    return this.inForce().find((r) => r.name === name);
  }

  holds(target: string, rule: string): boolean {
    const r = this.ruleNamed(rule);
    if (r === undefined || !this.configured(target, rule)) return false;
    if (r.down === true) return this.failing.has(target);
    return (this.closing.get(target) ?? 0) >= r.threshold;
  }

  configured(target: string, rule: string): boolean {
    const r = this.ruleNamed(rule);
    return r !== undefined && this.targets.has(target) && globMatch(r.glob, target);
  }

  /** Follow the pair's episode to this run and say what it is owed (see `Owed`). */
  owed(target: string, rule: string): Owed {
    const key = `${target}/${rule}`;
    const r = this.ruleNamed(rule);
    const now = this.nowMs;
    const episode = this.episodes.get(key);
    if (r === undefined || !this.configured(target, rule)) {
      // Left the configuration: resolved at once, whatever keepFiringFor says.
      this.episodes.delete(key);
      return 'not';
    }
    const forMs = r.forSteps * STEP_MS;
    // No report, no evaluation of rules on it: whatever they said may stand or change.
    if (r.down !== true && this.failing.has(target)) {
      this.episodes.delete(key);
      return 'either';
    }
    const recovered = this.recoveredMs.get(target) ?? Number.NEGATIVE_INFINITY;
    if (this.holds(target, rule)) {
      // Held at the run before, or back within keepFiringFor of a fired episode (the last run it did
      // not hold was within it): the same episode. At keepFiringFor's very edge either may be.
      const gap = episode === undefined ? Number.POSITIVE_INFINITY : now - episode.lastHeldMs;
      const kept = episode?.fired === true ? gap - STEP_MS : Number.POSITIVE_INFINITY;
      const continuing = episode !== undefined && (gap <= STEP_MS || kept < r.keepSteps * STEP_MS);
      const uncertain = !continuing && kept === r.keepSteps * STEP_MS;
      const current = continuing ? episode : { heldSinceMs: now, lastHeldMs: now, fired: false };
      current.lastHeldMs = now;
      this.episodes.set(key, current);
      if (current.fired || forMs === 0) {
        current.fired = true;
        return this.silenced(target, rule, now) ? 'silenced' : 'firing';
      }
      // A run's evaluation lost to a fault, or a container's stale configuration, starts `for` later.
      const surely = Math.max(
        current.heldSinceMs,
        this.lastDirtyMs + STEP_MS,
        this.configChangedMs + CONFIG_MAX_AGE_MS,
      );
      if (now - current.heldSinceMs >= forMs) current.fired = true;
      if (now - surely >= forMs + STEP_MS) return this.silenced(target, rule, now) ? 'silenced' : 'firing';
      // Pending owes nothing, unless a configuration change near its start may have hidden an episode.
      const changedNear =
        Math.max(this.configChangedMs, this.validAgainMs, r.down === true ? Number.NEGATIVE_INFINITY : recovered) +
        CONFIG_MAX_AGE_MS +
        STEP_MS;
      return now - current.heldSinceMs < forMs && !uncertain && changedNear <= current.heldSinceMs
        ? 'pending'
        : 'either';
    }
    // Just back from failing fetches: an episode from before them may still be kept firing.
    if (r.down !== true && now - recovered < (r.keepSteps + 2) * STEP_MS) {
      this.episodes.delete(key);
      return 'either';
    }
    if (episode === undefined || !episode.fired) {
      this.episodes.delete(key);
      return 'not';
    }
    // Kept firing up to keepFiringFor after it last held (and a step either way at its end).
    if (now - episode.lastHeldMs < r.keepSteps * STEP_MS + STEP_MS) return 'either';
    this.episodes.delete(key);
    return 'not';
  }

  silenced(target: string, rule: string, atMs: number): boolean {
    return this.silences.some((s) => atMs < s.untilMs && globMatch(s.target, target) && globMatch(s.rule, rule));
  }

  deps(container: ContainerId, faults: Faults): CycleDeps {
    const effect = async <T>(kind: 'write' | 'publish' | 'read', fn: () => Promise<T>): Promise<T> => {
      // Why: two overlapping runs interleave by the order their calls complete; waiting a chosen
      // number of turns per call makes fast-check explore (and replay) those orders.
      const turns = faults.jitter.length > 0 ? (faults.jitter[faults.calls++ % faults.jitter.length] as number) : 0;
      for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
      if (faults.crashed) throw new CrashError();
      if (kind !== 'read') {
        const op = faults.ops++;
        if (faults.crash?.op === op && !faults.crash.after) {
          faults.crashed = true;
          throw new CrashError();
        }
        if (kind === 'write' && faults.dynamoFailures > 0) {
          faults.dynamoFailures--;
          faults.lostWrite = true;
          throw Object.assign(new Error('throughput exceeded'), { name: 'ProvisionedThroughputExceededException' });
        }
        if (kind === 'publish' && faults.snsFailures > 0) {
          faults.snsFailures--;
          throw Object.assign(new Error('SNS is down'), { name: 'InternalError' });
        }
        const result = await fn();
        if (faults.crash?.op === op && faults.crash.after) {
          faults.crashed = true;
          throw new CrashError();
        }
        return result;
      }
      return fn();
    };
    const t = this.table;
    const table: StateTable = {
      loadMany: (keys) => effect('read', () => t.loadMany(keys)),
      put: (key, item, version, now) => effect('write', () => t.put(key, item, version, now)),
      remove: (key, version) => effect('write', () => t.remove(key, version)),
      getMeta: (key) => effect('read', () => t.getMeta(key)),
      putMeta: (key, value, version) => effect('write', () => t.putMeta(key, value, version)),
      deleteMeta: (key, version) => effect('write', () => t.deleteMeta(key, version)),
    };
    const notifier: Notifier = {
      publish: (n: Notification) =>
        effect('publish', async () => {
          this.log.push(...changesIn(n, this.nowMs));
          this.orders.push(orderOf(n, this.nowMs));
          this.threads.push(threadOf(n, this.threads.length));
          this.forwarder.published(n);
        }),
    };
    const { source, warm, warmConfig, discoveryWarm } = this.containers[container] as Container;
    return {
      config: source,
      secretScope: { prefix: '/m', sharedSecretParameters: [] },
      table,
      notifier,
      fetch: async (target) => {
        const name = new URL(target.url).hostname.replace('.test', '');
        if (this.failing.has(name))
          return { ok: false, reason: 'network', detail: 'connection refused', latencyMs: 1, url: target.url };
        const c = this.closing.get(name) ?? 0;
        // Eight idle slots whatever the closing count: free slots stay flat, so only the model's
        // rules on closing slots can fire (not the built-in exhaustion forecast).
        const body = `Total Accesses: 100\nUptime: 1000\nScoreboard: ${'C'.repeat(c)}${'_'.repeat(8)}\n`;
        return { ok: true, body, status: 200, contentType: 'text/plain', latencyMs: 1, url: target.url };
      },
      metrics: { target: () => {}, run: () => {} },
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      concurrency: 2,
      evaluate: { repeatIntervalMs: 1000 * 3600_000 },
      claimLeaseMs: LEASE_MS,
      warm,
      warmConfig,
      checkpointIntervalMs: 5 * STEP_MS,
      discovery: { sources: {}, warm: discoveryWarm, listingBudgetMs: () => 0 },
    };
  }

  /**
   * One tick's runs (overlapping when several) at the clock, then the clock moves on; with `back`
   * steps, a late tick's: run at that older time, between ticks (the clock stays), never a clean run.
   */
  async run(
    runs: Array<{ container: ContainerId; faults: Faults }>,
    shardPlan: readonly number[] = [],
    back = 0,
  ): Promise<void> {
    const now = new Date(this.nowMs - back * STEP_MS);
    if (back > 0) return this.lateRun(runs, shardPlan, now);
    for (const { target, rule } of this.pairs()) {
      const state = this.owed(target, rule);
      const key = `${target}/${rule}`;
      if (this.stable.get(key)?.state !== state) this.stable.set(key, { state, sinceMs: this.nowMs });
    }
    await this.cycles(runs, now);
    const consumers = this.sharded ? await this.consume(runs[0]?.container ?? 0, shardPlan, runs[0]?.faults) : [];
    let clean = this.settleFaults(runs, consumers);
    // A shard of this tick's dispatch not checked this tick: its targets' evaluation was lost.
    if (this.shardQueue.some((m) => m.scheduledAt === now.toISOString())) {
      clean = false;
      this.lastDirtyMs = this.nowMs;
    }
    // A configuration change reaches every warm container within its cache's age.
    if (clean && this.nowMs > this.lastDirtyMs + LEASE_MS && this.nowMs >= this.configChangedMs + CONFIG_MAX_AGE_MS)
      this.checkAfterCleanRun();
    this.nowMs += STEP_MS;
  }

  /**
   * A late tick's run (its dispatch and shards in sharded mode) at `now`, older than the clock.
   * Its evaluations, a tick or more behind, may lag what the model owes: the checks wait a lease.
   */
  async lateRun(
    runs: Array<{ container: ContainerId; faults: Faults }>,
    shardPlan: readonly number[],
    now: Date,
  ): Promise<void> {
    await this.cycles(runs, now);
    const consumers = this.sharded ? await this.consume(runs[0]?.container ?? 0, shardPlan, runs[0]?.faults) : [];
    this.settleFaults(runs, consumers);
    this.lastDirtyMs = this.nowMs;
  }

  /** The runs' cycles (or dispatches) at `now`; failures the model did not inject are reported. */
  async cycles(runs: Array<{ container: ContainerId; faults: Faults }>, now: Date): Promise<void> {
    const queue: ShardQueue = { send: async (messages) => void this.shardQueue.push(...messages) };
    await Promise.all(
      runs.map(({ container, faults }) =>
        (this.sharded
          ? dispatchShards(this.deps(container, faults), queue, now, {
              perShard: this.perShard,
              scheduledAt: now.toISOString(),
            })
          : runCycle(this.deps(container, faults), now)
        ).catch((error: Error) => {
          const causes = (error.cause as AggregateError | undefined)?.errors ?? [];
          // Failures the model did not inject (an emulator timing out under load): not a clean run.
          if (
            causes.some(
              (c: Error) =>
                c.name !== 'CrashError' &&
                c.name !== 'InternalError' &&
                c.name !== 'ProvisionedThroughputExceededException',
            )
          ) {
            faults.lostWrite = true;
            this.unexpected.push(
              `${iso(this.nowMs)}: ${causes.map((c: Error) => `${c.name}: ${c.message}`).join('; ')}`,
            );
          }
        }),
      ),
    );
  }

  /** Containers that died lose their memory; faulty runs recorded. Whether every run was clean. */
  settleFaults(
    runs: Array<{ container: ContainerId; faults: Faults }>,
    consumers: Array<{ container: ContainerId; faults: Faults }>,
  ): boolean {
    let clean = true;
    for (const { container, faults } of [...runs, ...consumers]) {
      if (faults.crashed) this.containers[container] = this.newContainer(); // died with its memory and cache
      if (faults.crashed || faults.lostWrite) {
        this.dirtyRuns++;
        this.dirtyTimes.push(this.nowMs);
        this.lastDirtyMs = this.nowMs;
      }
      if (faults.crashed || faults.lostWrite || faults.injectedSns) clean = false;
    }
    return clean;
  }

  /**
   * Sharded mode: the queue's messages (this tick's dispatch's, and any left from earlier ticks) taken by consumers in other containers, as `plan` says per message
   * (cycled; its first value also rotates where they start): 0 checked now, 1 left for later
   * (late), 2 checked now and delivered again later (at-least-once), 3 checked by a consumer that
   * dies (the message comes back). A consumer that fails leaves its message for a retry. The
   * first consumer gets the run's SNS refusals and DynamoDB errors. Answers the consumers' faults.
   */
  async consume(
    dispatcher: ContainerId,
    plan: readonly number[],
    runFaults: Faults | undefined,
  ): Promise<Array<{ container: ContainerId; faults: Faults }>> {
    const taken = this.shardQueue.splice(0);
    const start = taken.length === 0 ? 0 : (plan[0] ?? 0) % taken.length;
    const order = [...taken.slice(start), ...taken.slice(0, start)];
    const consumers: Array<{ container: ContainerId; faults: Faults }> = [];
    for (const [i, message] of order.entries()) {
      const action = plan.length === 0 ? 0 : (plan[i % plan.length] as number);
      if (action === 1) {
        this.shardQueue.push(message);
        continue;
      }
      if (action === 2) this.shardQueue.push(message);
      const container = (dispatcher + 1 + i) % CONTAINERS;
      const f =
        action === 3
          ? faults({ op: i % 5, after: i % 2 === 0 })
          : i === 0
            ? faults(null, runFaults?.snsFailures ?? 0, runFaults?.dynamoFailures ?? 0)
            : faults();
      const injected = f.crash !== null || f.snsFailures > 0 || f.dynamoFailures > 0;
      consumers.push({ container, faults: f });
      const { batchItemFailures } = await consumeShards(
        [{ messageId: `s${i}`, body: JSON.stringify(message) }],
        this.deps(container, f),
        new Date(this.nowMs + (this.skews[container] ?? 0)),
        SHARD_MAX_AGE_SECONDS,
      );
      if (batchItemFailures.length === 0) continue;
      this.shardQueue.push(message); // SQS delivers it again
      if (!injected) {
        f.lostWrite = true;
        this.unexpected.push(`${iso(this.nowMs)}: shard ${message.shard.index} failed with no fault injected`);
      }
    }
    return consumers;
  }

  /**
   * After a run with no fault, and no claim of a faulty run still in force: for every pair, the
   * latest page says FIRING when the condition holds outside a silence, and does not say
   * FIRING when the condition does not hold or the pair left the configuration.
   */
  checkAfterCleanRun(): void {
    const config = this.log.findLast((p) => p.rule === 'configuration');
    if (this.broken !== (config?.status === 'firing'))
      this.violations.push(
        `${iso(this.nowMs)} configuration ${this.broken ? 'invalid' : 'valid'}, latest page ${config?.status ?? 'none'}`,
      );
    // While invalid, the last valid configuration the system stored is in force, not the model's.
    if (this.broken) return;
    const discovery = this.log.findLast((p) => p.rule === DISCOVERY_ALERT_RULE);
    if (this.discovery !== (discovery?.status === 'firing'))
      this.violations.push(
        `${iso(this.nowMs)} discovery document ${this.discovery ? 'present' : 'deleted'}, latest page ${discovery?.status ?? 'none'}`,
      );
    for (const { target, rule } of this.pairs()) {
      const latest = this.log.findLast((p) => p.target === target && p.rule === rule);
      if (!this.settled(target, rule, latest?.grouped === true)) continue;
      const owed = this.stable.get(`${target}/${rule}`)?.state ?? 'not';
      if (owed === 'firing' && latest?.status !== 'firing')
        this.violations.push(
          `${iso(this.nowMs)} ${target}/${rule}: holds past its for, not silenced, latest page ${latest?.status ?? 'none'}`,
        );
      if (owed === 'not' && latest?.status === 'firing')
        this.violations.push(
          `${iso(this.nowMs)} ${target}/${rule}: does not hold (or unconfigured), latest page FIRING`,
        );
      if (owed === 'pending' && latest?.status === 'firing')
        this.violations.push(`${iso(this.nowMs)} ${target}/${rule}: pending (for not reached), latest page FIRING`);
    }
  }

  /**
   * Whether a pair's page is due by now: a never-grouped rule's at once; a grouped alert's (or one
   * of a rule no longer configured, whose resolve went to its group, or of a rule regrouped to `[]`,
   * whose alerts stay in their group while their record is kept) once its state has stood, and the
   * last faulty run's lease has run out, for a group interval and a run.
   */
  settled(target: string, rule: string, pagedInGroup: boolean): boolean {
    const r = this.ruleNamed(rule);
    if (r !== undefined && !r.wasGrouped && !pagedInGroup) return true;
    // A faulty run's claims hold pages until the lease ends; the recovered page restarts the group's clock.
    const since = Math.max(
      this.stable.get(`${target}/${rule}`)?.sinceMs ?? T0,
      this.validAgainMs,
      this.lastDirtyMs + LEASE_MS,
      this.configChangedMs + CONFIG_MAX_AGE_MS,
    );
    return this.nowMs - since >= GROUP_INTERVAL_MS + STEP_MS;
  }

  /**
   * Over the whole log, per pair: pages alternate FIRING, RESOLVED, except that a page in flight
   * when a run died or lost its commit may go out again: k pages of one status in a row need
   * k - 1 faulty runs between the first and the last of them. No FIRING page was evaluated under
   * a silence.
   */
  checkLog(silenceLog: Array<ModelSilence & { startMs: number }>): void {
    const byPair = new Map<string, Published[]>();
    for (const p of this.log) byPair.set(`${p.target}/${p.rule}`, [...(byPair.get(`${p.target}/${p.rule}`) ?? []), p]);
    for (const [pair, pages] of byPair) {
      for (let i = 0; i < pages.length; ) {
        let j = i;
        while (j + 1 < pages.length && pages[j + 1]?.status === pages[i]?.status) j++;
        const first = pages[i] as Published;
        const last = pages[j] as Published;
        const faults = this.dirtyTimes.filter((t) => t >= first.atMs && t <= last.atMs).length;
        if (j - i > faults)
          this.violations.push(
            `${pair}: ${j - i + 1} ${first.status} pages in a row (${pages
              .slice(i, j + 1)
              .map((p) => p.evaluatedAt)
              .join(', ')}) with ${faults} faulty run(s) between`,
          );
        i = j + 1;
      }
      for (const p of pages) {
        if (p.status !== 'firing') continue;
        const at = Date.parse(p.evaluatedAt);
        // Containers see the configuration made valid again within their cache's age.
        if (this.brokenSpans.some(([from, to]) => at >= from && at < to + CONFIG_MAX_AGE_MS)) continue;
        // A silence reaches every warm container within its configuration cache's age.
        if (
          silenceLog.some(
            (s) =>
              s.untilMs > at &&
              s.startMs + CONFIG_MAX_AGE_MS <= at &&
              globMatch(s.target, p.target) &&
              globMatch(s.rule, p.rule),
          )
        )
          this.violations.push(`${pair}: FIRING evaluated at ${p.evaluatedAt} under a silence`);
      }
    }
  }

  /**
   * The promise, at the end: every incident the monitor opened is closed or stands for an alert
   * still firing. An incident is a page thread per `dedup_key` (a group page's group id, else the
   * alert's fingerprint) as the page stream says: its newest page (highest order) FIRING must name
   * only alerts that fire now, of configured targets and rules (a removed target owns nothing
   * open); the configuration alert's, only while the configuration is invalid.
   */
  checkIncidents(): void {
    const newest = new Map<string, World['threads'][number]>();
    for (const p of this.threads) {
      const before = newest.get(p.key);
      if (before === undefined || p.order > before.order || (p.order === before.order && p.seq > before.seq))
        newest.set(p.key, p);
    }
    for (const [key, p] of newest) {
      if (p.status !== 'firing') continue;
      if (key.startsWith('configuration')) {
        if (!this.broken || key !== 'configuration') this.violations.push(`incident ${key} left open`);
        continue;
      }
      if (key.startsWith(`${DISCOVERY_ALERT_RULE}#`)) {
        if (!this.discovery) this.violations.push(`incident ${key} left open`);
        continue;
      }
      const stale = p.firing.filter((pair) => {
        const [target, rule] = pair.split('/') as [string, string];
        return !this.holds(target, rule) || this.silenced(target, rule, this.nowMs);
      });
      if (p.firing.length === 0 || stale.length > 0)
        this.violations.push(`incident ${key} left open for ${stale.join(', ') || 'no firing alert'}`);
    }
  }

  /**
   * Per alert (single pages) and per group (group pages): every accepted page carries an order,
   * and successive pages' orders strictly increase. A copy of a page in flight when a run died
   * or lost its commit, replayed from its claim, carries that page's order again (a consumer
   * drops it as not newer): an equal order needs a faulty run between the two.
   */
  checkOrders(): void {
    const last = new Map<string, OrderedPage>();
    for (const p of this.orders) {
      if (p.order === undefined) {
        this.violations.push(`${p.sequence}: page at ${iso(p.atMs)} carries no order`);
        continue;
      }
      const before = last.get(p.sequence);
      // A replay is rebuilt from the stored claim: same order, after a faulty run.
      const copy =
        before !== undefined &&
        before.order === p.order &&
        this.dirtyTimes.some((t) => t >= before.atMs && t <= p.atMs);
      if (before?.order !== undefined && before.order >= p.order && !copy)
        this.violations.push(
          `${p.sequence}: order ${p.order} at ${iso(p.atMs)} after order ${before.order} at ${iso(before.atMs)}`,
        );
      last.set(p.sequence, p);
    }
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/** An accepted page's place in its sequence: a single alert's pages, or a group's. */
interface OrderedPage {
  /** `alert a0/r1` or `group <id>` (a group of one's own page is claimed on its group). */
  sequence: string;
  order: number | undefined;
  atMs: number;
}

function orderOf(n: Notification, atMs: number): OrderedPage {
  const group = messageFields(n.payload).group as { id?: unknown } | undefined;
  const sequence = typeof group?.id === 'string' ? `group ${group.id}` : `alert ${n.target}/${n.rule}`;
  const order = n.payload.order;
  return { sequence, order: typeof order === 'number' ? order : undefined, atMs };
}

/** An accepted page as its incident thread sees it (`World.threads`). */
function threadOf(n: Notification, seq: number): World['threads'][number] {
  const group = messageFields(n.payload).group as { id?: unknown } | undefined;
  const key = typeof group?.id === 'string' ? `group ${group.id}` : n.fingerprint;
  const alerts = messageFields(n.payload).alerts;
  const firing = Array.isArray(alerts)
    ? (alerts as Array<{ target: string; rule: string; status: string }>)
        .filter((a) => a.status === 'firing')
        .map((a) => `${a.target}/${a.rule}`)
    : n.status === 'firing'
      ? [`${n.target}/${n.rule}`]
      : [];
  const order = typeof n.payload.order === 'number' ? n.payload.order : 0;
  return { key, order, status: n.status, firing, seq };
}

/**
 * The transitions a page tells of, one per alert: a single alert's page (unless a reminder), and
 * each alert of a group page marked `new` (the others are repeated there for context).
 */
function changesIn(n: Notification, atMs: number): Published[] {
  const alerts = messageFields(n.payload).alerts;
  if (messageFields(n.payload).kind !== 'group' || !Array.isArray(alerts)) {
    // A reminder, or the configuration alert's update (its problems changed): no transition.
    if (n.reason === 'repeat' || messageFields(n.payload).problemsChanged === true) return [];
    const grouped = messageFields(n.payload).group !== undefined;
    return [
      {
        target: n.target,
        rule: n.rule,
        status: n.status,
        evaluatedAt: String(messageFields(n.payload).evaluatedAt),
        atMs,
        grouped,
      },
    ];
  }
  return (alerts as Array<{ target: string; rule: string; status: 'firing' | 'resolved'; new: boolean }>)
    .filter((a) => a.new)
    .map((a) => ({
      target: a.target,
      rule: a.rule,
      status: a.status,
      evaluatedAt: String(messageFields(n.payload).evaluatedAt),
      atMs,
      grouped: true,
    }));
}

interface Faults {
  crash: CrashPoint | null;
  crashed: boolean;
  ops: number;
  snsFailures: number;
  dynamoFailures: number;
  injectedSns: boolean;
  lostWrite: boolean;
  jitter: readonly number[];
  calls: number;
}

const faults = (
  crash: CrashPoint | null = null,
  snsFailures = 0,
  dynamoFailures = 0,
  jitter: readonly number[] = [],
): Faults => ({
  jitter,
  calls: 0,
  crash,
  crashed: false,
  ops: 0,
  snsFailures,
  dynamoFailures,
  injectedSns: snsFailures > 0,
  lostWrite: false,
});

/** Commands that change the configuration (SSM parameters), which warm containers see within their cache's age. */
const CONFIG_CHANGES = new Set<Command['kind']>([
  'addTarget',
  'removeTarget',
  'addRule',
  'regroup',
  'removeRule',
  'renameRule',
  'narrowRule',
  'silence',
  'endSilences',
  'breakConfig',
  'discovery',
]);

const FORWARD_FAULTS = ['none', 'none', 'sendFails', 'answerLost', 'crashAfterSend', 'duplicate'] as const;

/** A forwarder fault from a number: its kind (a third none), and at which send (0 to 2). */
function forwardFault(n: number): ForwardFault {
  const kind = FORWARD_FAULTS[n % FORWARD_FAULTS.length] as (typeof FORWARD_FAULTS)[number];
  const at = Math.floor(n / FORWARD_FAULTS.length) % 3;
  return kind === 'none' || kind === 'duplicate' ? { kind } : { kind, at };
}

/** Apply one command; silences applied are appended to `silenceLog` with when they started. */
async function apply(world: World, command: Command, silenceLog: Array<ModelSilence & { startMs: number }>) {
  if (CONFIG_CHANGES.has(command.kind)) world.configChangedMs = world.nowMs;
  switch (command.kind) {
    case 'run':
      return world.run(
        [
          {
            container: command.container,
            faults: faults(command.crash, command.snsFailures, command.dynamoFailures, command.jitter),
          },
        ],
        command.shards,
      );
    case 'lateRun':
      return world.run(
        [{ container: command.container % CONTAINERS, faults: faults() }],
        command.shards,
        Math.max(1, command.back),
      );
    case 'overlap': {
      const a = (command.containerA ?? 0) % CONTAINERS;
      const b = (a + 1 + ((command.containerB ?? a) % (CONTAINERS - 1))) % CONTAINERS;
      return world.run([
        { container: a, faults: faults(command.crashA, 0, 0, command.jitterA) },
        { container: b, faults: faults(command.crashB, 0, 0, command.jitterB) },
      ]);
    }
    case 'forward':
      for (const [i, pick] of command.picks.entries())
        await world.forwarder.invoke(pick, forwardFault(command.faults[i % command.faults.length] ?? 0), world.nowMs);
      return;
    case 'closing':
      world.closing.set(TARGET_POOL[command.target] as string, command.count);
      return;
    case 'fetchFails': {
      const name = TARGET_POOL[command.target] as string;
      if (command.failing) world.failing.add(name);
      else if (world.failing.delete(name)) world.recoveredMs.set(name, world.nowMs);
      return;
    }
    case 'addTarget':
      world.targets.add(TARGET_POOL[command.target] as string);
      return;
    case 'removeTarget':
      world.targets.delete(TARGET_POOL[command.target] as string);
      return;
    case 'addRule':
      if (world.rules.length < 3)
        world.rules.push({
          name: `r${world.ruleCounter++}`,
          threshold: command.threshold,
          glob: GLOBS[command.glob] as string,
          grouping: command.grouping % GROUPINGS.length,
          wasGrouped: command.grouping % GROUPINGS.length !== 0,
          forSteps: command.down === true ? DEFAULT_DOWN_AFTER_FAILURES - 1 : (command.forSteps ?? 0),
          keepSteps: command.down === true ? 0 : (command.keepSteps ?? 0),
          ...(command.down === true ? { down: true } : {}),
        });
      return;
    case 'regroup': {
      const r = world.rules[command.index % Math.max(world.rules.length, 1)];
      if (r) {
        r.grouping = command.grouping % GROUPINGS.length;
        r.wasGrouped ||= r.grouping !== 0;
      }
      return;
    }
    case 'removeRule':
      world.rules.splice(command.index % Math.max(world.rules.length, 1), 1);
      return;
    case 'renameRule': {
      const r = world.rules[command.index % Math.max(world.rules.length, 1)];
      if (r) r.name = `r${world.ruleCounter++}`;
      return;
    }
    case 'narrowRule': {
      const r = world.rules[command.index % Math.max(world.rules.length, 1)];
      if (r) r.glob = GLOBS[command.glob] as string;
      return;
    }
    case 'silence': {
      const rule = world.rules[command.rule % Math.max(world.rules.length, 1)]?.name ?? '*';
      const s = {
        target: TARGET_POOL[command.target] as string,
        rule,
        untilMs: world.nowMs + command.minutes * STEP_MS,
      };
      world.silences.push(s);
      silenceLog.push({ ...s, startMs: world.nowMs });
      return;
    }
    case 'breakConfig':
      if (command.broken && !world.broken) world.brokenSpans.push([world.nowMs, Number.POSITIVE_INFINITY]);
      if (!command.broken && world.broken) {
        (world.brokenSpans.at(-1) as [number, number])[1] = world.nowMs;
        world.validAgainMs = world.nowMs;
      }
      world.broken = command.broken;
      world.brokenParts = Math.max(1, command.parts ?? 1);
      return;
    case 'discovery':
      world.discovery = command.present;
      return;
    case 'endSilences':
      for (const s of silenceLog) if (s.untilMs > world.nowMs) s.untilMs = world.nowMs;
      world.silences = [];
      return;
  }
}

/**
 * Run `commands`, then settle (silences ended; conditions cleared, or every target removed, or
 * every rule removed; clean runs past the lease) and check. Returns the violations found.
 */
async function runSequence(
  commands: Command[],
  settle: 'clear' | 'removeTargets' | 'removeRules',
  options: ModelOptions = {},
) {
  const world = new World(options);
  const silenceLog: Array<ModelSilence & { startMs: number }> = [];
  for (const command of commands) await apply(world, command, silenceLog);
  await apply(world, { kind: 'endSilences' }, silenceLog);
  await apply(world, { kind: 'breakConfig', broken: false }, silenceLog);
  await apply(world, { kind: 'discovery', present: false }, silenceLog);
  for (const t of [...world.failing])
    await apply(world, { kind: 'fetchFails', target: TARGET_POOL.indexOf(t as never), failing: false }, silenceLog);
  if (settle === 'clear') for (const t of TARGET_POOL) world.closing.set(t, 0);
  if (settle === 'removeTargets') world.targets.clear();
  if (settle === 'removeRules') world.rules = [];
  // Past a claim's lease, a group interval and a configuration cache's age: every owed page has gone out.
  const settleRuns = Math.ceil((CONFIG_MAX_AGE_MS + LEASE_MS + GROUP_INTERVAL_MS) / STEP_MS) + 1 + MAX_KEEP_STEPS;
  for (let i = 0; i < settleRuns; i++) await world.run([{ container: i % CONTAINERS, faults: faults() }]);
  for (const { target, rule } of world.pairs()) {
    const latest = world.log.findLast((p) => p.target === target && p.rule === rule);
    if (latest?.status === 'firing')
      world.violations.push(`after settling (${settle}): ${target}/${rule} last page FIRING`);
  }
  if (world.log.findLast((p) => p.rule === DISCOVERY_ALERT_RULE)?.status === 'firing')
    world.violations.push(`after settling (${settle}): ${DISCOVERY_PARAMETER} discovery alert last page FIRING`);
  world.checkLog(silenceLog);
  world.checkOrders();
  world.checkIncidents();
  // Every delivery and retry forwarded: PagerDuty's incidents end as the monitor's last pages say.
  await world.forwarder.settle(world.nowMs);
  world.violations.push(...world.forwarder.check());
  return {
    violations: world.violations,
    unexpected: world.unexpected,
    pages: world.log.length,
    dirtyRuns: world.dirtyRuns,
    log: world.log,
    orders: world.orders,
    pagerDuty: world.forwarder,
  };
}

export type { Command, ContainerId, CrashPoint, ModelOptions };
export { CONTAINERS, GLOBS, MAX_KEEP_STEPS, runSequence, TARGET_POOL };
