/**
 * Defaults of the alert lifecycle and the notification format, in one place. Units are in the names.
 */

/** Alertmanager's `repeat_interval`: a still-firing alert is re-sent after this long. */
const DEFAULT_REPEAT_INTERVAL_MS = 4 * 60 * 60 * 1000;
/** Two consecutive failed fetches (about two minutes on a 1-minute schedule) before paging "down". */
const DEFAULT_DOWN_AFTER_FAILURES = 2;
/** Prometheus' `resolvedRetention`: a resolved alert is kept this long so its resolution can be sent. */
const DEFAULT_RESOLVED_RETENTION_MS = 15 * 60 * 1000;

/** `EvaluateOptions`' defaults (typed where it is used: this module imports nothing, so nothing can circle back to it). */
const DEFAULT_EVALUATE_OPTIONS = {
  repeatIntervalMs: DEFAULT_REPEAT_INTERVAL_MS,
  downAfterFailures: DEFAULT_DOWN_AFTER_FAILURES,
  resolvedRetentionMs: DEFAULT_RESOLVED_RETENTION_MS,
};

/** A target's counters reach the state table at least this often when nothing else changes (the checkpoint: steady runs write almost nothing). */
const DEFAULT_CHECKPOINT_INTERVAL_MS = 15 * 60 * 1000;
/** How long a claim keeps other runs off a state item when the stack sets no longer lease (`CLAIM_LEASE_SECONDS`). */
const DEFAULT_CLAIM_LEASE_MS = 5 * 60 * 1000;

/** Alertmanager's `group_by` default here: one page per rule, whatever the number of targets. */
const DEFAULT_GROUP_BY: readonly string[] = ['rule'];
/** Alertmanager's `group_interval`: alerts that join (or resolve in) a group wait this long after its last page. */
const DEFAULT_GROUP_INTERVAL_MS = 5 * 60 * 1000;
/**
 * Alerts one group item holds: at most about 480 bytes each in JSON (63-character target, 64-character
 * rule), so with the newest page (24 KB at most) and a claim naming all of them the item stays
 * under DynamoDB's 400 KB (test/core/alerts/group.test.ts). Alerts past it go to the group's
 * continuation: another item, paged as its own group page (docs/routing.md).
 */
const MAX_GROUP_MEMBERS = 600;
/**
 * Items one group may use: the first and its continuations, 20 x 600 = 12,000 alerts (a fleet of
 * 10,000 targets stays grouped). An alert past the last is paged on its own, and logged.
 */
const MAX_GROUP_ITEMS = 20;

/**
 * `minutes_to_exhaustion`: a least-squares line through the free-slot counts of the target's
 * successful evaluations in the last 10 minutes, from at least 3 of them spanning at least 2
 * minutes; a forecast past 120 minutes is no forecast. The cap bounds a state file stepped every
 * second; a 1-minute schedule keeps 11 samples.
 */
const FORECAST_WINDOW_MS = 10 * 60 * 1000;
const FORECAST_MIN_SAMPLES = 3;
const FORECAST_MIN_SPAN_MS = 2 * 60 * 1000;
const FORECAST_MAX_MINUTES = 120;
const MAX_FORECAST_SAMPLES = 120;

/**
 * A fetch that times out is "likely saturated" when the target's last successful report, at most
 * 10 minutes old, had at most 10 % of its slots free or a forecast of at most 5 minutes.
 */
const SATURATION_LAST_SEEN_MAX_AGE_MS = 10 * 60 * 1000;
const SATURATION_FREE_RATIO = 0.1;
const SATURATION_FORECAST_MINUTES = 5;

/** Name and metric of the built-in alert raised when the report cannot be fetched or parsed. */
const TARGET_DOWN_RULE = 'target-down';

/** SNS rejects subjects of 100 characters or more. */
const MAX_SUBJECT_CHARS = 99;
/** How many clients, vhosts and requests a notification lists. */
const TOP_OFFENDERS = 3;
/** Scoreboard map: characters per line, and at most this many lines before it is cut. */
const SCOREBOARD_MAP_WIDTH = 64;
const SCOREBOARD_MAP_MAX_LINES = 16;
/** Cap on each report-sourced text (client, vhost, request) in a notification. */
const MAX_REPORT_TEXT_CHARS = 80;
/** Cap on a down target's failure detail (a fetch error, a body's first bytes, a redirect's Location). */
const MAX_FAILURE_DETAIL_CHARS = 300;
/** Target labels listed in a notification; the rest are counted (`and N more`). */
const MAX_LABELS_SHOWN = 20;

/**
 * SNS limits. A publish carries one JSON envelope holding every variant (`MessageStructure: json`),
 * and the whole request (envelope, subject, attributes) must stay under 256 KB. Budgets are bytes
 * of each variant as a JSON string inside the envelope (`jsonStringBytes`): the text twice
 * (default, email), the JSON payload up to five times (email-json, sqs, lambda, http, https) and
 * Chatbot's message once instead of one of them: 2 x 32 + 4 x 24 + 40 = 200 KB, the rest spare
 * for the subject (< 100), SMS (the subject) and attributes (each value at most 256 characters).
 */
const MAX_SNS_PUBLISH_BYTES = 262_144;
const MAX_TEXT_MESSAGE_BYTES = 32_768;
const MAX_PAYLOAD_BYTES = 24_576;
/** Room kept in every payload for the `order` its claim adds later (`,"order":` and 16 digits). */
const ORDER_FIELD_BYTES = `,"order":${Number.MAX_SAFE_INTEGER}`.length;
const MAX_CHATBOT_BYTES = 40_960;
const MAX_ATTRIBUTE_CHARS = 256;

/** Where the monitor's configuration lives in SSM, unless the stack or `--prefix` names another. */
const DEFAULT_SSM_PREFIX = '/httpd-status-alerts';
/** Status pages fetched at once by one run (`FETCH_CONCURRENCY`). */
const DEFAULT_FETCH_CONCURRENCY = 16;
/**
 * A target still unanswered after this long gives its fetch slot to the next target and waits
 * beside them (at most `FETCH_CONCURRENCY` such waits at once): slow or hung targets beyond the
 * slots' number then delay the run by their own wait only, not by one wait per slotful. A page on
 * loopback or a nearby network answers in a few to tens of ms.
 */
const FETCH_PATIENCE_MS = 250;
/**
 * Targets one consumer invocation checks in sharded mode. bench/e2e measured about 3.6 ms of CPU
 * per target, about 25 ms at 256 MB (1/6.9 vCPU): 500 targets take about 12 s, leaving half of a
 * 1-minute interval for targets that time out (docs/scale.md).
 */
const DEFAULT_TARGETS_PER_SHARD = 500;

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
/**
 * The forwarder's pace per routing key: at most this many events per window of this length, shared
 * by every container through the state table. Any 60 s span touches at most 7 windows of 10 s, so
 * at most 7 x 17 = 119 events: under the Events API's 120 a minute, however its window is aligned.
 */
const PAGERDUTY_PACE_WINDOW_MS = 10_000;
const PAGERDUTY_EVENTS_PER_WINDOW = 17;
/** How long the forwarder remembers the last order accepted per dedup_key, and a refused routing key. */
const PAGERDUTY_ORDER_TTL_SECONDS = 14 * 86_400;
/**
 * The longest repeat interval (7 days): a firing alert (or group) is paged again at least twice
 * within the PagerDuty forwarder's memory of its open incident, so that memory is renewed before it
 * expires; past it the incident's resolve would be dropped as never triggered.
 */
const MAX_REPEAT_INTERVAL_MS = (PAGERDUTY_ORDER_TTL_SECONDS * 1000) / 2;
const PAGERDUTY_KEY_PROBLEM_TTL_SECONDS = 3_600;
/**
 * With one PagerDuty event per alert (`-c pagerDutyEventsPer=alert`): the most alerts of one group
 * that get an incident of their own; the group's other firing alerts share one overflow incident.
 * A group's page is then 120 triggers and one overflow trigger per part of the page (a part is
 * at most 24 KB, some tens of alerts): 1,000 alerts in 10 parts are 129 events, 8 pacing windows of
 * 17, the last sent 70 s after the first. A fleet incident of 1,000 targets is 2 groups (a group
 * holds 600, the rest continues in a second one), about 255 events: 15 windows, about 140 s,
 * inside the three minutes with room for other rules' pages sharing the routing key's pace.
 */
const PAGERDUTY_OWN_INCIDENTS_PER_GROUP = 120;

export {
  DEFAULT_CHECKPOINT_INTERVAL_MS,
  DEFAULT_CLAIM_LEASE_MS,
  DEFAULT_DOWN_AFTER_FAILURES,
  DEFAULT_EVALUATE_OPTIONS,
  DEFAULT_FETCH_CONCURRENCY,
  DEFAULT_GROUP_BY,
  DEFAULT_GROUP_INTERVAL_MS,
  DEFAULT_PAGERDUTY_ATTEMPTS,
  DEFAULT_PAGERDUTY_BACKOFF_MS,
  DEFAULT_PAGERDUTY_EVENTS_URL,
  DEFAULT_PAGERDUTY_TIMEOUT_MS,
  DEFAULT_REPEAT_INTERVAL_MS,
  DEFAULT_RESOLVED_RETENTION_MS,
  DEFAULT_SSM_PREFIX,
  DEFAULT_TARGETS_PER_SHARD,
  FETCH_PATIENCE_MS,
  FORECAST_MAX_MINUTES,
  FORECAST_MIN_SAMPLES,
  FORECAST_MIN_SPAN_MS,
  FORECAST_WINDOW_MS,
  MAX_ATTRIBUTE_CHARS,
  MAX_CHATBOT_BYTES,
  MAX_FAILURE_DETAIL_CHARS,
  MAX_FORECAST_SAMPLES,
  MAX_GROUP_ITEMS,
  MAX_GROUP_MEMBERS,
  MAX_LABELS_SHOWN,
  MAX_PAGERDUTY_BACKOFF_MS,
  MAX_PAYLOAD_BYTES,
  MAX_REPEAT_INTERVAL_MS,
  MAX_REPORT_TEXT_CHARS,
  MAX_SNS_PUBLISH_BYTES,
  MAX_SUBJECT_CHARS,
  MAX_TEXT_MESSAGE_BYTES,
  METRICS_NAMESPACE,
  ORDER_FIELD_BYTES,
  PAGERDUTY_EVENTS_PER_WINDOW,
  PAGERDUTY_KEY_PROBLEM_TTL_SECONDS,
  PAGERDUTY_ORDER_TTL_SECONDS,
  PAGERDUTY_OWN_INCIDENTS_PER_GROUP,
  PAGERDUTY_PACE_WINDOW_MS,
  SATURATION_FORECAST_MINUTES,
  SATURATION_FREE_RATIO,
  SATURATION_LAST_SEEN_MAX_AGE_MS,
  SCOREBOARD_MAP_MAX_LINES,
  SCOREBOARD_MAP_WIDTH,
  SERVICE_NAME,
  TARGET_DOWN_RULE,
  TOP_OFFENDERS,
};
