/**
 * Sharded mode (`SHARD_MODE=sqs`), past what one invocation checks within its interval: the
 * scheduled invocation resolves the configuration once and sends one SQS message per shard of
 * targets; the same function, fed by the queue, checks only its shard's targets. Claims and
 * conditional writes keep pages one per transition even when a shard is retried or two shards
 * overlap; removed targets are resolved by the dispatch (it compares configurations).
 */
import { randomUUID } from 'node:crypto';
import { buildMonitorConfig, type MonitorConfig, type RawConfig } from '../core/monitorConfig.ts';
import { resolveConfig } from './config/resolve.ts';
import type { CycleDeps, ShardMessage, ShardQueue } from './ports.ts';
import { type CycleSummary, checkTargets, runFailure, runGroups, sendGroups } from './run.ts';

/** SQS takes 256 KiB a message; leave room for the envelope. */
const MAX_MESSAGE_BYTES = 240 * 1024;

/** Split the targets (by name) into shards of at most `perShard`, halving any shard too large to send. */
function planShards(
  raw: RawConfig,
  config: MonitorConfig,
  perShard: number,
  runId: string,
  scheduledAt: string,
): ShardMessage[] {
  const byName = new Map<string, [string, string]>();
  for (const [parameter, value] of Object.entries(raw.targets))
    byName.set(parameter.slice(parameter.lastIndexOf('/') + 1), [parameter, value]);
  const names = config.targets.map((t) => t.name).sort();
  const slices: RawConfig[] = [];
  const add = (chunk: string[]) => {
    const slice: RawConfig = { targets: {}, rules: raw.rules, silences: raw.silences };
    for (const name of chunk) {
      const entry = byName.get(name);
      if (entry) slice.targets[entry[0]] = entry[1];
    }
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
  const groups = runGroups(deps, now);
  const { config, raw, error, publishErrors, stateErrors, applied } = await resolveConfig(
    { ...deps, notifier: groups.notifier },
    now,
  );
  // The dispatch pages every open group that is due (shards page only the groups they handed to).
  await sendGroups(deps, groups, now, {
    all: true,
    publishFailures: publishErrors,
    stateFailures: stateErrors,
    silences: config?.silences ?? [],
  });
  const failure = runFailure(publishErrors, stateErrors);
  // A configuration that could not be stored is not dispatched: its removals would go unseen.
  if (config === null || raw === null || !applied) {
    if (failure !== null) throw failure;
    return { mode: 'dispatch', shards: 0, targets: 0, configError: error };
  }
  const messages = planShards(raw, config, options.perShard, randomUUID(), options.scheduledAt);
  await queue.send(messages);
  deps.logger.info('shards dispatched', { shards: messages.length, targets: config.targets.length });
  if (failure !== null) throw failure;
  return { mode: 'dispatch', shards: messages.length, targets: config.targets.length, configError: error };
}

function readMessage(body: string): ShardMessage | null {
  try {
    const m = JSON.parse(body) as ShardMessage;
    return m.version === 1 && typeof m.scheduledAt === 'string' && typeof m.raw === 'object' && m.raw !== null
      ? m
      : null;
  } catch {
    return null;
  }
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
      summaries.push(await checkTargets(deps, buildMonitorConfig(message.raw), now));
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

export { consumeShards, dispatchShards, planShards };
