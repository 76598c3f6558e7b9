import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
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
      await ledger.recordAccepted('group-a', 5, 2, T0, 'trigger'),
      await ledger.recordAccepted('group-a', 5, 1, T0, 'trigger'),
      await ledger.recordAccepted('group-a', 4, 1, T0, 'trigger'),
    ];
    const atFive = await ledger.known('group-a');
    results.push(await ledger.recordAccepted('group-a', 6, 3, T0, 'resolve'));

    // Assess
    expect(results).toEqual([true, true, false, true]);
    expect([atFive, await ledger.known('group-a'), await ledger.known('group-b')]).toEqual([
      { order: 5, parts: [1, 2], action: 'trigger' },
      { order: 6, parts: [3], action: 'resolve' },
      null,
    ]);
    const { Item } = await dynamo.doc.send(
      new GetCommand({ TableName: 'state', Key: { pk: 'pagerduty-order#group-a' } }),
    );
    expect(Item?.expiresAt).toBe(T0_SECONDS + 14 * 86_400);
  });

  it('reads what was remembered before actions were as an unknown action', async () => {
    // Prepare: an item as the forwarder wrote it before it kept the action.
    await dynamo.doc.send(
      new PutCommand({ TableName: 'state', Item: { pk: 'pagerduty-order#fp-old', order: 3, parts: new Set([1]) } }),
    );

    // Act
    const accepted = await ledger.known('fp-old');

    // Assess
    expect(accepted).toEqual({ order: 3, parts: [1], action: null });
  });

  it('gives a group at most `bound` incidents of their own, keeps a holder in, and frees a seat for the next', async () => {
    // Act: three alerts claim two seats, the first again; the first frees its seat, the third claims it.
    const claims = [
      await ledger.claimOwnIncident('group-b', 'fp-1', 2, T0),
      await ledger.claimOwnIncident('group-b', 'fp-2', 2, T0),
      await ledger.claimOwnIncident('group-b', 'fp-3', 2, T0),
      await ledger.claimOwnIncident('group-b', 'fp-1', 2, T0 + 60_000),
    ];
    const full = await ledger.ownIncidents('group-b');
    await ledger.freeOwnIncident('group-b', 'fp-1');
    claims.push(await ledger.claimOwnIncident('group-b', 'fp-3', 2, T0));

    // Assess
    expect(claims).toEqual([true, true, false, true, true]);
    expect([full, await ledger.ownIncidents('group-b'), await ledger.ownIncidents('group-c')]).toEqual([
      new Set(['fp-1', 'fp-2']),
      new Set(['fp-2', 'fp-3']),
      new Set(),
    ]);
  });

  it('gives no more than `bound` seats to claims made at once (parts forwarded by several containers)', async () => {
    // Act: 300 alerts claim 120 seats concurrently.
    const claims = await Promise.all(
      Array.from({ length: 300 }, (_, i) => ledger.claimOwnIncident('group-d', `fp-${i}`, 120, T0)),
    );

    // Assess
    expect([claims.filter(Boolean).length, (await ledger.ownIncidents('group-d')).size]).toEqual([120, 120]);
  });

  it('frees a seat of a group it has no item for without creating one', async () => {
    // Act
    await ledger.freeOwnIncident('group-none', 'fp-1');

    // Assess
    const { Item } = await dynamo.doc.send(
      new GetCommand({ TableName: 'state', Key: { pk: 'pagerduty-own#group-none' } }),
    );
    expect(Item).toBeUndefined();
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
