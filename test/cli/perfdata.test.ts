import { describe, expect, it } from 'vitest';
import { nagiosRange } from '../../src/cli/perfdata.ts';
import type { Op } from '../../src/core/rules/types.ts';

describe('nagiosRange', () => {
  it.each<[Op, number, boolean, string]>([
    ['<', 5, true, '5:'],
    ['<', 0.05, false, '0.05:'],
    ['<=', 5, true, '6:'],
    ['<=', 0.05, false, '0.05:'],
    ['>', 300, true, '300'],
    ['>', 0.5, false, '0.5'],
    ['>=', 20, true, '19'],
    ['>=', 1, true, '0'],
    ['>=', 0, true, '~:-1'],
    ['>=', 0.25, false, '0.25'],
    ['==', 0, true, '@0:0'],
    ['!=', 1, true, '1:1'],
  ])('value %s %d (whole: %s) alerts outside %s', (op, threshold, whole, expected) => {
    expect(nagiosRange(op, threshold, whole)).toBe(expected);
  });
});
