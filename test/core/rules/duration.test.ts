import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../../src/core/rules/duration.ts';

describe('parseDuration', () => {
  it.each([
    ['0s', 0],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1h30m', 5_400_000],
    ['1d', 86_400_000],
    ['250ms', 250],
    ['5', null],
    ['5 m', null],
    ['-5m', null],
    ['', null],
    ['1.5h', null],
  ])('%j -> %j', (text, expected) => {
    expect(parseDuration(text)).toBe(expected);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [30_000, '30s'],
    [90_000, '1m30s'],
    [14_400_000, '4h'],
    [90_061_000, '1d1h1m1s'],
    [250, '250ms'],
  ])('%i -> %s', (ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });
});
