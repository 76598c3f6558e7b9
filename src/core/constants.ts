/**
 * Defaults of the alert lifecycle and the notification format, in one place. Units are in the names.
 */
import type { EvaluateOptions } from './alerts/types.ts';

/** Alertmanager's `repeat_interval`: a still-firing alert is re-sent after this long. */
const DEFAULT_REPEAT_INTERVAL_MS = 4 * 60 * 60 * 1000;
/** Two consecutive failed fetches (about two minutes on a 1-minute schedule) before paging "down". */
const DEFAULT_DOWN_AFTER_FAILURES = 2;
/** Prometheus' `resolvedRetention`: a resolved alert is kept this long so its resolution can be sent. */
const DEFAULT_RESOLVED_RETENTION_MS = 15 * 60 * 1000;

const DEFAULT_EVALUATE_OPTIONS: EvaluateOptions = {
  repeatIntervalMs: DEFAULT_REPEAT_INTERVAL_MS,
  downAfterFailures: DEFAULT_DOWN_AFTER_FAILURES,
  resolvedRetentionMs: DEFAULT_RESOLVED_RETENTION_MS,
};

/** A target's counters reach the state table at least this often when nothing else changes (issue 16: steady runs write almost nothing). */
const DEFAULT_CHECKPOINT_INTERVAL_MS = 15 * 60 * 1000;
/** How long a claim keeps other runs off a state item; longer than the function's 60 s timeout. */
const DEFAULT_CLAIM_LEASE_MS = 5 * 60 * 1000;

/** Name and metric of the built-in alert raised when the report cannot be fetched or parsed. */
const TARGET_DOWN_RULE = 'target-down';

/** SNS rejects subjects of 100 characters or more. */
const MAX_SUBJECT_CHARS = 99;
/** How many clients, vhosts and requests a notification lists. */
const TOP_OFFENDERS = 3;
/** Scoreboard map: characters per line, and at most this many lines before it is cut. */
const SCOREBOARD_MAP_WIDTH = 64;
const SCOREBOARD_MAP_MAX_LINES = 16;
/** Caps on report-sourced text (client, vhost, request) and on the whole message. */
const MAX_REPORT_TEXT_CHARS = 80;
const MAX_MESSAGE_CHARS = 16_000;

/** CloudWatch namespace of the monitor's metrics, and the service name its logs and metrics carry. */
const METRICS_NAMESPACE = 'HttpdStatusAlerts';
const SERVICE_NAME = 'httpd-status-alerts';

export {
  DEFAULT_CHECKPOINT_INTERVAL_MS,
  DEFAULT_CLAIM_LEASE_MS,
  DEFAULT_DOWN_AFTER_FAILURES,
  DEFAULT_EVALUATE_OPTIONS,
  DEFAULT_REPEAT_INTERVAL_MS,
  MAX_MESSAGE_CHARS,
  MAX_REPORT_TEXT_CHARS,
  MAX_SUBJECT_CHARS,
  METRICS_NAMESPACE,
  SCOREBOARD_MAP_MAX_LINES,
  SCOREBOARD_MAP_WIDTH,
  SERVICE_NAME,
  TARGET_DOWN_RULE,
  TOP_OFFENDERS,
};
