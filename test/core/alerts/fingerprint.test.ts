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

  it('the same keys after more targets than it keeps (10,000) were taken', () => {
    const before = Array.from({ length: 10_001 }, (_, i) => fingerprint(`t-${i}`, 'r'));
    expect(fingerprint('web-1', 'closing')).toBe('e85257e8a9c65e4d');
    expect([0, 5_000, 10_000].map((i) => fingerprint(`t-${i}`, 'r'))).toEqual([
      before[0],
      before[5_000],
      before[10_000],
    ]);
  });

  it("the same keys after more of one target's rules than it keeps (1,000) were taken", () => {
    const before = Array.from({ length: 1_001 }, (_, i) => fingerprint('web-1', `r-${i}`));
    expect(fingerprint('web-1', 'closing')).toBe('e85257e8a9c65e4d');
    expect([0, 500, 1_000].map((i) => fingerprint('web-1', `r-${i}`))).toEqual([before[0], before[500], before[1_000]]);
    expect(new Set(before).size).toBe(1_001);
  });
});
