import { describe, expect, it } from 'vitest';
import type { CycleDeps } from '../../src/app/ports.ts';
import { PublishFailedError, RunLedger, startRun, TargetsFailedError } from '../../src/app/runContext.ts';

describe("RunLedger.toError: the run's error from what failed", () => {
  const sns = new Error('SNS is down');
  const table = new Error('throttled');
  const PUBLISH = (n: number) =>
    `expected SNS to accept every page, found ${n} rejected; they are sent again on the next run`;
  const STATE = (n: number) =>
    `expected every target's state to be read and written, found ${n} failed; the next run retries`;
  it.each<[string, unknown[], unknown[], (new (n: number) => Error) | null, string | null, unknown[]]>([
    ['nothing failed', [], [], null, null, []],
    ['publishes failed', [sns, sns], [], PublishFailedError, PUBLISH(2), [sns, sns]],
    ['state writes failed', [], [table, table], TargetsFailedError, STATE(2), [table, table]],
    ['both: refused page first', [sns], [table], PublishFailedError, PUBLISH(1), [sns, table]],
  ])('%s', (_, publish, state, errorClass, message, causes) => {
    // Prepare
    const ledger = new RunLedger();
    ledger.publishFailures.push(...publish);
    ledger.stateFailures.push(...state);
    // Act
    const error = ledger.toError();
    // Assess
    if (errorClass === null) expect(error).toBeNull();
    else expect(error).toBeInstanceOf(errorClass);
    expect(error?.message ?? null).toBe(message);
    expect((error?.cause as AggregateError | undefined)?.errors ?? []).toEqual(causes);
  });
});

describe('RunLedger.claimed: a claim step in the ledger', () => {
  it('adds its writes and each refused page, in order', () => {
    const ledger = new RunLedger();
    const refused = [new Error('a'), new Error('b')];
    ledger.claimed({ writes: 2, failed: [] });
    ledger.claimed({ writes: 1, failed: refused.map((error) => ({ error })) });
    expect({ writes: ledger.writes, publishFailures: ledger.publishFailures }).toEqual({
      writes: 3,
      publishFailures: refused,
    });
  });
});

describe('startRun', () => {
  it('a new id per run, an empty ledger', () => {
    const deps = {} as CycleDeps;
    const now = new Date('2026-11-22T12:00:00Z');
    const [a, b] = [startRun(deps, now), startRun(deps, now)];
    expect(a.runId).not.toBe(b.runId);
    expect([a.ledger.writes, a.ledger.sent, a.ledger.conflicts, a.ledger.toError()]).toEqual([0, 0, 0, null]);
    expect(startRun(deps, now, 'run-1').runId).toBe('run-1');
  });
});
