/**
 * The discovery step of a run, between reading a valid configuration and applying it: each
 * discovery document whose listing is due is listed through its source, its instances rendered
 * into targets, and the list in force (`RawConfig.discovered`) joined with the configured targets.
 * The configuration applied then holds the discovered targets as it holds target parameters, so a
 * target that left the list is removed exactly as a deleted target parameter is (its alerts
 * resolve as removed, never `target-down`), across cold starts and containers alike.
 *
 * A failing listing removes nothing: the refresh machine (`stepDiscovery`) keeps the last good
 * list, which is this container's while it is warm and at the table's generation, else the one
 * the stored configuration holds.
 */
import type { DiscoveryDocument } from '../../core/discovery/document.ts';
import { joinTargets, type NameCollision } from '../../core/discovery/join.ts';
import {
  type DiscoveredTarget,
  DiscoveryListingError,
  LISTING_FAILURES,
  type ListingOutcome,
  renderListing,
} from '../../core/discovery/listing.ts';
import {
  type DiscoveryOutcome,
  type DiscoveryState,
  discoveryDue,
  NEVER_LISTED,
  stepDiscovery,
} from '../../core/discovery/refresh.ts';
import {
  type ConfigProblem,
  discoveredKey,
  discoveredOrigin,
  leaf,
  type MonitorConfig,
  type RawConfig,
  readTarget,
  type TargetConfig,
} from '../../core/monitorConfig.ts';
import { readStoredConfig } from '../config/stored.ts';
import type { RunContext } from '../runContext.ts';
import type { DiscoveryDeps } from './ports.ts';

/** Skips and collisions logged per listing, at most (the count is always logged). */
const MAX_LOGGED = 20;

/** Where one discovery parameter stands after this run's step. */
interface DiscoveryStatus {
  document: DiscoveryDocument;
  /** Null: not listed this run (not due). */
  outcome: DiscoveryOutcome | null;
  failing: DiscoveryState['failing'];
  /** Targets of the list in force for it. */
  targets: number;
  /** Its instances left out because their target name is taken (`joinTargets`). */
  collisions: NameCollision[];
}

/** A valid configuration with the discovered targets joined, and each document's status. */
interface Discovered {
  raw: RawConfig;
  config: MonitorConfig;
  statuses: DiscoveryStatus[];
}

/** No source enabled: every document fails "not enabled" (a run without discovery dependencies). */
const NOTHING_ENABLED: DiscoveryDeps = { sources: {}, warm: new Map(), listingBudgetMs: () => 0 };

/** A target as `RawConfig.discovered` keeps it: a target parameter's JSON (no name, no origin). */
function bodyOf(target: TargetConfig): string {
  const { name: _name, origin: _origin, ...body } = target;
  return JSON.stringify(body);
}

/**
 * The list in force before this run, by discovery parameter: this container's applied
 * configuration when it is at the table's generation, else the stored one (another container
 * applied since, or a cold start).
 */
async function previousLists(
  ctx: RunContext,
  tableGeneration: string | null,
): Promise<Map<string, DiscoveredTarget[]>> {
  const warm = ctx.deps.warmConfig.applied;
  const raw =
    warm !== null && warm.generation === tableGeneration
      ? warm.raw
      : ((await readStoredConfig(ctx.deps.table))?.raw ?? null);
  const lists = new Map<string, DiscoveredTarget[]>();
  const problems: ConfigProblem[] = [];
  for (const [key, text] of Object.entries(raw?.discovered ?? {})) {
    const parameter = discoveredOrigin(key);
    const target = readTarget(key, leaf(key), text, problems, ctx.deps.secretScope, parameter);
    if (target === null) continue;
    const list = lists.get(parameter) ?? [];
    list.push({ parameter, instance: target.name, target });
    lists.set(parameter, list);
  }
  return lists;
}

/** The source's answer, a source not enabled or one that throws made a failed listing. */
async function listThrough(deps: DiscoveryDeps, document: DiscoveryDocument): Promise<ListingOutcome> {
  const { query } = document;
  const failed = (why: (typeof LISTING_FAILURES)[keyof typeof LISTING_FAILURES], detail: string, cause?: unknown) => ({
    ok: false as const,
    error: new DiscoveryListingError(query.source, why, detail, cause === undefined ? undefined : { cause }),
  });
  const budget = { budgetMs: deps.listingBudgetMs() };
  try {
    if (query.source === 'ec2' && deps.sources.ec2) return await deps.sources.ec2.list(query, budget);
    if (query.source === 'autoscaling' && deps.sources.autoscaling)
      return await deps.sources.autoscaling.list(query, budget);
    if (query.source === 'elbv2' && deps.sources.elbv2) return await deps.sources.elbv2.list(query, budget);
  } catch (error) {
    return failed(LISTING_FAILURES.other, (error as Error).message, error);
  }
  return failed(
    LISTING_FAILURES.notEnabled,
    `source not enabled: the deployment lists through ${Object.keys(deps.sources).join(', ') || 'no source'} (deploy option discoverySources)`,
  );
}

/** One document's step: listed when due, else its list in force as it stands. */
async function stepOne(
  ctx: RunContext,
  deps: DiscoveryDeps,
  document: DiscoveryDocument,
  text: string,
  previous: () => Promise<Map<string, DiscoveredTarget[]>>,
  fromTable: boolean,
): Promise<{ targets: readonly DiscoveredTarget[]; status: DiscoveryStatus }> {
  const { logger } = ctx.deps;
  const now = ctx.now.getTime();
  const warm = deps.warm.get(document.parameter);
  let state: DiscoveryState = warm?.state ?? NEVER_LISTED;
  // Another container applied since, or a cold start: the table's list is the one in force.
  if (warm === undefined || fromTable)
    state = { ...state, targets: (await previous()).get(document.parameter) ?? null };
  // A changed document is listed now (its templates or query changed); its list stays until then.
  if (warm !== undefined && warm.text !== text) state = { ...state, attemptedAt: null };
  if (!discoveryDue(state, now, document.refreshSeconds)) {
    deps.warm.set(document.parameter, { text, state });
    const targets = state.targets ?? [];
    const status = { document, outcome: null, failing: state.failing, targets: targets.length, collisions: [] };
    return { targets, status };
  }
  const answer = await listThrough(deps, document);
  const source = document.query.source;
  let step: ReturnType<typeof stepDiscovery>;
  if (answer.ok) {
    const rendered = renderListing(document, answer.listing.instances);
    const skipped = [...answer.listing.skipped, ...rendered.skipped];
    step = stepDiscovery(state, { ok: true, targets: rendered.targets }, now);
    logger.info('discovery listed', {
      parameter: document.parameter,
      source,
      outcome: step.outcome,
      targets: rendered.targets.length,
      appeared: step.diff.appeared.length,
      left: step.diff.left.length,
      calls: answer.listing.calls,
      throttledRetries: answer.listing.throttledRetries,
      skippedCount: skipped.length,
      skipped: skipped.slice(0, MAX_LOGGED),
    });
  } else {
    step = stepDiscovery(state, { ok: false, error: answer.error }, now);
    logger.error('discovery failing: the last good list stays in force', {
      parameter: document.parameter,
      source,
      outcome: step.outcome,
      why: answer.error.why,
      detail: answer.error.detail,
      targetsInForce: step.state.targets?.length ?? 0,
    });
  }
  deps.warm.set(document.parameter, { text, state: step.state });
  const targets = step.state.targets ?? [];
  const status = { document, outcome: step.outcome, failing: step.state.failing, targets: targets.length };
  return { targets, status: { ...status, collisions: [] } };
}

/**
 * `read`'s configuration with its discovered targets joined: each document listed when due, the
 * last good list of each kept when its listing fails or is not due. A discovered target whose name
 * a configured target (or an earlier discovery parameter) holds is left out and logged at each
 * run, and named in its document's status (`collisions`), whose discovery alert pages it once:
 * the holder keeps being checked.
 *
 * @throws when the stored configuration, needed for the list in force, cannot be read
 */
async function discoverTargets(
  ctx: RunContext,
  read: { raw: RawConfig; config: MonitorConfig; tableGeneration: string | null },
): Promise<Discovered> {
  const documents = read.config.discovery ?? [];
  const configured = read.config.targets.filter((t) => t.origin === undefined);
  if (documents.length === 0 && Object.keys(read.raw.discovered ?? {}).length === 0)
    return { raw: read.raw, config: read.config, statuses: [] };
  const deps = ctx.deps.discovery ?? NOTHING_ENABLED;
  const applied = ctx.deps.warmConfig.applied;
  const fromTable = applied === null || applied.generation !== read.tableGeneration;
  let lists: Promise<Map<string, DiscoveredTarget[]>> | null = null;
  const previous = () => {
    lists ??= previousLists(ctx, read.tableGeneration);
    return lists;
  };
  const steps = await Promise.all(
    documents.map((d) => stepOne(ctx, deps, d, read.raw.discovery?.[d.parameter] ?? '', previous, fromTable)),
  );
  const joined = joinTargets(
    configured,
    steps.flatMap((s) => s.targets),
  );
  if (joined.problems.length > 0)
    ctx.deps.logger.warn('discovered target names taken: left out', {
      count: joined.problems.length,
      collisions: joined.problems.slice(0, MAX_LOGGED).map((p) => `${p.parameter}: ${p.message}`),
    });
  const discovered: Record<string, string> = {};
  for (const [name, d] of joined.origins) discovered[discoveredKey(d.parameter, name)] = bodyOf(d.target);
  return {
    raw: { ...read.raw, discovered },
    config: { ...read.config, targets: joined.targets },
    statuses: steps.map((s) => ({
      ...s.status,
      collisions: joined.collisions.filter((c) => c.parameter === s.status.document.parameter),
    })),
  };
}

export type { Discovered, DiscoveryStatus };
export { discoverTargets, listThrough };
