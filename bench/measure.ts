/**
 * Timing: warm up, then time batches with `process.hrtime.bigint()` until the budget is spent;
 * per-op figures are batch time / batch size, so sub-10 µs operations are not lost in timer noise.
 * Each batch's CPU time (`process.cpuUsage`, user + system) is kept too: on a machine shared with
 * other work the wall time counts the time the process waited for a core, its CPU time does not.
 */

interface Timing {
  /** Median time per operation, milliseconds. */
  medianMs: number;
  /** 95th percentile time per operation, milliseconds. */
  p95Ms: number;
  samples: number;
  /** Operations per sample. */
  batch: number;
  /** Median CPU time (user + system) per operation, milliseconds. */
  cpuMedianMs: number;
}

const MIN_SAMPLE_NS = 500_000; // batch tiny operations up to about 0.5 ms per sample (CPU time counts µs)
let sink = 0; // results feed this so the optimiser cannot drop the call

function quantile(sorted: readonly number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] as number;
}

let lastCpuUs = 0; // CPU time of the last `once`, microseconds

function once(fn: () => unknown, batch: number): number {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < batch; i++) {
    const r = fn();
    if (r === undefined) sink++;
  }
  const ns = Number(process.hrtime.bigint() - start);
  const used = process.cpuUsage(cpu);
  lastCpuUs = used.user + used.system;
  return ns;
}

/** Time `fn`: warm-up for a quarter of `budgetMs`, then samples for the rest (5 to 400 samples). */
function measure(fn: () => unknown, budgetMs: number): Timing {
  const budgetNs = budgetMs * 1e6;
  let spent = 0;
  let warm = 0;
  let last = 0;
  while ((spent < budgetNs / 4 || warm < 3) && warm < 500) {
    last = once(fn, 1);
    spent += last;
    warm++;
  }
  const batch = Math.max(1, Math.ceil(MIN_SAMPLE_NS / Math.max(last, 1)));
  const perOp: number[] = [];
  const cpuPerOp: number[] = [];
  spent = 0;
  while ((spent < (budgetNs * 3) / 4 || perOp.length < 5) && perOp.length < 400) {
    const ns = once(fn, batch);
    spent += ns;
    perOp.push(ns / batch);
    cpuPerOp.push(lastCpuUs / batch);
  }
  perOp.sort((a, b) => a - b);
  cpuPerOp.sort((a, b) => a - b);
  return {
    medianMs: quantile(perOp, 0.5) / 1e6,
    p95Ms: quantile(perOp, 0.95) / 1e6,
    samples: perOp.length,
    batch,
    cpuMedianMs: quantile(cpuPerOp, 0.5) / 1e3,
  };
}

/** CPU microseconds per call of `fn`, called for at least `ms` of wall time (and at least twice). */
function cpuPerCall(fn: () => unknown, ms: number): number {
  const cpu = process.cpuUsage();
  const until = process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  let calls = 0;
  while (calls < 2 || process.hrtime.bigint() < until) {
    if (fn() === undefined) sink++;
    calls++;
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / calls;
}

/**
 * How much more CPU per unit (a slot) `large` takes than `small`: the two timed in alternation,
 * each for `segmentMs` at a time (long enough to pay its own collections, as a steady stream of
 * parses does), and the median of the ratios of neighbouring segments. A ratio of two figures
 * measured minutes apart reads the machine's spells too (this shared machine moves by half within
 * minutes); one of neighbours in time does not.
 */
function unitCostRatio(
  small: () => unknown,
  smallUnits: number,
  large: () => unknown,
  largeUnits: number,
  budgetMs: number,
  segmentMs = 300,
): { ratio: number; rounds: number } {
  cpuPerCall(small, segmentMs); // warm-up
  cpuPerCall(large, segmentMs);
  const ratios: number[] = [];
  const rounds = Math.max(5, Math.floor(budgetMs / (2 * segmentMs)));
  for (let round = 0; round < rounds; round++) {
    // Each order in turn: what one segment leaves to collect falls on the other as often as not.
    const first = round % 2 === 0;
    const a = first ? cpuPerCall(small, segmentMs) : 0;
    const largePerUnit = cpuPerCall(large, segmentMs) / largeUnits;
    const smallPerUnit = (first ? a : cpuPerCall(small, segmentMs)) / smallUnits;
    if (smallPerUnit > 0) ratios.push(largePerUnit / smallPerUnit);
  }
  ratios.sort((x, y) => x - y);
  return { ratio: quantile(ratios, 0.5), rounds: ratios.length };
}

/** Read by run.ts so `sink` is observable. */
function sinkValue(): number {
  return sink;
}

export type { Timing };
export { measure, sinkValue, unitCostRatio };
