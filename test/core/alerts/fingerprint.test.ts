/**
 * `fingerprint` (src/core/alerts/fingerprint.ts): 16 hex characters of SHA-256 over target, NUL,
 * rule; the same key on every call, whether or not it was taken before (a warm container keeps the
 * ones it took). Expected values from `printf 'web-1\0closing' | sha256sum`.
 */
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/core/alerts/fingerprint.ts';

describe('fingerprint', () => {
  it.each([
    ['web-1', 'closing', 'e85257e8a9c65e4d'],
    ['web-1', 'client-concentration', '806fa86866fb95e3'],
    ['web-2', 'closing', '37a32ebe2d68f0c5'],
  ])('%s, %s: %s, first and every later call', (target, rule, expected) => {
    expect(fingerprint(target, rule)).toBe(expected);
    expect(fingerprint(target, rule)).toBe(expected);
  });

  it('the same keys after more pairs than it keeps (100,000) were taken', () => {
    const before = Array.from({ length: 100_001 }, (_, i) => fingerprint(`t-${i}`, 'r'));
    expect(fingerprint('web-1', 'closing')).toBe('e85257e8a9c65e4d');
    expect([0, 50_000, 100_000].map((i) => fingerprint(`t-${i}`, 'r'))).toEqual([
      before[0],
      before[50_000],
      before[100_000],
    ]);
  });
});
