import { describe, expect, it } from 'vitest';
import { AddressTally } from '../../../src/core/rules/addressTally.ts';

const LAST = 2 ** 32 - 1;
const SIGN_BIT = 2 ** 31;

/** Add `addresses` in order to a tally with room for them; each add's count, the largest, whether it gave way. */
function tally(addresses: number[]): { counts: number[]; top: number; gaveWay: boolean } {
  const t = new AddressTally(addresses.length);
  const counts = addresses.map((a) => t.add(a));
  return { counts, top: Math.max(0, ...counts), gaveWay: t.gaveWay };
}

/**
 * `n` distinct addresses that all land in one slot of a table with room for `adds` adds (the
 * table's Fibonacci hash: the top bits of the address times 0x9e3779b9), found by trying them in turn.
 */
function colliding(n: number, adds: number): number[] {
  let bits = 4;
  while (1 << bits < adds * 2) bits++;
  const found: number[] = [];
  for (let a = 0; found.length < n; a++) if (Math.imul(a, 0x9e3779b9) >>> (32 - bits) === 0) found.push(a);
  return found;
}

describe('AddressTally', () => {
  it.each([
    ['nothing added', [], [], 0],
    ['distinct addresses count one each', [1, 2, 3], [1, 1, 1], 1],
    ['a repeated address counts up', [7, 9, 7, 7, 3, 9], [1, 1, 2, 3, 1, 2], 3],
    ['0, the sign bit and 2^32 - 1 are three addresses', [0, SIGN_BIT, LAST, 0, LAST, LAST], [1, 1, 1, 2, 2, 3], 3],
  ])('%s', (_name, addresses, counts, top) => {
    expect(tally(addresses)).toEqual({ counts, top, gaveWay: false });
  });

  it('keeps a thousand addresses of one network in the table (the usual page: no Map)', () => {
    const addresses = Array.from({ length: 1024 }, (_, i) => 0x0a000000 + i); // 10.0.0.0 to 10.0.3.255
    const result = tally([...addresses, ...addresses.slice(0, 10)]);
    expect(result.top).toBe(2);
    expect(result.counts.filter((c) => c === 2)).toHaveLength(10);
    expect(result.gaveWay).toBe(false);
  });

  it('gives way to a Map when addresses are made to collide, and every count stays exact', () => {
    const same = colliding(64, 128);
    const result = tally([...same, ...same]);
    expect(result.gaveWay).toBe(true);
    expect(result.counts).toEqual([...same.map(() => 1), ...same.map(() => 2)]);
    expect(result.top).toBe(2);
  });
});
