/**
 * The configuration a run uses. Invalid or unreadable configuration never silences monitoring:
 * the last valid configuration (kept in memory while warm, and in the state table across cold
 * starts) stays in force, and one configuration alert is published per distinct problem, with a
 * resolve message once the configuration is valid again.
 */
import { createHash } from 'node:crypto';
import type { Notification } from './core/alerts/types.ts';
import { buildMonitorConfig, ConfigurationError, type MonitorConfig, type RawConfig } from './core/monitorConfig.ts';
import { cleanConfigText } from './core/notify/sanitize.ts';
import type { CycleDeps } from './run.ts';

const LAST_VALID_KEY = 'last-valid-config';
const ALERT_KEY = 'config-alert';
const CONFIG_FINGERPRINT = 'configuration';
const MAX_PROBLEM_LINES = 20;

// Per config source: the last valid configuration and the hash of its raw parameters.
const lastValid = new WeakMap<object, { hash: string; config: MonitorConfig; raw: RawConfig }>();

const hashOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

function problemLines(error: unknown): string[] {
  if (error instanceof ConfigurationError) {
    return error.problems.map((p) => `${p.parameter}${p.field ? ` (field ${p.field})` : ''}: ${p.message}`);
  }
  return [`cannot read the configuration: ${(error as Error).message}`];
}

function configNotification(
  status: 'firing' | 'resolved',
  lines: string[],
  now: Date,
  inForce: number | null,
): Notification {
  const subject =
    status === 'firing'
      ? '[FIRING warning] httpd-status-alerts: invalid configuration'
      : '[RESOLVED warning] httpd-status-alerts: configuration valid again';
  const shown = lines.slice(0, MAX_PROBLEM_LINES).map((l) => `  - ${cleanConfigText(l, 300)}`);
  const message =
    status === 'firing'
      ? [
          'The monitor configuration in SSM is invalid or unreadable.',
          inForce === null
            ? 'No valid configuration has been seen yet: no target is checked until it is fixed.'
            : `The last valid configuration stays in force (${inForce} target(s)).`,
          '',
          'Problems:',
          ...shown,
          ...(lines.length > MAX_PROBLEM_LINES ? [`  ... and ${lines.length - MAX_PROBLEM_LINES} more`] : []),
          '',
          `Evaluated at ${now.toISOString()}.`,
        ].join('\n')
      : `The monitor configuration in SSM is valid again (checked at ${now.toISOString()}).`;
  return {
    fingerprint: CONFIG_FINGERPRINT,
    status,
    reason: status === 'firing' ? 'first' : 'resolved',
    target: 'httpd-status-alerts',
    rule: 'configuration',
    severity: 'warning',
    value: null,
    threshold: 0,
    subject,
    message,
    payload: { version: 1, status, rule: 'configuration', problems: lines, evaluatedAt: now.toISOString() },
    labels: {},
  };
}

async function fallbackConfig(deps: CycleDeps): Promise<{ config: MonitorConfig; raw: RawConfig } | null> {
  const cached = lastValid.get(deps.config);
  if (cached) return cached;
  const stored = await deps.table.getMeta(LAST_VALID_KEY);
  if (stored === null) return null;
  try {
    const raw = stored.value.raw as RawConfig;
    return { config: buildMonitorConfig(raw), raw };
  } catch {
    return null;
  }
}

/**
 * Publish the configuration alert's change once across overlapping runs: claim it with a
 * conditional write, publish, and put the previous record back if SNS refused (the next run
 * tries again). Returns the publish error, if any, instead of throwing: targets are still checked.
 */
async function sendConfigChange(
  deps: CycleDeps,
  current: { value: Record<string, unknown>; version: number } | null,
  next: Record<string, unknown>,
  notification: Notification,
): Promise<unknown> {
  if (!(await deps.table.putMeta(ALERT_KEY, next, current?.version ?? null))) return null; // another run sends it
  try {
    await deps.notifier.publish(notification);
    return null;
  } catch (error) {
    await deps.table.putMeta(ALERT_KEY, current?.value ?? { active: false }, (current?.version ?? 0) + 1);
    return error;
  }
}

/** The configuration for this run, the configuration problem if there is one, and a failed publish. */
async function resolveConfig(
  deps: CycleDeps,
  now: Date,
): Promise<{ config: MonitorConfig | null; raw: RawConfig | null; error: string | null; publishError: unknown }> {
  const alert = await deps.table.getMeta(ALERT_KEY);
  let raw: RawConfig;
  let config: MonitorConfig;
  try {
    raw = await deps.config.loadRaw();
    config = buildMonitorConfig(raw);
  } catch (error) {
    const lines = problemLines(error);
    const fallback = await fallbackConfig(deps);
    const hash = hashOf(lines);
    deps.logger.error('invalid configuration', { problems: lines, lastValidInForce: fallback !== null });
    const publishError =
      alert?.value.active === true && alert.value.hash === hash
        ? null
        : await sendConfigChange(
            deps,
            alert,
            { active: true, hash, since: now.toISOString() },
            configNotification('firing', lines, now, fallback?.config.targets.length ?? null),
          );
    return { config: fallback?.config ?? null, raw: fallback?.raw ?? null, error: lines.join('; '), publishError };
  }
  const hash = hashOf(raw);
  if (lastValid.get(deps.config)?.hash !== hash) {
    await deps.table.putMeta(LAST_VALID_KEY, { raw, hash, savedAt: now.toISOString() });
    lastValid.set(deps.config, { hash, config, raw });
  }
  const publishError =
    alert?.value.active === true
      ? await sendConfigChange(
          deps,
          alert,
          { active: false, resolvedAt: now.toISOString() },
          configNotification('resolved', [], now, config.targets.length),
        )
      : null;
  return { config, raw, error: null, publishError };
}

export { resolveConfig };
