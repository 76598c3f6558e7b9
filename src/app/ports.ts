/**
 * The ports of a run: every interface the orchestration (`run.ts`, `shards.ts`, `accounting/`,
 * `config/`) depends on. Adapters implement them; the Lambda runtime and the tests compose them.
 * Nothing here imports an adapter, so the orchestration never depends on AWS types.
 */
import type { AlertRecord, EvaluateOptions, GroupRef, Notification, TargetState } from '../core/alerts/types.ts';
import type { FetchFailureReason } from '../core/downReasons.ts';
import type { MonitorConfig, RawConfig, SecretScope } from '../core/monitorConfig.ts';
import type { MetricResult } from '../core/rules/compute.ts';
import type { DiscoveryDeps } from './discovery/ports.ts';

/** One status page to fetch. */
type FetchTarget = {
  /** Name used in alerts and logs. */
  name: string;
  /** `http://` or `https://` URL of the page, e.g. `https://web-1:8443/server-status?auto`. */
  url: string;
  /** Whole-request limit, connect + headers + body + redirects (default `DEFAULT_TIMEOUT_MS`). */
  timeoutMs?: number;
  /** Response size cap, enforced while streaming (default `DEFAULT_MAX_BYTES`). */
  maxBytes?: number;
  /** Basic auth; userinfo in `url` is used when this is absent. */
  auth?: { username: string; password: string };
  /** PEM CA bundle that replaces the system roots for this target. */
  ca?: string;
  /**
   * Loopback addresses may be reached (a sidecar of the Lambda; every target of the CLI). Absent:
   * refused. Link-local, unspecified and the Lambda runtime API are refused whatever this says.
   */
  allowLoopback?: boolean;
};

/** The outcome of a fetch (`fetchStatusPage` in the Lambda); `url` is the final URL, without credentials. */
type FetchResult =
  | { ok: true; body: string; status: number; contentType: string | null; latencyMs: number; url: string }
  | { ok: false; reason: FetchFailureReason; detail: string; status?: number; latencyMs: number; url: string };

/** Where the configuration comes from (SSM in the Lambda). */
interface ConfigSource {
  /**
   * The raw parameters; names are full parameter names. A source may answer from a cache;
   * `fresh` asks it not to (another container applied a configuration this one may not have seen).
   */
  loadRaw(options?: { fresh?: boolean }): Promise<RawConfig>;
  /** A (decrypted) parameter value, e.g. a SecureString holding `user:password`. */
  getSecret(name: string): Promise<string>;
}

/**
 * Where a grouped page was accepted: the group item that holds it (`GroupRef.continuation` names
 * a continuation), or null when it went out on its own (every item of its group was full).
 */
interface Delivery {
  group: GroupRef | null;
}

/** Delivers a notification (SNS in the Lambda); throws when it was not accepted. */
interface Notifier {
  publish(notification: Notification): Promise<void>;
}

/**
 * Where a run's claimed pages go (the run's `groupingRouter`): a grouped page to its group, any
 * other straight to the `Notifier`. Answers where a grouped page was accepted (null: the page
 * names no group); throws when it was not accepted.
 */
interface PageRouter {
  publish(notification: Notification, options?: DeliverOptions): Promise<Delivery | null>;
}

interface DeliverOptions {
  /** The page is a claim's replay: its run may have handed it over already, to a continuation. */
  replay?: boolean;
}

/** One page recorded in a claim: published after the claim, marked sent by the commit. */
interface ClaimedPage {
  notification: Notification;
  /** The page's alert as it stands once the page is accepted (sent marks set); null: it leaves the state. */
  record: AlertRecord | null;
}

/** The part of a claim every kind of item shares: whose it is, and until when. */
interface Lease {
  token: string;
  /** Epoch milliseconds after which another run may take the claim over. */
  expiresAtMs: number;
}

/**
 * Intent recorded on a state item before publishing: a lease, and what the pages about to go out
 * are (`About`: the pages themselves for a target, what a group page names for a group). A run
 * that finds an expired claim publishes its pages again (they may or may not have gone out)
 * before doing anything else with the item.
 */
type Claimed<About> = Lease & About;

/** A target item's (or the configuration alert's) claim. */
type Claim = Claimed<{
  pages: ClaimedPage[];
  /** Delete the item once every page was accepted (its target left the configuration). */
  deleteAfter: boolean;
}>;

/** One state item as read: its body and the version every write is conditional on. */
interface StoredState {
  version: number;
  state: TargetState;
  claim: Claim | null;
  /**
   * Random, set when the item is created and kept by every write of it: an item deleted and
   * created again restarts its versions but never its generation, so memory of the old item can
   * never be taken for the new one. Absent on items written before generations.
   */
  generation?: string;
}

/** What a write of a state item stores (the version is the table's). */
type StateItem = Omit<StoredState, 'version'>;

/**
 * The state table: one item per target (and one for the configuration alert) holding its
 * counters, its failures and every alert record, so one read finds every alert of a target.
 * Every write is conditional on the version read (null: the item must not exist) and stores
 * version + 1; a failed condition answers false (another run got there first), never throws.
 */
interface StateTable {
  /** The items at `keys` (batched, consistent reads); absent keys are absent from the map. */
  loadMany(keys: readonly string[]): Promise<Map<string, StoredState>>;
  put(key: string, item: StateItem, expectedVersion: number | null, now: Date): Promise<boolean>;
  /** Delete the item if it is still at `expectedVersion`. */
  remove(key: string, expectedVersion: number): Promise<boolean>;
  getMeta(key: string): Promise<{ value: Record<string, unknown>; version: number } | null>;
  /**
   * Write a `meta#` item; with `expectedVersion` only if it is still at that version (null: absent).
   * With `expiresAt` the table deletes it some time after then (DynamoDB's TTL; the memory table keeps it).
   */
  putMeta(
    key: string,
    value: Record<string, unknown>,
    expectedVersion?: number | null,
    options?: { expiresAt?: Date },
  ): Promise<boolean>;
  /** Delete a `meta#` item; with `expectedVersion` only if it is still at that version (false: it moved on). */
  deleteMeta(key: string, expectedVersion?: number): Promise<boolean>;
}

/** What a warm container remembers between runs about one target (the table holds less, written rarely). */
interface WarmEntry {
  /** The table version this memory extends (0: not stored yet); stale (ignored) once the item's version moved on. */
  version: number;
  /** The generation of the item it extends: stale (ignored) once the item was deleted and created again. */
  generation?: string;
  state: TargetState;
  /** For a target not stored yet (version 0): when this container first evaluated it. */
  firstSeenMs?: number;
  /**
   * The forecast's free-slot samples and the last report in brief: kept in the warm container
   * only, never in the table (no write per run for them), whatever `version` says.
   */
  warmOnly?: Pick<TargetState, 'samples' | 'lastReport'>;
}

/** Per-container memory between invocations: target name -> what the last run of it left. */
type WarmStates = Map<string, WarmEntry>;

/** A configuration as this container applied it (stored as the last valid one), unredacted. */
interface AppliedConfig {
  hash: string;
  config: MonitorConfig;
  raw: RawConfig;
  /** Removed targets whose removal had not finished when it was stored. */
  removing: string[];
  /** Deleted discovery parameters whose alert was not resolved (and its item deleted) when it was stored. */
  retiringDiscovery: string[];
  /** The stored pointer's generation when this container applied it: the table's word, not the hash. */
  generation: string;
}

/** Per-container memory of the configuration between invocations (null: none applied yet, a cold start). */
interface WarmConfig {
  applied: AppliedConfig | null;
  /**
   * The stored configuration's generation when this container last read its parameters with
   * nothing applied (its first apply failed, or the configuration is invalid): once the table
   * moves past it, the source's cache is older than what another container applied, and loses.
   */
  readAt?: string | null;
}

interface TargetMetrics {
  target: string;
  up: boolean;
  fetchLatencyMs: number;
  /** The catalogue's metrics exactly as the rules saw them (`EvaluateResult.metrics`); empty when not evaluated. */
  metrics: ReadonlyMap<string, MetricResult>;
}

interface MetricsSink {
  target(values: TargetMetrics): void;
  /** Once per configuration read (the scheduled run's, the dispatch's): `unreadable` when its source could not be read. */
  configuration?(values: { unreadable: boolean }): void;
  /** Once per run; `failed`: its pages or state failed (no heartbeat then, a failed run counted). */
  run(values: { alertsSent: number; targets: number; targetsDown: number; failed: boolean }): void;
  /** Whether a discovery parameter's listing fails (1) or not (0), once per run and parameter. */
  discovery?(values: { parameter: string; failing: boolean }): void;
}

interface Logger {
  info(message: string, extra: Record<string, unknown>): void;
  warn(message: string, extra: Record<string, unknown>): void;
  error(message: string, extra: Record<string, unknown>): void;
}

/** SQS message body, one per shard. */
interface ShardMessage {
  version: 1;
  /** Per dispatch; correlates the shards of one run in logs. */
  runId: string;
  /** The scheduled event's time: a shard older than the interval is obsolete. */
  scheduledAt: string;
  /**
   * The stored configuration's generation the dispatch applied (`LastValidPointer.generation`): a
   * consumer whose table moved on since checks what the stored configuration holds instead.
   * Absent on messages sent before it was kept (they are checked the same way).
   */
  generation?: string;
  shard: { index: number; count: number };
  /** This shard's target parameters and every rules and silences parameter (no secrets). */
  raw: RawConfig;
}

interface ShardQueue {
  send(messages: ShardMessage[]): Promise<void>;
}

/** Everything one run needs. */
interface CycleDeps {
  config: ConfigSource;
  /** Which parameters a target may name (its own secrets, the shared ones): checked at validation and before each read. */
  secretScope: SecretScope;
  table: StateTable;
  notifier: Notifier;
  fetch(target: FetchTarget): Promise<FetchResult>;
  metrics: MetricsSink;
  logger: Logger;
  concurrency: number;
  /** A fetch unanswered this long waits without its slot (`fetchAll`'s patience); default `FETCH_PATIENCE_MS`. */
  fetchPatienceMs?: number;
  evaluate: Partial<EvaluateOptions>;
  /** How long a claim blocks other runs; longer than the function's timeout. */
  claimLeaseMs: number;
  /** Memory kept while the container is warm (counters, last evaluation); a new Map is a cold start. */
  warm: WarmStates;
  /** The configuration this container applied last, kept while it is warm; `{ applied: null }` is a cold start. */
  warmConfig: WarmConfig;
  /** A target's counters are written at least this often even when nothing changed (default 15 min). */
  checkpointIntervalMs?: number;
  /** Start order: higher first (`LatencyMemory.priority`); default name order. */
  fetchPriority?(target: string): number;
  /** Alerts a group item holds and items a group may use (MAX_GROUP_MEMBERS, MAX_GROUP_ITEMS); tests set fewer. */
  groupLimits?: { maxMembers?: number; maxItems?: number };
  /** The enabled discovery sources and their memory; absent: every discovery document fails "not enabled". */
  discovery?: DiscoveryDeps;
}

export type {
  AppliedConfig,
  Claim,
  Claimed,
  ClaimedPage,
  ConfigSource,
  CycleDeps,
  DeliverOptions,
  Delivery,
  FetchResult,
  FetchTarget,
  Lease,
  Logger,
  MetricsSink,
  Notifier,
  PageRouter,
  ShardMessage,
  ShardQueue,
  StateItem,
  StateTable,
  StoredState,
  TargetMetrics,
  WarmConfig,
  WarmEntry,
  WarmStates,
};
