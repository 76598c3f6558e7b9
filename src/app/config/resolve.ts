/**
 * The configuration step of a run: read (`read.ts`, writing nothing), apply a valid configuration
 * (`apply.ts`: stored as the last valid one, removed targets resolved and deleted through
 * `removals.ts`), and commit the configuration alert (`configAlert.ts`). Invalid or unreadable
 * configuration never silences monitoring: the last valid configuration stays in force and the
 * configuration alert fires. What the steps wrote, sent and what failed is in the run's ledger.
 */
import type { MonitorConfig, RawConfig } from '../../core/monitorConfig.ts';
import { discoverTargets } from '../discovery/discover.ts';
import { commitDiscoveryAlerts } from '../discovery/discoveryAlert.ts';
import type { PageRouter } from '../ports.ts';
import { guarded, type RunContext } from '../runContext.ts';
import { applyConfig, discoveryRetired } from './apply.ts';
import { commitConfigAlert } from './configAlert.ts';
import { readConfig } from './read.ts';

/** The configuration a run checks its targets with (its writes and failures: the run's ledger). */
interface ResolvedConfig {
  /** Null: no valid configuration, now or before (nothing is checked). */
  config: MonitorConfig | null;
  raw: RawConfig | null;
  /** The problems of the configuration read, one line each joined by "; " (null: it is valid). */
  error: string | null;
  /**
   * Whether `config` is stored as the last one applied. Only then may targets be evaluated: a
   * target that pages must be in the stored configuration, or its later removal goes unseen.
   */
  applied: boolean;
  /** The stored pointer's generation `config` was applied at (null: not applied, or none stored). */
  generation: string | null;
}

/**
 * The configuration for this run, its problems if any; pages (the configuration alert, removed
 * targets' resolves) go through `router`.
 *
 * @example
 * const { config, error } = await resolveConfig(startRun(deps, new Date()), router);
 */
async function resolveConfig(ctx: RunContext, router: PageRouter): Promise<ResolvedConfig> {
  const read = await readConfig(ctx);
  ctx.deps.metrics.configuration?.({ unreadable: !read.valid && read.unreadable });
  if (!read.valid) {
    const { problems, fallback } = read;
    const inForce = fallback?.config.targets.length ?? null;
    // An unreadable source (throttled, denied, timed out) is not an invalid configuration: no
    // page, and the alert stays as it stood; the metric and its alarm tell the operator.
    if (!read.unreadable)
      await guarded(ctx, 'the configuration alert', () => commitConfigAlert(ctx, router, problems, inForce), undefined);
    return {
      config: fallback?.config ?? null,
      raw: fallback?.raw ?? null,
      error: problems.slice(0, 50).join('; '),
      applied: fallback !== null,
      generation: fallback?.generation ?? null,
    };
  }
  // The discovered targets join before the configuration is applied, so that it holds them.
  const discovered = await guarded(ctx, 'discovery', () => discoverTargets(ctx, read), null);
  if (discovered === null) {
    // Without the list in force, applying would remove every discovered target: checked, not evaluated.
    return { config: read.config, raw: read.raw, error: null, applied: false, generation: null };
  }
  const joined = { ...read, raw: discovered.raw, config: discovered.config };
  const applied = await guarded(ctx, 'applying the configuration', () => applyConfig(ctx, router, joined), null);
  const targets = joined.config.targets.length;
  await guarded(ctx, 'the configuration alert', () => commitConfigAlert(ctx, router, null, targets), undefined);
  // A deleted discovery parameter's alert is resolved, then no longer owed in the stored pointer.
  // A parameter's alert is evaluated only once its configuration is stored (its deletion then seen).
  const alerts = {
    statuses: discovered.statuses,
    generation: applied?.applied.generation ?? null,
    removed: applied?.retiredDiscovery ?? [],
  };
  const done = await guarded(ctx, 'the discovery alerts', () => commitDiscoveryAlerts(ctx, router, alerts), []);
  if (applied !== null && done.length > 0)
    await guarded(ctx, 'the deleted discovery parameters', () => discoveryRetired(ctx, applied, done), undefined);
  return {
    config: joined.config,
    raw: joined.raw,
    error: null,
    applied: applied !== null,
    generation: applied?.applied.generation ?? null,
  };
}

export type { ResolvedConfig };
export { resolveConfig };
