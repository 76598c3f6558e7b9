/**
 * The rules seeded into `<prefix>/rules/defaults`.
 * PLACEHOLDER until src/core/rules/document.ts lands: then replace this array with
 * `import { DEFAULT_RULES } from '../src/core/rules/document.ts';` so the CLI and AWS agree.
 */
const DEFAULT_RULES = [
  { name: 'idle-slots-low', metric: 'slots_idle', op: '<', threshold: 5, for: '2m', severity: 'critical' },
  { name: 'closing-pileup', metric: 'slots_closing', op: '>=', threshold: 20, for: '3m', severity: 'warning' },
  {
    name: 'ssl-cache-misses',
    metric: 'ssl_cache_miss_ratio',
    op: '>',
    threshold: 0.5,
    minSamples: 100,
    severity: 'warning',
  },
];

/** The parameter value: one rules document, the same shape as a local rules file. */
function defaultRulesDocument(): string {
  return JSON.stringify({ rules: DEFAULT_RULES });
}

export { defaultRulesDocument };
