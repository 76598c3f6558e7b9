/**
 * The function's memory, chosen from what a warm run was measured to cost, not by habit. Lambda
 * gives CPU in proportion to memory (one vCPU at 1,769 MB), and a warm run past a few hundred
 * targets is bound by CPU: it keeps within 1.5x of its slowest target while the CPU of all its
 * targets, at the memory's share of a vCPU, fits in 1.5x that target's time (the slowest target
 * starts first, so the rest of the CPU overlaps its wait). Figures: docs/scale.md, bench/e2e.
 */

/** Lambda's memory for one full vCPU; below it the CPU share is memory / this. */
const MB_PER_VCPU = 1769;

/**
 * CPU per target of a steady warm run on one core, as `npm run bench` measured it end to end
 * (bench/e2e: the bundle under the runtime client, real Apache pages, the AWS SDK against the
 * emulators; 1,000 targets, slow and broken ones among them). Rounded up.
 */
const MEASURED_CPU_MS_PER_TARGET = 1.3;

/** The slowest target the sizes are computed for: the benchmark's rate-limited page, 1.2 s. */
const REFERENCE_SLOWEST_MS = 1200;

/** A warm run may take this many times its slowest target. */
const PACE_RATIO = 1.5;

/**
 * The sizes offered, smallest first: each doubles the CPU of the one before up to one vCPU
 * (1,769 MB). A run is one Node thread: more than one vCPU would not make it faster.
 */
const MEMORY_SIZES_MB = [256, 512, 1024, 1769] as const;

/**
 * How many targets one run holds within `PACE_RATIO` of a `slowestMs` target at `memoryMb`.
 *
 * @example
 * targetsPerRun(1769) // 1,384: 1,384 x 1.3 ms of CPU on one vCPU = 1.8 s = 1.5 x 1.2 s
 */
function targetsPerRun(
  memoryMb: number,
  cpuMsPerTarget = MEASURED_CPU_MS_PER_TARGET,
  slowestMs = REFERENCE_SLOWEST_MS,
): number {
  const vcpu = Math.min(memoryMb, MB_PER_VCPU) / MB_PER_VCPU;
  return Math.floor((PACE_RATIO * slowestMs * vcpu) / cpuMsPerTarget);
}

/**
 * The smallest offered size whose run keeps pace with `targets` targets; one vCPU when none does
 * (then shard: docs/scale.md).
 *
 * @example
 * memoryForTargets(100) // 256
 */
function memoryForTargets(targets: number): number {
  for (const size of MEMORY_SIZES_MB) if (targetsPerRun(size) >= targets) return size;
  return MB_PER_VCPU;
}

export {
  MB_PER_VCPU,
  MEASURED_CPU_MS_PER_TARGET,
  MEMORY_SIZES_MB,
  memoryForTargets,
  PACE_RATIO,
  REFERENCE_SLOWEST_MS,
  targetsPerRun,
};
