import { describe, expect, it } from 'vitest';
import { didYouMean, nearestNames } from '../../src/core/nearest.ts';

describe('nearestNames', () => {
  it.each([
    ['a dropped letter', '--timout', ['--timeout', '--target', '--state'], ['--timeout']],
    ['swapped letters', '--stae', ['--state', '--json'], ['--state']],
    ['a unit left out', 'timeout', ['timeoutMs', 'maxBytes', 'labels'], ['timeoutMs']],
    ['case', 'IDLE-SLOTS-LOW', ['idle-slots-low', 'closing-pileup'], ['idle-slots-low']],
    ['nothing close', '--frobnicate', ['--json', '--state'], []],
    ['nearest first', 'web-1', ['web-10', 'web-1x', 'db-1'], ['web-10', 'web-1x', 'db-1']],
  ])('%s', (_, typed, known, expected) => {
    expect(nearestNames(typed, known)).toEqual(expected);
  });

  it.each([
    ['--jsn', ['--json'], ' (did you mean --json?)'],
    ['web-2', ['web-1', 'web-3'], ' (did you mean web-1 or web-3?)'],
    ['zzz', ['web-1'], ''],
  ])('didYouMean(%s)', (typed, known, expected) => {
    expect(didYouMean(typed, known)).toBe(expected);
  });
});
