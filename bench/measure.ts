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

/** Read by run.ts so `sink` is observable. */
function sinkValue(): number {
  return sink;
}

export type { Timing };
export { measure, sinkValue };
