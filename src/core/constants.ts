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

/** PagerDuty's Events API v2 endpoint (EU service regions use events.eu.pagerduty.com). */
const DEFAULT_PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';
/** The forwarder's tries per event (429, 5xx, network), its backoff base and cap, and its request timeout. */
const DEFAULT_PAGERDUTY_ATTEMPTS = 4;
const DEFAULT_PAGERDUTY_BACKOFF_MS = 500;
const MAX_PAGERDUTY_BACKOFF_MS = 8_000;
const DEFAULT_PAGERDUTY_TIMEOUT_MS = 5_000;

export {
  DEFAULT_DOWN_AFTER_FAILURES,
  DEFAULT_EVALUATE_OPTIONS,
  DEFAULT_PAGERDUTY_ATTEMPTS,
  DEFAULT_PAGERDUTY_BACKOFF_MS,
  DEFAULT_PAGERDUTY_EVENTS_URL,
  DEFAULT_PAGERDUTY_TIMEOUT_MS,
  DEFAULT_REPEAT_INTERVAL_MS,
  MAX_MESSAGE_CHARS,
  MAX_PAGERDUTY_BACKOFF_MS,
  MAX_REPORT_TEXT_CHARS,
  MAX_SUBJECT_CHARS,
  METRICS_NAMESPACE,
  SCOREBOARD_MAP_MAX_LINES,
  SCOREBOARD_MAP_WIDTH,
  SERVICE_NAME,
  TARGET_DOWN_RULE,
  TOP_OFFENDERS,
};
