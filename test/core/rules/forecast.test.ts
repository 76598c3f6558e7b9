import { describe, expect, it } from 'vitest';
import { type FreeSlotSample, forecastExhaustion, freeSlotSamples } from '../../../src/core/rules/forecast.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
/** Samples `[minute, free]` as the state holds them. */
const samples = (...points: Array<[number, number]>): FreeSlotSample[] =>
  points.map(([m, free]) => ({ at: at(m).toISOString(), free }));

describe('freeSlotSamples', () => {
  it.each([
    ['adds the sample of now', samples([0, 40]), 38, 1, samples([0, 40], [1, 38])],
    ['keeps a sample exactly 10 minutes old', samples([0, 40]), 38, 10, samples([0, 40], [10, 38])],
    ['drops a sample older than 10 minutes', samples([0, 40], [1, 39]), 38, 10.5, samples([1, 39], [10.5, 38])],
    ['adds nothing without a report, still prunes', samples([0, 40], [5, 39]), null, 12, samples([5, 39])],
    [
      'drops samples not before now (a clock stepped back)',
      samples([0, 40], [3, 39]),
      38,
      3,
      samples([0, 40], [3, 38]),
    ],
    ['starts from nothing', undefined, 7, 0, samples([0, 7])],
    [
      'drops what is not a sample (a hand-edited --state file)',
      [
        { at: 'soon', free: 3 },
        { at: at(-1).toISOString(), free: '4' },
        null,
        ...samples([-2, 40]),
      ] as FreeSlotSample[],
      38,
      0,
      samples([-2, 40], [0, 38]),
    ],
    ['ignores samples that are not a list', { at: 'x' } as unknown as FreeSlotSample[], 38, 0, samples([0, 38])],
  ])('%s', (_, previous, free, now, expected) => {
    // Act
    const next = freeSlotSamples(previous, free, at(now));

    // Assess
    expect(next).toEqual(expected);
  });

  it('keeps at most the newest 120 samples', () => {
    // Prepare: one sample a second for 3 minutes
    const previous = Array.from({ length: 180 }, (_, i) => ({ at: new Date(T0 + i * 1000).toISOString(), free: i }));

    // Act
    const next = freeSlotSamples(previous, 0, new Date(T0 + 180_000));

    // Assess
    expect(next).toHaveLength(120);
    expect(next[0]).toEqual({ at: new Date(T0 + 61_000).toISOString(), free: 61 });
    expect(next.at(-1)).toEqual({ at: new Date(T0 + 180_000).toISOString(), free: 0 });
  });
});

describe('forecastExhaustion', () => {
  it.each([
    // A line falling 20 a minute from 60 now reaches 0 in 3 minutes.
    ['a steady fall', samples([-2, 100], [-1, 80], [0, 60]), 0, { minutes: 3, exhaustedAt: at(3).toISOString() }],
    // Least squares through 100, 84, 56, 40: slope -20.8, fitted 39.4 now: 1.9 minutes.
    [
      'a noisy fall',
      samples([-3, 100], [-2, 84], [-1, 56], [0, 40]),
      0,
      { minutes: 1.9, exhaustedAt: '2026-11-22T12:01:54.000Z' },
    ],
    ['no slot free now', samples([0, 0]), 0, { minutes: 0, exhaustedAt: at(0).toISOString() }],
    // The line reached 0 already though 5 slots are free now: "now", not a negative number.
    ['a line already past 0', samples([-2, 100], [-1, 0], [0, 5]), 0, { minutes: 0, exhaustedAt: at(0).toISOString() }],
    [
      'exactly 120 minutes',
      samples([-2, 244], [-1, 242], [0, 240]),
      0,
      { minutes: 120, exhaustedAt: at(120).toISOString() },
    ],
  ])('forecasts %s', (_, points, now, expected) => {
    // Act
    const result = forecastExhaustion(points, at(now));

    // Assess
    expect(result).toEqual({ ok: true, forecast: { ...expected, samples: points } });
  });

  it.each([
    [
      'two samples',
      samples([-2, 100], [0, 60]),
      '2 free-slot samples over 120 s in the last 10 minutes, fewer than 3 over 2 minutes',
      false,
    ],
    [
      'three samples over 90 seconds',
      samples([-1.5, 100], [-1, 80], [0, 60]),
      '3 free-slot samples over 90 s in the last 10 minutes, fewer than 3 over 2 minutes',
      false,
    ],
    ['a flat line', samples([-2, 60], [-1, 60], [0, 60]), 'the free slots are not falling', true],
    ['a rising line', samples([-2, 20], [-1, 40], [0, 60]), 'the free slots are not falling', true],
    ['noise without a trend', samples([-3, 60], [-2, 40], [-1, 40], [0, 60]), 'the free slots are not falling', true],
    [
      'beyond 120 minutes',
      samples([-2, 246], [-1, 244], [0, 242]),
      'the free slots run out in 121 minutes, beyond 120',
      true,
    ],
  ])('gives no forecast for %s', (_, points, reason, unbounded) => {
    // Act
    const result = forecastExhaustion(points, at(0));

    // Assess
    expect(result).toEqual({ ok: false, reason, unbounded });
  });
});
