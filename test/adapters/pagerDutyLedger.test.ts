import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoPagerDutyLedger, type PagerDutyLedger } from '../../src/adapters/pagerDutyLedger.ts';
import { type LocalDynamo, startDynalite } from '../support/emulators.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const T0_SECONDS = T0 / 1000;

describe('Function: createDynamoPagerDutyLedger on dynalite', () => {
  let dynamo: LocalDynamo;
  let ledger: PagerDutyLedger;
  beforeAll(async () => {
    dynamo = await startDynalite();
    await dynamo.createTable('state');
    ledger = createDynamoPagerDutyLedger(dynamo.doc, 'state');
  });
  afterAll(async () => {
    await dynamo.stop();
  });

  it('keeps the newest order per dedup_key and the parts accepted at it, with a 14-day TTL', async () => {
    // Act: order 5 part 2, part 1, then an older order 4, then a newer 6.
    const results = [
      await ledger.recordAccepted('group-a', 5, 2, T0),
      await ledger.recordAccepted('group-a', 5, 1, T0),
      await ledger.recordAccepted('group-a', 4, 1, T0),
    ];
    const atFive = await ledger.accepted('group-a');
    results.push(await ledger.recordAccepted('group-a', 6, 3, T0));

    // Assess
    expect(results).toEqual([true, true, false, true]);
    expect([atFive, await ledger.accepted('group-a'), await ledger.accepted('group-b')]).toEqual([
      { order: 5, parts: [1, 2] },
      { order: 6, parts: [3] },
      null,
    ]);
    const { Item } = await dynamo.doc.send(
      new GetCommand({ TableName: 'state', Key: { pk: 'pagerduty-order#group-a' } }),
    );
    expect(Item?.expiresAt).toBe(T0_SECONDS + 14 * 86_400);
  });

  it('gives out `limit` places per window and routing key, then none until the next window', async () => {
    // Act
    const taken = [];
    for (let i = 0; i < 4; i++) taken.push(await ledger.takeSlot('key-1', T0, 3, 10_000));
    taken.push(await ledger.takeSlot('key-2', T0, 3, 10_000));
    taken.push(await ledger.takeSlot('key-1', T0 + 10_000, 3, 10_000));

    // Assess
    expect(taken).toEqual([true, true, true, false, true, true]);
  });

  it('notes a key problem once until its hour has passed', async () => {
    // Act
    const noted = [
      await ledger.noteKeyProblem('key-1', T0),
      await ledger.noteKeyProblem('key-1', T0 + 59 * 60_000),
      await ledger.noteKeyProblem('key-2', T0),
      await ledger.noteKeyProblem('key-1', T0 + 61 * 60_000),
    ];

    // Assess
    expect(noted).toEqual([true, false, true, true]);
  });
});
