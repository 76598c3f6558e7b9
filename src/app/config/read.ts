/**
 * Reading a run's configuration, writing nothing: the parameters (afresh when another container
 * applied a configuration since this one did, or since it read them with nothing applied), validated whole; when invalid or unreadable, the
 * last valid configuration to keep in force (this container's, else the table's copy) and the
 * problems the configuration alert pages. Table failures on the way join the run's ledger.
 */
import { createHash } from 'node:crypto';
import {
  buildMonitorConfig,
  ConfigurationError,
  type MonitorConfig,
  type RawConfig,
} from '../../core/monitorConfig.ts';
import { redactCredentials } from '../../core/text/sanitize.ts';
import type { AppliedConfig } from '../ports.ts';
import { guarded, type RunContext } from '../runContext.ts';
import { readConfigGeneration, readStoredConfig } from './stored.ts';
import { ConfigUnreadableError } from './unreadable.ts';

/** What a run read: a valid configuration, or the problems of an invalid one and what stays in force. */
type ConfigRead =
  | {
      valid: true;
      raw: RawConfig;
      config: MonitorConfig;
      /** The table's word on which configuration was applied last (null: none, or unreadable). */
      tableGeneration: string | null;
    }
  | {
      valid: false;
      /** Every problem, one line each, credentials redacted. */
      problems: string[];
      /** The last valid configuration, kept in force (null: none could be read). */
      fallback: AppliedConfig | null;
      /** The source could not be read (`ConfigUnreadableError`): not known to be invalid, so not paged. */
      unreadable: boolean;
    };

/** A configuration's identity: the hash the stored pointer names. */
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
  ctx: RunContext,
  current: RawConfig | null,
  tableGeneration: string | null,
): Promise<AppliedConfig | null> {
  const warm = ctx.deps.warmConfig.applied;
  if (warm && warm.generation === tableGeneration) return warm;
  const stored = await readStoredConfig(ctx.deps.table);
  if (stored?.raw == null) return null;
  const raw = stored.raw;
  for (const [name, value] of Object.entries(current?.targets ?? {}))
    if (raw.targets[name] !== undefined && redactCredentials(value) === raw.targets[name]) raw.targets[name] = value;
  try {
    const { hash, removing, retiringDiscovery, generation } = stored.pointer;
    const config = buildMonitorConfig(raw, ctx.deps.secretScope);
    return { hash, config, raw, removing, retiringDiscovery, generation };
  } catch {
    return null;
  }
}

/**
 * Read and validate the configuration; writes nothing.
 *
 * @example
 * const read = await readConfig(ctx);
 * if (read.valid) console.log(read.config.targets.length);
 */
async function readConfig(ctx: RunContext): Promise<ConfigRead> {
  const { deps } = ctx;
  // The table's word on which configuration was applied last. Why: when another container applied
  // one since this container did, this container's cached parameters may predate it (a removal it
  // would undo, a removed target it would page again): it reads them afresh.
  const tableGeneration = await guarded(
    ctx,
    'reading the configuration pointer',
    () => readConfigGeneration(deps.table),
    undefined,
  );
  const warm = deps.warmConfig.applied;
  // With nothing applied here (a first apply that failed), the generation the cache was read at
  // stands in: a cache read before another container stored a configuration must not undo it.
  const fresh =
    warm !== null
      ? warm.generation !== tableGeneration
      : tableGeneration != null && (deps.warmConfig.readAt ?? null) !== tableGeneration;
  let raw: RawConfig | null = null;
  try {
    raw = await deps.config.loadRaw(fresh ? { fresh } : undefined);
    if (tableGeneration !== undefined) deps.warmConfig.readAt = tableGeneration;
    return {
      valid: true,
      raw,
      config: buildMonitorConfig(raw, deps.secretScope),
      tableGeneration: tableGeneration ?? null,
    };
  } catch (error) {
    const problems = problemLines(error).map(redactCredentials);
    const fallback = await guarded(
      ctx,
      'reading the last valid configuration',
      () => fallbackConfig(ctx, raw, tableGeneration ?? null),
      null,
    );
    const unreadable = error instanceof ConfigUnreadableError;
    deps.logger.error(unreadable ? 'configuration unreadable' : 'invalid configuration', {
      problems: problems.slice(0, 50),
      problemCount: problems.length,
      lastValidInForce: fallback !== null,
    });
    return { valid: false, problems, fallback, unreadable };
  }
}

export type { ConfigRead };
export { hashOf, readConfig };
