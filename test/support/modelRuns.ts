/**
 * How many random sequences the page-accounting model test drives, from its environment: the
 * figures `npm test` and `npm run soak` run, which the README and docs/lambda.md quote (checked by
 * test/project/docsConstants.test.ts).
 */

/** Sequences on the in-memory table when neither variable is set (`npm test`, CI). */
const DEFAULT_MEMORY_SEQUENCES = 300;
/** Without a soak, one sequence on dynalite for this many on the in-memory table (each creates a table). */
const MEMORY_PER_DYNALITE = 30;
/** In a soak, one sequence on dynalite for this many on the in-memory table. */
const SOAK_MEMORY_PER_DYNALITE = 20;

interface ModelRuns {
  memory: number;
  dynalite: number;
}

/**
 * `SOAK_SEQUENCES=n` runs n on the in-memory table and n/20 on dynalite; otherwise
 * `MODEL_SEQUENCES` (default 300) on the in-memory table and a thirtieth of it on dynalite.
 *
 * @example
 * modelRuns({}); // { memory: 300, dynalite: 10 }
 * modelRuns({ SOAK_SEQUENCES: '20000' }); // { memory: 20000, dynalite: 1000 }
 */
function modelRuns(env: Readonly<Record<string, string | undefined>>): ModelRuns {
  const soak = Number(env.SOAK_SEQUENCES ?? 0);
  if (soak > 0) return { memory: soak, dynalite: Math.ceil(soak / SOAK_MEMORY_PER_DYNALITE) };
  const memory = Number(env.MODEL_SEQUENCES ?? DEFAULT_MEMORY_SEQUENCES);
  return { memory, dynalite: Math.ceil(memory / MEMORY_PER_DYNALITE) };
}

export { type ModelRuns, modelRuns };
