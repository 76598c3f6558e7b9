/**
 * The built-in rules, used when no rules are given. Why each threshold: docs/rules-alerts.md.
 */

const DEFAULT_RULES_DOCUMENT = {
  rules: [
    {
      name: 'idle-slots-low',
      metric: 'slots_free_ratio',
      op: '<',
      threshold: 0.05,
      for: '2m',
      keepFiringFor: '5m',
      severity: 'critical',
      summary: 'only {{value}} of the slots of {{target}} can take a new connection (threshold {{threshold}})',
    },
    {
      name: 'closing-pileup',
      metric: 'connections_closing',
      op: '>=',
      threshold: 20,
      for: '3m',
      severity: 'warning',
      summary: '{{value}} connections of {{target}} are stuck in lingering close',
    },
    {
      name: 'ssl-cache-misses',
      metric: 'ssl_cache_miss_ratio',
      op: '>',
      threshold: 0.5,
      minSamples: 100,
      for: '3m',
      severity: 'info',
      summary: 'SSL session cache miss ratio {{value}} on {{target}}',
    },
    {
      name: 'target-down',
      metric: 'target_up',
      op: '==',
      threshold: 0,
      severity: 'critical',
      summary: 'the server-status report of {{target}} cannot be fetched or parsed',
    },
    {
      name: 'graceful-pileup',
      metric: 'slots_graceful_ratio',
      op: '>',
      threshold: 0.25,
      for: '10m',
      severity: 'warning',
      summary: '{{value}} of the slots of {{target}} are stuck gracefully finishing after a reload',
    },
    {
      name: 'stopping-processes',
      metric: 'processes_stopping',
      op: '>=',
      threshold: 1,
      for: '15m',
      severity: 'warning',
      summary: '{{value}} old-generation processes of {{target}} are still stopping after a graceful restart',
    },
    {
      name: 'stuck-requests',
      metric: 'oldest_busy_request_seconds',
      op: '>',
      threshold: 300,
      for: '1m',
      severity: 'warning',
      summary: 'a request on {{target}} has been sending its reply for {{value}} s',
    },
    {
      name: 'client-concentration',
      metric: 'top_client_busy_slots',
      op: '>=',
      threshold: 20,
      for: '1m',
      severity: 'warning',
      summary: 'one client holds {{value}} busy slots of {{target}} (slowloris?)',
    },
    {
      name: 'workers-exhaustion-forecast',
      metric: 'minutes_to_exhaustion',
      op: '<=',
      threshold: 10,
      for: '2m',
      severity: 'warning',
      summary: 'at the current trend no slot of {{target}} is free in {{value}} minutes',
    },
  ],
} as const;

export { DEFAULT_RULES_DOCUMENT };
