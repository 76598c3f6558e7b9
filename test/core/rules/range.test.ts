import { describe, expect, it } from 'vitest';
import { describeRange, formatRange, parseRange, rangeAlerts } from '../../../src/core/rules/range.ts';

const INF = Number.POSITIVE_INFINITY;

describe('parseRange', () => {
  it.each([
    // text, start, end, inside, shortest form, in words, values that alert, values that do not
    ['10', 0, 10, false, '10', 'outside 0 to 10', [-1, 10.5, 11], [0, 5, 10]],
    ['10:', 10, INF, false, '10:', 'below 10', [9, 9.99], [10, 1000]],
    ['~:10', -INF, 10, false, '~:10', 'above 10', [10.01, 11], [-5, 10]],
    ['10:20', 10, 20, false, '10:20', 'outside 10 to 20', [9, 21], [10, 15, 20]],
    ['@10:20', 10, 20, true, '@10:20', 'between 10 and 20', [10, 15, 20], [9, 21]],
    ['@~:5', -INF, 5, true, '@~:5', 'at or below 5', [5, 0], [6]],
    ['@5:', 5, INF, true, '@5:', 'at or above 5', [5, 99], [4]],
    ['0:10', 0, 10, false, '10', 'outside 0 to 10', [11], [0]],
    ['0.05:', 0.05, INF, false, '0.05:', 'below 0.05', [0.04], [0.05]],
    ['-5:+5', -5, 5, false, '-5:5', 'outside -5 to 5', [-6, 6], [0]],
  ])('%s', (text, start, end, inside, short, words, alerting, quiet) => {
    const range = parseRange(text);
    expect(range).toEqual({ start, end, inside });
    expect([formatRange(range), describeRange(range)]).toEqual([short, words]);
    expect(alerting.map((v) => rangeAlerts(range, v))).toEqual(alerting.map(() => true));
    expect(quiet.map((v) => rangeAlerts(range, v))).toEqual(quiet.map(() => false));
  });

  it.each([
    ['', 'expected a range such as 10, 10:, ~:10, 10:20 or @10:20, found nothing'],
    ['@', 'expected a range such as 10, 10:, ~:10, 10:20 or @10:20, found "@"'],
    ['ten', 'expected a number as the end, found "ten" in "ten"'],
    ['1:2:3', 'expected at most one ":" in a range such as 10, 10:, ~:10, 10:20 or @10:20, found "1:2:3"'],
    ['10@', 'expected "@" only at the start of a range such as 10, 10:, ~:10, 10:20 or @10:20, found "10@"'],
    [':10', 'expected a number or ~ before ":", found nothing in ":10"'],
    ['x:10', 'expected a number or ~ before ":", found "x" in "x:10"'],
    ['10:y', 'expected a number after ":", found "y" in "10:y"'],
    ['20:10', 'expected a start no greater than the end, found 20 above 10 in "20:10"'],
    ['1e3', 'expected a number as the end, found "1e3" in "1e3"'],
  ])('refuses "%s"', (text, message) => {
    expect(() => parseRange(text)).toThrow(message);
  });
});
