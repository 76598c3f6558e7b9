import { describe, expect, it } from 'vitest';
import { EMITTED_METRICS, RUN_METRICS, TARGET_METRICS } from '../../src/core/emittedMetrics.ts';
import { metricSpec } from '../../src/core/rules/metrics.ts';

describe('EMITTED_METRICS', () => {
  it('has unique CloudWatch names', () => {
    const names = Object.values(EMITTED_METRICS).map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(TARGET_METRICS.filter((m) => m.source.from === 'catalogue').map((m) => [m.name, m.source.field]))(
    '%s comes from %s, a metric of the catalogue',
    (_name, field) => {
      expect(metricSpec(field)?.name).toBe(field);
    },
  );

  it('custom metrics by default: five fleet-level series, whatever the fleet size', () => {
    expect(RUN_METRICS.map((m) => [m.name, m.unit, m.dimensions])).toEqual([
      ['Heartbeat', 'Count', ['service', 'monitor']],
      ['RunsFailed', 'Count', ['service', 'monitor']],
      ['ConfigurationUnreadable', 'Count', ['service', 'monitor']],
      ['AlertsSent', 'Count', ['service', 'monitor']],
      ['TargetsDown', 'Count', ['service', 'monitor']],
    ]);
    expect(TARGET_METRICS.every((m) => m.dimensions.join(',') === 'service,target')).toBe(true);
  });
});
