/**
 * What one run carries from step to step: its dependencies, its time, its one random id and its
 * ledger. Every step (the configuration, the targets, the groups' flush) adds what it wrote, sent
 * and what failed to the ledger as it goes; the run's error is made from it once, at the end
 * (`RunLedger.toError`), after every target was handled and the metrics sent.
 */
import { randomUUID } from 'node:crypto';
import type { CycleDeps } from './ports.ts';

/** SNS (or a group) refused some of the run's pages; they are sent again on the next run. */
class PublishFailedError extends Error {
  constructor(count: number, options?: ErrorOptions) {
    super(`expected SNS to accept every page, found ${count} rejected; they are sent again on the next run`, options);
    this.name = 'PublishFailedError';
  }
}

/** Some state items could not be read or written in the state table; the others were handled. */
class TargetsFailedError extends Error {
  constructor(count: number, options?: ErrorOptions) {
    super(`expected every target's state to be read and written, found ${count} failed; the next run retries`, options);
    this.name = 'TargetsFailedError';
  }
}

/** What a run did and what failed, added to by each step as it goes. */
class RunLedger {
  /** Pages SNS (or a group) refused: the run fails visibly, the next run sends them again. */
  readonly publishFailures: unknown[] = [];
  /** State table reads and writes that failed: the run goes on with the rest, then fails visibly. */
  readonly stateFailures: unknown[] = [];
  /** Conditional writes to the state table (claims, commits, changes, checkpoints, the stored configuration). */
  writes = 0;
  /** Pages SNS accepted (straight from the run's router, and its groups' pages). */
  sent = 0;
  /** Target and group items another run held or changed meanwhile: left to that run. */
  conflicts = 0;

  /** A claim step's writes and its refused pages (the conflicts are counted where they are told apart). */
  claimed(outcome: { writes: number; failed: ReadonlyArray<{ error: unknown }> }): void {
    this.writes += outcome.writes;
    for (const { error } of outcome.failed) this.publishFailures.push(error);
  }

  /**
   * The one way a run's failures become its error (null: none): a refused page first (SNS sends
   * it again next run), with every failure as its cause; else the state table's failures.
   */
  toError(): Error | null {
    if (this.publishFailures.length > 0)
      return new PublishFailedError(this.publishFailures.length, {
        cause: new AggregateError([...this.publishFailures, ...this.stateFailures]),
      });
    if (this.stateFailures.length > 0)
      return new TargetsFailedError(this.stateFailures.length, { cause: new AggregateError(this.stateFailures) });
    return null;
  }
}

interface RunContext {
  readonly deps: CycleDeps;
  /** The run's time: its schedule tick's (a retry of the event has the same). */
  readonly now: Date;
  /**
   * Random, one per run: the token of every claim the run writes (its steps touch disjoint items,
   * so one token tells this run's claims from every other run's), and the dispatch's id in its
   * shard messages.
   */
  readonly runId: string;
  readonly ledger: RunLedger;
}

/** A new run at `now`, with a new id and an empty ledger. */
function startRun(deps: CycleDeps, now: Date, runId: string = randomUUID()): RunContext {
  return { deps, now, runId, ledger: new RunLedger() };
}

/** The lease a run's claims take: its id and the configured lease. */
function leaseOf(ctx: RunContext): { token: string; leaseMs: number } {
  return { token: ctx.runId, leaseMs: ctx.deps.claimLeaseMs };
}

/**
 * `step`, or `fallback` when it throws: the error joins the run's state failures and is logged as
 * "<what> failed". Why: a state table failure in one step must not stop the targets being
 * fetched, nor the heartbeat.
 */
async function guarded<T>(ctx: RunContext, what: string, step: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await step();
  } catch (error) {
    ctx.ledger.stateFailures.push(error);
    ctx.deps.logger.error(`${what} failed`, { error: (error as Error).message });
    return fallback;
  }
}

export type { RunContext };
export { guarded, leaseOf, PublishFailedError, RunLedger, startRun, TargetsFailedError };
