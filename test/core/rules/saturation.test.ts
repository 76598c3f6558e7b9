import { describe, expect, it } from 'vitest';
import { type LastReport, likelySaturated } from '../../../src/core/rules/saturation.ts';
import type { Observation } from '../../../src/core/rules/types.ts';

const NOW = new Date('2026-11-22T12:10:00Z');
const TIMEOUT: Observation = { kind: 'down', reason: 'timeout', detail: 'timed out after 10000 ms' };
const last = (over: Partial<LastReport>): LastReport => ({
  at: '2026-11-22T12:08:00.000Z',
  busy: 250,
  total: 256,
  minutesToExhaustion: null,
  ...over,
});

describe('likelySaturated', () => {
  it.each([
    ['6 of 256 free, 2 minutes before', TIMEOUT, last({}), true],
    ['exactly 10 % free', TIMEOUT, last({ busy: 90, total: 100 }), true],
    ['11 % free', TIMEOUT, last({ busy: 89, total: 100 }), false],
    ['half free but a forecast of 5 minutes', TIMEOUT, last({ busy: 50, total: 100, minutesToExhaustion: 5 }), true],
    [
      'half free and a forecast of 5.1 minutes',
      TIMEOUT,
      last({ busy: 50, total: 100, minutesToExhaustion: 5.1 }),
      false,
    ],
    ['a report exactly 10 minutes old', TIMEOUT, last({ at: '2026-11-22T12:00:00.000Z' }), true],
    ['a report older than 10 minutes', TIMEOUT, last({ at: '2026-11-22T11:59:59.000Z' }), false],
    ['a report from after now', TIMEOUT, last({ at: '2026-11-22T12:10:01.000Z' }), false],
    ['no report seen', TIMEOUT, null, false],
    [
      'a refused connection',
      { kind: 'down', reason: 'refused', detail: 'ECONNREFUSED' } as Observation,
      last({}),
      false,
    ],
    ['an HTTP 503', { kind: 'down', reason: 'http-status', detail: 'HTTP 503' } as Observation, last({}), false],
  ])('%s: %s', (_, observation, seen, expected) => {
    // Act
    const result = likelySaturated(observation, seen, NOW);

    // Assess
    expect(result).toEqual(expected && seen !== null ? { busy: seen.busy, total: seen.total, at: seen.at } : null);
  });
});
