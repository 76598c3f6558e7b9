/**
 * Sharded mode (`SHARD_MODE=sqs`), past what one invocation checks within its interval: the
 * scheduled invocation resolves the configuration once and sends one SQS message per shard of
 * targets; the same function, fed by the queue, checks only its shard's targets. Claims and
 * conditional writes keep pages one per transition even when a shard is retried or two shards
 * overlap; removed targets are resolved by the dispatch (it compares configurations). A message
 * names the stored configuration's generation its dispatch applied: a consumer whose table moved
 * on since (a later dispatch applied another configuration) checks only what the stored one still
 * holds, with its rules and silences, so a late or repeated message never pages a target or rule
 * the operator removed (whose resolve would then never be owed).
 */
import {
  buildMonitorConfig,
  canonical,
  leaf,
  type MonitorConfig,
  mergedDocument,
  type RawConfig,
  renderTargetList,
  type TargetEntry,
  targetEntries,
} from '../core/monitorConfig.ts';
import { SHARD_BUDGET, SQS_LIMITS } from '../core/sqsLimits.ts';
import { STATE_KEYS } from '../core/stateKeys.ts';
import { redactCredentials } from '../core/text/sanitize.ts';
import { resolveConfig } from './config/resolve.ts';
import { readConfigGeneration, readStoredConfig } from './config/stored.ts';
import type { CycleDeps, ShardMessage, ShardQueue } from './ports.ts';
import { type CycleSummary, checkShard, runGroups, sendGroups } from './run.ts';
import { startRun } from './runContext.ts';

/** The stored configuration could not be read whole: the message is returned for a retry. */
class StoredConfigUnreadableError extends Error {
  constructor(generation: string | null) {
    super(
      `expected the stored configuration to check a shard dispatched at generation ${generation ?? '(none)'} against, found it ${generation === null ? 'absent' : 'unreadable (torn by a concurrent save)'}`,
    );
    this.name = 'StoredConfigUnreadableError';
  }
}

/** One target, with every rules and silences parameter, does not fit in one SQS message. */
class ShardTooLargeError extends Error {
  constructor(target: string, bytes: number) {
    super(
      `expected a shard message of one target (${target}) with every rules and silences parameter to fit in ${SHARD_BUDGET.messageBytes} bytes (SQS takes ${SQS_LIMITS.messageBytes}), found ${bytes} bytes: make the rules or silences documents smaller`,
    );
    this.name = 'ShardTooLargeError';
  }
}

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * The target parameters that hold `entries` (configured targets of `source`): a one-target
 * parameter as it is, a list document with only these entries, in their order, and its `defaults`.
 */
function parametersOf(entries: readonly TargetEntry[], source: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const lists = new Map<string, { documents: unknown[]; defaults: unknown }>();
  for (const entry of entries) {
    if (entry.index === null) out[entry.parameter] = source[entry.parameter] as string;
    else {
      const list = lists.get(entry.parameter) ?? { documents: [], defaults: entry.defaults };
      list.documents.push(entry.document);
      lists.set(entry.parameter, list);
    }
  }
  for (const [parameter, { documents, defaults }] of lists) out[parameter] = renderTargetList(documents, defaults);
  return out;
}

/** Bytes a string adds inside a JSON string (escaped, without its quotes). */
const escapedBytes = (text: string): number => bytes(JSON.stringify(text)) - 2;

/**
 * Split the targets (by name) into shards of at most `perShard` targets and at most
 * `SHARD_BUDGET.messageBytes` bytes of JSON each, whatever the target documents hold. A message
 * is its envelope (ids, times, every rules and silences parameter) plus its target parameters: a
 * one-target parameter whole, a list document with only the shard's entries and its `defaults`.
 * Each target's bytes are known before the message is written (a list's key, brackets and
 * defaults counted with its first entry in the shard), so shards are filled greedily.
 *
 * @throws ShardTooLargeError when the envelope and a single target exceed the budget
 */
function planShards(
  raw: RawConfig,
  config: MonitorConfig,
  perShard: number,
  runId: string,
  scheduledAt: string,
  /** Null: the dispatch applied no stored configuration (its consumers check what is stored). */
  generation: string | null,
): ShardMessage[] {
  // Discovered targets travel as the dispatch rendered them (`discovered`): shards never list.
  type Entry = { configured: TargetEntry } | { discovered: [key: string, value: string] };
  const byName = new Map<string, Entry>();
  for (const configured of targetEntries(raw.targets)) byName.set(configured.name, { configured });
  for (const [key, value] of Object.entries(raw.discovered ?? {})) byName.set(leaf(key), { discovered: [key, value] });
  const names = config.targets.map((t) => t.name).sort();
  const envelope = (entries: readonly Entry[], index: number, count: number): ShardMessage => {
    const configured = entries.flatMap((e) => ('configured' in e ? [e.configured] : []));
    const slice: RawConfig = {
      targets: parametersOf(configured, raw.targets),
      rules: raw.rules,
      silences: raw.silences,
    };
    const discovered = Object.fromEntries(entries.flatMap((e) => ('discovered' in e ? [e.discovered] : [])));
    if (Object.keys(discovered).length > 0) slice.discovered = discovered;
    return {
      version: 1,
      runId,
      scheduledAt,
      ...(generation === null ? {} : { generation }),
      shard: { index, count },
      raw: slice,
    };
  };
  // The envelope with no target, its shard numbers at their widest, and room for the `discovered`
  // folder's name: every message is at most this plus its entries.
  const widest = Math.max(names.length, 1);
  const base = bytes(JSON.stringify(envelope([], widest, widest))) + bytes(',"discovered":{}');
  /** `"parameter":"value"` and the comma before it (one too many for the first: an upper bound). */
  const pair = (key: string, value: string) => bytes(JSON.stringify(key)) + 1 + bytes(JSON.stringify(value)) + 1;
  const chunks: Entry[][] = [];
  let chunk: Entry[] = [];
  let size = base;
  /** The list documents the chunk has opened: a further entry of one adds itself and a comma. */
  let opened = new Set<string>();
  /** The bytes `entry` adds to a message of its own: its parameter, with a list's key, brackets and defaults. */
  const alone = (entry: Entry): number => {
    if ('discovered' in entry) return pair(...entry.discovered);
    const { parameter, index, document, defaults } = entry.configured;
    if (index === null) return pair(parameter, raw.targets[parameter] as string);
    return (
      pair(parameter, '') + escapedBytes(renderTargetList([], defaults)) + escapedBytes(JSON.stringify(document)) + 1
    );
  };
  for (const name of names) {
    const entry = byName.get(name);
    if (entry === undefined) continue;
    const standalone = alone(entry);
    if (base + standalone > SHARD_BUDGET.messageBytes) throw new ShardTooLargeError(name, base + standalone);
    const list = 'configured' in entry && entry.configured.index !== null ? entry.configured : null;
    // The entry and its comma, in a list document the chunk already holds.
    let entryBytes =
      list !== null && opened.has(list.parameter) ? escapedBytes(JSON.stringify(list.document)) + 1 : standalone;
    if (chunk.length >= perShard || size + entryBytes > SHARD_BUDGET.messageBytes) {
      chunks.push(chunk);
      chunk = [];
      size = base;
      opened = new Set();
      entryBytes = standalone;
    }
    if (list !== null) opened.add(list.parameter);
    chunk.push(entry);
    size += entryBytes;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks.map((entries, index) => envelope(entries, index, chunks.length));
}

/** The scheduled invocation in sharded mode: configuration once, then one message per shard. */
async function dispatchShards(
  deps: CycleDeps,
  queue: ShardQueue,
  now: Date,
  options: { perShard: number; scheduledAt: string },
): Promise<{ mode: 'dispatch'; shards: number; targets: number; configError: string | null }> {
  const ctx = startRun(deps, now);
  const groups = runGroups(ctx);
  const { config, raw, error, applied, generation } = await resolveConfig(ctx, groups.router);
  // The dispatch pages every open group that is due (shards page only the groups they handed to).
  await sendGroups(ctx, groups, { all: true, silences: config?.silences ?? [] });
  const failure = ctx.ledger.toError();
  // A configuration that could not be stored is not dispatched: its removals would go unseen.
  if (config === null || raw === null || !applied) {
    if (failure !== null) throw failure;
    return { mode: 'dispatch', shards: 0, targets: 0, configError: error };
  }
  const messages = planShards(raw, config, options.perShard, ctx.runId, options.scheduledAt, generation);
  await queue.send(messages);
  deps.logger.info('shards dispatched', { shards: messages.length, targets: config.targets.length });
  if (failure !== null) throw failure;
  return { mode: 'dispatch', shards: messages.length, targets: config.targets.length, configError: error };
}

function readMessage(body: string): ShardMessage | null {
  try {
    const m = JSON.parse(body) as ShardMessage;
    return m.version === 1 &&
      typeof m.scheduledAt === 'string' &&
      !Number.isNaN(Date.parse(m.scheduledAt)) &&
      typeof m.raw === 'object' &&
      m.raw !== null &&
      (m.generation === undefined || typeof m.generation === 'string')
      ? m
      : null;
  } catch {
    return null;
  }
}

/**
 * What a shard checks: its message's configuration while the table is still at the generation
 * its dispatch applied; else (a later dispatch applied another, or the message predates
 * generations) the stored configuration's rules and silences, and those of its targets the stored
 * configuration still holds unchanged (a changed one is the newer dispatch's to check). Either way
 * with the generation it stands for, so targets it creates while the table moves on again are
 * recorded as removals owed (`oweRemovals`).
 * @throws StoredConfigUnreadableError when the table moved on and its configuration cannot be read whole
 */
async function shardConfig(
  deps: CycleDeps,
  message: ShardMessage,
): Promise<{ config: MonitorConfig; generation: string }> {
  const generation = await readConfigGeneration(deps.table);
  if (message.generation !== undefined && generation === message.generation)
    return { config: buildMonitorConfig(message.raw, deps.secretScope), generation };
  const stored = await readStoredConfig(deps.table);
  if (stored?.raw == null) throw new StoredConfigUnreadableError(generation);
  const left: string[] = [];
  // Target by target, a list document's entries each on its own: its parameter and name, and
  // what it holds, an entry merged with its list's defaults (a changed default changes each
  // entry that keeps it; fields moved between an entry and the defaults change none). Stored
  // redacted: a target unchanged since is equal once redacted (and keeps its credentials).
  const place = (e: TargetEntry) => `${e.parameter}\n${e.name}`;
  const storedEntries = new Map(targetEntries(stored.raw.targets).map((e) => [place(e), e]));
  const kept = targetEntries(message.raw.targets).filter((entry) => {
    const was = storedEntries.get(place(entry));
    const same =
      was !== undefined &&
      (was.index !== null) === (entry.index !== null) &&
      (entry.index === null
        ? stored.raw?.targets[entry.parameter] === redactCredentials(message.raw.targets[entry.parameter] as string)
        : canonical(mergedDocument(was)) === redactCredentials(canonical(mergedDocument(entry))));
    if (!same) left.push(entry.name);
    return same;
  });
  const targets = parametersOf(kept, message.raw.targets);
  const discovered: Record<string, string> = {};
  for (const [key, value] of Object.entries(message.raw.discovered ?? {})) {
    if (stored.raw.discovered?.[key] === value) discovered[key] = value;
    else left.push(leaf(key));
  }
  deps.logger.warn('shard checked against the configuration stored since its dispatch', {
    runId: message.runId,
    shard: message.shard,
    dispatchGeneration: message.generation ?? null,
    storedGeneration: stored.pointer.generation,
    leftToNewerDispatch: left,
  });
  const raw: RawConfig = { targets, discovered, rules: stored.raw.rules, silences: stored.raw.silences };
  return { config: buildMonitorConfig(raw, deps.secretScope), generation: stored.pointer.generation };
}

/** One SQS record as the event source mapping delivers it (the fields a consumer reads). */
interface ShardRecord {
  messageId: string;
  body: string;
  /** `ApproximateReceiveCount`: 1 on the first delivery; more on a redelivery (a failed shard, or SQS's at-least-once). */
  attributes?: { ApproximateReceiveCount?: string };
}

/** What a consumer did with one record; the ones marked `returned` go back to SQS in `batchItemFailures`. */
const SHARD_OUTCOMES = {
  /** Checked to the end; its completion is recorded. */
  checked: 'checked',
  /** Its pages or state failed, or its configuration could not be read: returned for a retry. */
  failed: 'failed',
  /** Not a shard message: returned (one retry, then the dead-letter queue). */
  unreadable: 'unreadable',
  /** Past its tick on its first delivery: a newer dispatch covers its targets. */
  staleDropped: 'stale-dropped',
  /** Past its tick, delivered again, and recorded as checked: a duplicate (SQS delivers at least once). */
  staleDuplicate: 'stale-duplicate',
  /** Past its tick, delivered again, never recorded as checked: it failed before, so returned for the dead-letter queue. */
  staleDeadLettered: 'stale-dead-lettered',
} as const;
type ShardOutcome = (typeof SHARD_OUTCOMES)[keyof typeof SHARD_OUTCOMES];

const RETURNED: ReadonlySet<ShardOutcome> = new Set([
  SHARD_OUTCOMES.failed,
  SHARD_OUTCOMES.unreadable,
  SHARD_OUTCOMES.staleDeadLettered,
]);

/**
 * How long a shard's completion is kept: far longer than any redelivery can come (the queue keeps
 * a shard at most two intervals, two hours on the longest schedule).
 */
const SHARD_DONE_TTL_MS = 24 * 60 * 60 * 1000;

const shardDoneKey = (message: ShardMessage): string =>
  STATE_KEYS.shardDone(message.scheduledAt, message.runId, message.shard.index);

/**
 * Record that a shard was checked to the end, once (a conditional write: a duplicate that also
 * completed finds it there). A failed write is logged, not thrown: the targets are checked and
 * paged, and the worst it leaves is a late duplicate dead-lettered (a false DLQ alarm) rather
 * than a retry of a whole shard for its bookkeeping.
 */
async function recordShardDone(deps: CycleDeps, message: ShardMessage, now: Date): Promise<void> {
  try {
    await deps.table.putMeta(
      shardDoneKey(message),
      { runId: message.runId, scheduledAt: message.scheduledAt, shard: message.shard.index, doneAt: now.toISOString() },
      null,
      { expiresAt: new Date(now.getTime() + SHARD_DONE_TTL_MS) },
    );
  } catch (error) {
    deps.logger.warn('shard completion not recorded', {
      runId: message.runId,
      shard: message.shard,
      error: (error as Error).message,
    });
  }
}

/**
 * A shard past its tick: dropped on its first delivery; on a redelivery, a duplicate if its
 * completion is recorded, else one that failed before (returned, so SQS's redrive takes it to the
 * dead-letter queue, whose alarm pages). A completion that cannot be read counts as absent: a
 * false alarm is better than a failure passing as a success.
 */
async function staleOutcome(deps: CycleDeps, message: ShardMessage, receives: number): Promise<ShardOutcome> {
  const facts = { runId: message.runId, shard: message.shard, scheduledAt: message.scheduledAt, receives };
  if (receives <= 1) {
    deps.logger.warn('stale shard dropped', facts);
    return SHARD_OUTCOMES.staleDropped;
  }
  const done = await deps.table.getMeta(shardDoneKey(message)).catch((error: unknown) => {
    deps.logger.warn('shard completion unreadable', { ...facts, error: (error as Error).message });
    return null;
  });
  if (done !== null) {
    deps.logger.info('stale duplicate of a completed shard acknowledged', facts);
    return SHARD_OUTCOMES.staleDuplicate;
  }
  deps.logger.error('stale shard that failed before: returned for the dead-letter queue', facts);
  deps.metrics.run({ alertsSent: 0, targets: 0, targetsDown: 0, failed: true });
  return SHARD_OUTCOMES.staleDeadLettered;
}

/** One record, to its outcome. */
async function consumeShard(
  record: ShardRecord,
  deps: CycleDeps,
  now: Date,
  maxAgeSeconds: number,
  summaries: CycleSummary[],
): Promise<ShardOutcome> {
  const message = readMessage(record.body);
  if (message === null) {
    deps.logger.error('unreadable shard message', { messageId: record.messageId, body: record.body.slice(0, 200) });
    deps.metrics.run({ alertsSent: 0, targets: 0, targetsDown: 0, failed: true });
    return SHARD_OUTCOMES.unreadable;
  }
  const receives = Number(record.attributes?.ApproximateReceiveCount ?? 1);
  if (now.getTime() - Date.parse(message.scheduledAt) > maxAgeSeconds * 1000)
    return staleOutcome(deps, message, receives);
  let config: { config: MonitorConfig; generation: string };
  try {
    config = await shardConfig(deps, message);
  } catch (error) {
    deps.logger.error('shard failed', { runId: message.runId, shard: message.shard, error: (error as Error).message });
    // `checkShard` was not reached: the failed run is counted here.
    deps.metrics.run({ alertsSent: 0, targets: 0, targetsDown: 0, failed: true });
    return SHARD_OUTCOMES.failed;
  }
  try {
    // The shard's run time is its tick's, as a scheduled run's is its event's: a duplicate
    // delivery, or a late shard of the previous tick next to this one's, counts one failed
    // fetch per tick, and a shard of an older tick than the target's last evaluation is skipped.
    const tick = new Date(message.scheduledAt);
    summaries.push(await checkShard(deps, config.config, tick, config.generation));
  } catch (error) {
    // `checkShard` counted the failed run (its metrics are sent before it throws).
    deps.logger.error('shard failed', { runId: message.runId, shard: message.shard, error: (error as Error).message });
    return SHARD_OUTCOMES.failed;
  }
  await recordShardDone(deps, message, now);
  return SHARD_OUTCOMES.checked;
}

/**
 * The queue-fed invocation: check each record's shard at its tick's time (`scheduledAt`), its age
 * measured on `now`. A shard checked to the end is recorded as done (`STATE_KEYS.shardDone`). A
 * stale shard (older than the interval) is dropped on its first delivery (a newer dispatch covers
 * its targets); on a redelivery it is acknowledged as a duplicate if it was recorded as done, else
 * returned: it failed before, and SQS's redrive takes it to the dead-letter queue, whose alarm
 * pages, rather than its failure passing as a success. Unreadable shards and those whose pages or
 * state failed are returned for a retry and counted in `RunsFailed`, with no heartbeat.
 */
async function consumeShards(
  records: ReadonlyArray<ShardRecord>,
  deps: CycleDeps,
  now: Date,
  maxAgeSeconds: number,
): Promise<{
  batchItemFailures: Array<{ itemIdentifier: string }>;
  summaries: CycleSummary[];
  outcomes: Array<{ messageId: string; outcome: ShardOutcome }>;
}> {
  const summaries: CycleSummary[] = [];
  const outcomes: Array<{ messageId: string; outcome: ShardOutcome }> = [];
  for (const record of records)
    outcomes.push({
      messageId: record.messageId,
      outcome: await consumeShard(record, deps, now, maxAgeSeconds, summaries),
    });
  const batchItemFailures = outcomes
    .filter((o) => RETURNED.has(o.outcome))
    .map((o) => ({ itemIdentifier: o.messageId }));
  return { batchItemFailures, summaries, outcomes };
}

export type { ShardOutcome, ShardRecord };
export {
  consumeShards,
  dispatchShards,
  planShards,
  SHARD_DONE_TTL_MS,
  SHARD_OUTCOMES,
  ShardTooLargeError,
  StoredConfigUnreadableError,
};
