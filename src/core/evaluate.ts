/**
 * One evaluation cycle of one target: metrics from the observation, every rule stepped, the
 * notification decision, silences and inhibition while down, and the next state. Alerts of rules
 * that no longer apply (removed, renamed, narrowed `targets`, built-in `target-down` replaced by a
 * rule on `target_up`) are found from the previous state: resolved with a page saying why when
 * their firing page went out, then dropped from the state (a grouped one kept as a resolved
 * record while its group may still hold that resolve, see `removedRecord`).
 *
 * The returned `state` already records the returned notifications as sent (`lastSentAt`,
 * `lastSentStatus`). A caller that publishes must save that state only after every notification
 * was accepted; if publishing fails, keeping the previous state makes the next cycle send again.
 */

import { decideNotification } from './alerts/decide.ts';
import { elapsedMs, resolvesAt } from './alerts/elapsed.ts';
import { fingerprint } from './alerts/fingerprint.ts';
import { groupRefOf, groupRefOfKey, withContinuation } from './alerts/group.ts';
import { findSilence, type Silence } from './alerts/silenceMatch.ts';
import { stepAlert } from './alerts/step.ts';
import type { AlertRecord, AlertView, EvaluateOptions, Notification, TargetState } from './alerts/types.ts';
import { DEFAULT_EVALUATE_OPTIONS, DEFAULT_GROUP_INTERVAL_MS, TARGET_DOWN_RULE } from './constants.ts';
import { buildNotification } from './notify/build.ts';
import { buildRemovalNotification, REMOVAL_CAUSES, type RemovalCause } from './notify/removal.ts';
import { computeMetrics, countersOf, countsFor, forecastMetric, type MetricResult } from './rules/compute.ts';
import { DEFAULT_RULES } from './rules/defaultRules.ts';
import { evaluateRule } from './rules/evaluate.ts';
import { type ForecastResult, type FreeSlotSample, forecastExhaustion, freeSlotSamples } from './rules/forecast.ts';
import { anyGlobMatch } from './rules/glob.ts';
import { metricSpec } from './rules/metrics.ts';
import { type LastReport, likelySaturated } from './rules/saturation.ts';
import type { Observation, Rule } from './rules/types.ts';

interface EvaluateInput {
  target: string;
  /** Target labels (env, region, ...), copied onto every notification. */
  labels?: Record<string, string>;
  observation: Observation;
  rules: Rule[];
  silences: Silence[];
  previous: TargetState | null;
  now: Date;
  options?: Partial<EvaluateOptions>;
  /** The target's declared MaxRequestWorkers: slot ratios divide by it (see computeMetrics). */
  maxRequestWorkers?: number | null;
  /**
   * Count the slot table's clients and vhosts only where a rule of this target reads them
   * (`MetricInput.counts`), for a caller that reads no other metric of theirs: the run, whose log
   * line and custom metrics name neither. Every metric is computed otherwise (the CLI shows them).
   */
  countOnlyWhatRulesRead?: boolean;
}

interface EvaluateResult {
  state: TargetState;
  /** Every alert that is pending or firing after this cycle. */
  alerts: AlertView[];
  /** What to publish now; `state` already counts them as sent. */
  notifications: Notification[];
  /** Rules that could not be evaluated this cycle, and why (their alerts keep their state). */
  unevaluated: Array<{ rule: string; reason: string }>;
  /** The catalogue's metrics as the rules saw them this cycle (windowed where they are rates). */
  metrics: ReadonlyMap<string, MetricResult>;
}

const BUILT_IN_TARGET_DOWN = DEFAULT_RULES.find((r) => r.name === TARGET_DOWN_RULE) as Rule;

/** The rules for this target; the built-in `target-down` joins unless a rule already watches `target_up`. */
function rulesFor(rules: readonly Rule[], target: string): Rule[] {
  const applicable = rules.filter((r) => anyGlobMatch(r.targets, target));
  const watched = rules.some((r) => r.metric === 'target_up' || r.name === TARGET_DOWN_RULE);
  return watched ? applicable : [...applicable, BUILT_IN_TARGET_DOWN];
}

/** Whether a record is still worth keeping: active, recently resolved, or owed a resolved notice. */
function keep(alert: AlertRecord, now: Date, retentionMs: number): boolean {
  if (alert.state !== 'inactive') return true;
  if (alert.lastSentStatus === 'firing') return true;
  return alert.resolvedAt !== null && elapsedMs(now, alert.resolvedAt) < retentionMs;
}

/** Counters that are not finite numbers become null: they would poison every later delta. */
function finiteCounters(counters: TargetState['counters']): TargetState['counters'] {
  if (counters === null) return null;
  const finite = (n: number | null) => (n !== null && Number.isFinite(n) ? n : null);
  return {
    totalAccesses: finite(counters.totalAccesses),
    totalKBytes: finite(counters.totalKBytes ?? null),
    uptimeSeconds: finite(counters.uptimeSeconds),
    sslRetrieveHits: finite(counters.sslRetrieveHits),
    sslRetrieveMisses: finite(counters.sslRetrieveMisses),
  };
}

/**
 * How long the record of a grouped alert whose rule or target left the configuration is kept
 * after its last page: its resolve may wait a group interval in its group (the removed rule's
 * interval is unknown, so the longest configured one), plus the usual retention.
 */
function removedRetentionMs(rules: readonly Rule[], options: EvaluateOptions): number {
  return options.resolvedRetentionMs + Math.max(DEFAULT_GROUP_INTERVAL_MS, ...rules.map((r) => r.groupIntervalMs));
}

/**
 * What stays of an alert whose rule no longer applies (`resolvedNow`: its resolve is sent in this
 * evaluation). A grouped alert's record is kept, resolved, while its group may still hold a page
 * of it: if the rule (or target) comes back meanwhile, the new episode finds the group and goes
 * there, behind that resolve, instead of paging at once elsewhere and being closed by it.
 */
function removedRecord(alert: AlertRecord, resolvedNow: boolean, now: Date, keepMs: number): AlertRecord | null {
  if (alert.group == null) return null;
  if (resolvedNow)
    return {
      ...alert,
      state: 'inactive',
      resolvedAt: now.toISOString(),
      keepFiringSince: null,
      lastSentAt: now.toISOString(),
      lastSentStatus: 'resolved',
    };
  if (alert.lastSentAt === null || elapsedMs(now, alert.lastSentAt) >= keepMs) return null;
  return { ...alert, state: 'inactive', resolvedAt: alert.resolvedAt ?? now.toISOString(), keepFiringSince: null };
}

/**
 * The alerts of `previous` whose rule is not among `applicable`: each owed a resolve (its firing
 * page went out) gets one saying why, even under a silence (it closes an incident a page opened).
 * They leave the state, but for the records `removedRecord` keeps.
 */
function removedAlerts(
  previous: TargetState | null,
  applicable: readonly Rule[],
  allRules: readonly Rule[],
  labels: Record<string, string>,
  now: Date,
  options: EvaluateOptions,
  cause?: RemovalCause,
): { notifications: Notification[]; kept: AlertRecord[] } {
  const names = new Set(applicable.map((r) => r.name));
  const notifications: Notification[] = [];
  const kept: AlertRecord[] = [];
  const keepMs = removedRetentionMs(allRules, options);
  for (const alert of Object.values(previous?.alerts ?? {})) {
    if (names.has(alert.rule)) continue;
    const owed = alert.lastSentStatus === 'firing';
    if (owed) {
      const why =
        cause ??
        (allRules.some((r) => r.name === alert.rule) ? REMOVAL_CAUSES.ruleNarrowed : REMOVAL_CAUSES.ruleRemoved);
      notifications.push(buildRemovalNotification({ alert, cause: why, labels, now }));
    }
    const record = removedRecord(alert, owed, now, keepMs);
    if (record !== null) kept.push(record);
  }
  return { notifications, kept };
}

/**
 * A target that left the configuration: a resolve for each alert whose firing page went out
 * (`target removed from configuration`), and the state to keep: null when nothing is left (the
 * caller deletes the item once the resolves are sent), else the grouped alerts' resolved records
 * (`removedRecord`; the caller keeps the item until they expire, so a target added back meanwhile
 * pages through its old group).
 *
 * @example
 * evaluateRemovedTarget(previous, rules, new Date()).notifications.map((n) => n.subject)
 * // ['[RESOLVED critical] web-1: closing-seen (target removed from configuration)']
 */
function evaluateRemovedTarget(
  previous: TargetState,
  rules: readonly Rule[],
  now: Date,
  options: Partial<EvaluateOptions> = {},
): { notifications: Notification[]; state: TargetState | null } {
  const merged: EvaluateOptions = { ...DEFAULT_EVALUATE_OPTIONS, ...options };
  const { notifications, kept } = removedAlerts(previous, [], rules, {}, now, merged, REMOVAL_CAUSES.targetRemoved);
  if (kept.length === 0) return { notifications, state: null };
  const alerts = Object.fromEntries(kept.map((a) => [a.fingerprint, a]));
  return { notifications, state: { ...previous, consecutiveFailures: 0, counters: null, alerts } };
}

function view(alert: AlertRecord, rule: Rule): AlertView {
  const keepFiringSince = alert.keepFiringSince ?? null;
  return {
    fingerprint: alert.fingerprint,
    rule: rule.name,
    metric: rule.metric,
    op: rule.op,
    state: alert.state,
    value: alert.value,
    threshold: alert.threshold,
    severity: alert.severity,
    activeAt: alert.activeAt,
    firedAt: alert.firedAt,
    keepFiringSince,
    resolvesAt: resolvesAt(keepFiringSince, rule.keepFiringForMs),
  };
}

/**
 * The free-slot samples after this evaluation, the forecast they give (null without a report) and
 * the last report in brief; `minutes_to_exhaustion` joins `metrics`.
 */
function forecastStep(
  observation: Observation,
  previous: TargetState | null,
  metrics: Map<string, MetricResult>,
  now: Date,
): { samples: FreeSlotSample[]; forecast: ForecastResult | null; lastReport: LastReport | null } {
  const free = metrics.get('slots_free');
  const ratio = metrics.get('slots_free_ratio');
  // A report without slots (an empty scoreboard) gives no sample: 0 free of 0 is not exhaustion.
  const counted = observation.kind === 'report' && free?.ok === true && ratio?.ok === true;
  const samples = freeSlotSamples(previous?.samples, counted ? free.value : null, now);
  if (!counted) return { samples, forecast: null, lastReport: previous?.lastReport ?? null };
  const forecast = forecastExhaustion(samples, now);
  metrics.set('minutes_to_exhaustion', forecastMetric(forecast));
  const total = ratio.samples ?? 0;
  const lastReport = {
    at: now.toISOString(),
    busy: Math.max(0, total - free.value),
    total,
    minutesToExhaustion: forecast.ok ? forecast.forecast.minutes : null,
  };
  return { samples, forecast, lastReport };
}

/**
 * Evaluates every rule for one target at `now` and returns the next state and what to publish.
 *
 * @param input.options - `repeatIntervalMs` (default 4 h), `downAfterFailures` (default 2),
 *   `resolvedRetentionMs` (default 15 min); defaults in `src/core/constants.ts`
 * @example
 * const { state, notifications } = evaluateTarget({ target: 'web-1', observation: { kind: 'report', report },
 *   rules: DEFAULT_RULES, silences: [], previous: await store.load('web-1'), now: new Date(event.time) });
 */
function evaluateTarget(input: EvaluateInput): EvaluateResult {
  const options: EvaluateOptions = { ...DEFAULT_EVALUATE_OPTIONS, ...input.options };
  const { target, observation, previous, now } = input;
  const labels = input.labels ?? {};
  const failures = observation.kind === 'down' ? (previous?.consecutiveFailures ?? 0) + 1 : 0;
  const applicable = rulesFor(input.rules, target);
  const saturation = likelySaturated(observation, previous?.lastReport, now);
  const metrics = computeMetrics({
    observation,
    previous: previous?.counters ?? null,
    consecutiveFailures: failures,
    // The full report just before a timeout is the evidence the usual second failure waits for:
    // a saturated server is down on its first lost fetch, a roomy one's lost fetch still waits.
    downAfterFailures: saturation === null ? options.downAfterFailures : 1,
    maxRequestWorkers: input.maxRequestWorkers ?? null,
    ...(input.countOnlyWhatRulesRead === true ? { counts: countsFor(applicable.map((r) => r.metric)) } : {}),
  });
  const { samples, forecast, lastReport } = forecastStep(observation, previous, metrics, now);
  const absentReason =
    observation.kind === 'down'
      ? `target is down (${observation.reason}); the report is needed`
      : 'metric not computed';

  const alerts: Record<string, AlertRecord> = {};
  const views: AlertView[] = [];
  const notifications: Notification[] = [];
  const unevaluated: EvaluateResult['unevaluated'] = [];
  const removed = removedAlerts(previous, applicable, input.rules, labels, now, options);
  notifications.push(...removed.notifications);
  for (const record of removed.kept) alerts[record.fingerprint] = record;
  for (const rule of applicable) {
    const id = fingerprint(target, rule.name);
    const prev = previous?.alerts[id] ?? null;
    const outcome = evaluateRule(rule, metrics, absentReason);
    if (outcome.kind !== 'value') unevaluated.push({ rule: rule.name, reason: outcome.reason });
    const next = stepAlert(prev, rule, target, outcome, now, id);
    const reason = decideNotification(prev, next, now, options.repeatIntervalMs);
    // While down, alerts that need the report are held back: one page per outage, not one per rule.
    const inhibited = observation.kind === 'down' && metricSpec(rule.metric)?.needsReport !== false;
    // A silence holds back firing pages, never the resolve of one that went out.
    const silence = reason === 'resolved' ? undefined : findSilence(input.silences, target, rule.name, now);
    const silenced = silence !== undefined;
    // The silence that held this alert's page back, named by the page sent once it ends; records
    // without one carry no `heldBy` key, so a steady run's records compare equal to the stored ones.
    const heldBy = next.state === 'firing' ? (next.heldBy ?? null) : null;
    delete next.heldBy;
    if (heldBy !== null) next.heldBy = heldBy;
    if (reason !== 'none' && silence !== undefined && next.state === 'firing')
      next.heldBy = { source: silence.source, comment: silence.comment, until: silence.until };
    if (reason !== 'none' && !inhibited && !silenced) {
      delete next.heldBy;
      next.lastSentAt = now.toISOString();
      next.lastSentStatus = reason === 'resolved' ? 'resolved' : 'firing';
      // An alert's pages go to one group, so they keep their order: its repeats and resolve go
      // where its first page went, and a new episode stays there while the alert's record is kept
      // (its last resolve may still wait in that group). A groupBy change applies after that.
      const ref = groupRefOf(
        rule.groupBy,
        { rule: rule.name, severity: rule.severity, target, labels },
        rule.groupIntervalMs,
      );
      if (reason === 'first' && next.group == null) {
        next.group = ref?.key ?? null;
        delete next.groupContinuation; // a new group: where it joins is found at its hand-over
      }
      const key = next.group ?? null;
      const named = key === null ? null : key === ref?.key ? ref : groupRefOfKey(key, rule.groupIntervalMs);
      // The item it joined (a continuation when the first was full), so its resolve closes that page.
      const group = named === null ? null : withContinuation(named, next.groupContinuation);
      const notification = buildNotification({
        rule,
        alert: next,
        reason,
        target,
        labels,
        observation,
        consecutiveFailures: failures,
        now,
        forecast: rule.metric === 'minutes_to_exhaustion' && forecast?.ok === true ? forecast.forecast : null,
        saturation: rule.metric === 'target_up' ? saturation : null,
        heldBy,
      });
      notifications.push({ ...notification, group });
    }
    // A grouped resolve may wait a group interval: the record outlives it, so the next episode finds its group.
    const retentionMs = options.resolvedRetentionMs + (next.group == null ? 0 : rule.groupIntervalMs);
    if (keep(next, now, retentionMs)) alerts[next.fingerprint] = next;
    if (next.state !== 'inactive') views.push(view(next, rule));
  }

  const state: TargetState = {
    target,
    evaluatedAt: now.toISOString(),
    consecutiveFailures: failures,
    counters: finiteCounters(
      observation.kind === 'report' ? countersOf(observation.report) : (previous?.counters ?? null),
    ),
    alerts,
    samples,
    lastReport,
  };
  return { state, alerts: views, notifications, unevaluated, metrics };
}

export type { EvaluateInput, EvaluateResult };
export { evaluateRemovedTarget, evaluateTarget };
