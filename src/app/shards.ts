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
import { buildMonitorConfig, leaf, type MonitorConfig, type RawConfig } from '../core/monitorConfig.ts';
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

/** SQS takes 256 KiB a message; leave room for the envelope. */
const MAX_MESSAGE_BYTES = 240 * 1024;

/** Split the targets (by name) into shards of at most `perShard`, halving any shard too large to send. */
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
  const byName = new Map<string, ['targets' | 'discovered', string, string]>();
  for (const [parameter, value] of Object.entries(raw.targets))
    byName.set(leaf(parameter), ['targets', parameter, value]);
  for (const [key, value] of Object.entries(raw.discovered ?? {})) byName.set(leaf(key), ['discovered', key, value]);
  const names = config.targets.map((t) => t.name).sort();
  const slices: RawConfig[] = [];
  const add = (chunk: string[]) => {
    const slice: RawConfig = { targets: {}, rules: raw.rules, silences: raw.silences };
    const discovered: Record<string, string> = {};
    for (const name of chunk) {
      const entry = byName.get(name);
      if (entry !== undefined) (entry[0] === 'targets' ? slice.targets : discovered)[entry[1]] = entry[2];
    }
    if (Object.keys(discovered).length > 0) slice.discovered = discovered;
    if (chunk.length > 1 && Buffer.byteLength(JSON.stringify(slice)) > MAX_MESSAGE_BYTES) {
      const half = Math.ceil(chunk.length / 2);
      add(chunk.slice(0, half));
      add(chunk.slice(half));
    } else slices.push(slice);
  };
  for (let i = 0; i < names.length; i += perShard) add(names.slice(i, i + perShard));
  return slices.map((slice, index) => ({
    version: 1,
    runId,
    scheduledAt,
    ...(generation === null ? {} : { generation }),
    shard: { index, count: slices.length },
    raw: slice,
  }));
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
  const targets: Record<string, string> = {};
  const left: string[] = [];
  for (const [parameter, value] of Object.entries(message.raw.targets)) {
    // Stored redacted: a parameter unchanged since is equal once redacted (and keeps its credentials).
    if (stored.raw.targets[parameter] === redactCredentials(value)) targets[parameter] = value;
    else left.push(leaf(parameter));
  }
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

/**
 * The queue-fed invocation: check each record's shard. Stale shards are dropped (a newer dispatch
 * covers them); unreadable ones and those whose pages SNS refused are returned for a retry.
 */
async function consumeShards(
  records: ReadonlyArray<{ messageId: string; body: string }>,
  deps: CycleDeps,
  now: Date,
  maxAgeSeconds: number,
): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }>; summaries: CycleSummary[] }> {
  const batchItemFailures: Array<{ itemIdentifier: string }> = [];
  const summaries: CycleSummary[] = [];
  for (const record of records) {
    const message = readMessage(record.body);
    if (message === null) {
      deps.logger.error('unreadable shard message', { messageId: record.messageId, body: record.body.slice(0, 200) });
      batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    if (now.getTime() - Date.parse(message.scheduledAt) > maxAgeSeconds * 1000) {
      deps.logger.warn('stale shard dropped', {
        runId: message.runId,
        shard: message.shard,
        scheduledAt: message.scheduledAt,
      });
      continue;
    }
    try {
      const { config, generation } = await shardConfig(deps, message);
      summaries.push(await checkShard(deps, config, now, generation));
    } catch (error) {
      deps.logger.error('shard failed', {
        runId: message.runId,
        shard: message.shard,
        error: (error as Error).message,
      });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures, summaries };
}

export { consumeShards, dispatchShards, MAX_MESSAGE_BYTES, planShards, StoredConfigUnreadableError };
