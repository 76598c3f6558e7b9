import { describe, expect, it } from 'vitest';
import { readConfig } from '../../infra/config.ts';
import { MEMORY_SIZES_MB, memoryForTargets, targetsPerRun } from '../../infra/memorySize.ts';

describe('targetsPerRun', () => {
  it.each([
    // memory MB, CPU ms per target on one vCPU, slowest target ms, targets within 1.5x of it
    [1769, 1.6, 1200, 1125],
    [1024, 1.6, 1200, 651],
    [512, 1.6, 1200, 325],
    [256, 1.6, 1200, 162],
    [3538, 1.6, 1200, 1125],
    [256, 0.5, 1200, 520],
    [1769, 1, 2000, 3000],
  ])('%i MB, %f ms per target, slowest %i ms: %i targets', (memoryMb, cpuMs, slowestMs, targets) => {
    expect(targetsPerRun(memoryMb, cpuMs, slowestMs)).toBe(targets);
  });
});

describe('memoryForTargets', () => {
  it.each([
    [0, 256],
    [1, 256],
    [targetsPerRun(256), 256],
    [targetsPerRun(256) + 1, 512],
    [targetsPerRun(512) + 1, 1024],
    [targetsPerRun(1024) + 1, 1769],
    [100_000, 1769],
  ])('%i targets: %i MB', (targets, memoryMb) => {
    expect(memoryForTargets(targets)).toBe(memoryMb);
  });

  it('offers sizes in increasing order, so the first that fits is the cheapest', () => {
    expect([...MEMORY_SIZES_MB]).toEqual([...MEMORY_SIZES_MB].sort((a, b) => a - b));
  });
});

describe('memoryMb=auto', () => {
  const targets = (n: number) =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`web-${i}`, { url: `http://10.0.0.${i % 250}/server-status` }]),
    );

  it.each([
    [0, 256],
    [targetsPerRun(256) + 1, 512],
  ])('with %i seeded targets picks %i MB', (n, memoryMb) => {
    const context: Record<string, unknown> = { memoryMb: 'auto', targets: JSON.stringify(targets(n)) };
    expect(readConfig((key) => context[key]).memoryMb).toBe(memoryMb);
  });

  it('keeps a number given as is', () => {
    expect(readConfig((key) => ({ memoryMb: '1024' })[key]).memoryMb).toBe(1024);
  });
});
