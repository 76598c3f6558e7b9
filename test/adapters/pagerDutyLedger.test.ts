import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoPagerDutyLedger } from '../../src/adapters/pagerDutyLedger.ts';
import type { PagerDutyLedger } from '../../src/forwarder/ports.ts';
import { type LocalDynamo, startDynalite } from '../support/emulators.ts';
import { createMemoryLedger } from '../support/forwarderModel.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const T0_SECONDS = T0 / 1000;

/** One write of the ledger about one dedup_key. */
type Write =
  | { attempt: number; action: 'trigger' | 'resolve' }
  | { accept: number; part: number; action: 'trigger' | 'resolve' }
  | { close: number; part: number };
const write = (ledger: PagerDutyLedger, key: string, w: Write) => {
  if ('attempt' in w) return ledger.recordAttempt(key, w.attempt, T0, w.action);
  if ('accept' in w) return ledger.recordAccepted(key, w.accept, w.part, T0, w.action);
  return ledger.recordClosed(key, w.close, w.part, T0);
};
const trigger = 'trigger' as const;
const resolve = 'resolve' as const;

/** Rows of writes about one dedup_key, what each answered, and what is known after. */
const ORDER_ROWS: {
  case: string;
  before?: Record<string, unknown>;
  writes: Write[];
  results: boolean[];
  known: unknown;
}[] = [
  {
    case: 'a trigger attempted: known, open, no part accepted',
    writes: [{ attempt: 5, action: trigger }],
    results: [true],
    known: { order: 5, parts: [], action: trigger, open: true },
  },
  {
    case: 'parts attempted and accepted at one order',
    writes: [
      { attempt: 5, action: trigger },
      { accept: 5, part: 2, action: trigger },
      { attempt: 5, action: trigger },
      { accept: 5, part: 1, action: trigger },
    ],
    results: [true, true, true, true],
    known: { order: 5, parts: [1, 2], action: trigger, open: true },
  },
  {
    case: 'an older attempt refused; an accept of an order no longer the newest writes nothing',
    writes: [
      { attempt: 5, action: trigger },
      { attempt: 6, action: resolve },
      { attempt: 4, action: trigger },
      { accept: 5, part: 1, action: trigger },
    ],
    results: [true, true, false, false],
    known: { order: 6, parts: [], action: resolve, open: true },
  },
  {
    case: 'a resolve attempted keeps the incident open until it is accepted',
    writes: [
      { attempt: 5, action: trigger },
      { accept: 5, part: 1, action: trigger },
      { attempt: 6, action: resolve },
    ],
    results: [true, true, true],
    known: { order: 6, parts: [], action: resolve, open: true },
  },
  {
    case: 'a resolve accepted closes it',
    writes: [
      { attempt: 5, action: trigger },
      { attempt: 6, action: resolve },
      { accept: 6, part: 1, action: resolve },
    ],
    results: [true, true, true],
    known: { order: 6, parts: [1], action: resolve, open: false },
  },
  {
    case: 'a newer trigger attempted re-opens',
    writes: [
      { attempt: 6, action: resolve },
      { accept: 6, part: 1, action: resolve },
      { attempt: 7, action: trigger },
    ],
    results: [true, true, true],
    known: { order: 7, parts: [], action: trigger, open: true },
  },
  {
    case: 'a resolve with nothing open remembered as closed, then its other part',
    writes: [
      { close: 5, part: 2 },
      { close: 5, part: 1 },
    ],
    results: [true, true],
    known: { order: 5, parts: [1, 2], action: resolve, open: false },
  },
  {
    case: 'a resolve remembered as closed over an older closed record',
    writes: [
      { attempt: 5, action: trigger },
      { attempt: 6, action: resolve },
      { accept: 6, part: 1, action: resolve },
      { close: 7, part: 1 },
    ],
    results: [true, true, true, true],
    known: { order: 7, parts: [1], action: resolve, open: false },
  },
  {
    case: 'not remembered as closed while a trigger may be open, nor over a newer order',
    writes: [
      { attempt: 5, action: trigger },
      { close: 6, part: 1 },
      { close: 5, part: 1 },
      { attempt: 8, action: resolve },
      { accept: 8, part: 1, action: resolve },
      { close: 7, part: 1 },
    ],
    results: [true, false, false, true, true, false],
    known: { order: 8, parts: [1], action: resolve, open: false },
  },
  {
    case: 'a record from before actions: open',
    before: { order: 3, parts: new Set([1]) },
    writes: [],
    results: [],
    known: { order: 3, parts: [1], action: null, open: true },
  },
  {
    case: 'a record from before `open` of a trigger: open, not closed by a dropped resolve',
    before: { order: 3, parts: new Set([1]), action: trigger },
    writes: [{ close: 4, part: 1 }],
    results: [false],
    known: { order: 3, parts: [1], action: trigger, open: true },
  },
  {
    case: 'a record from before `open` of a resolve: closed; a newer resolve remembered as closed',
    before: { order: 3, parts: new Set([1]), action: resolve },
    writes: [{ close: 4, part: 1 }],
    results: [true],
    known: { order: 4, parts: [1], action: resolve, open: false },
  },
  {
    case: 'a record from before `open` of a trigger, then a resolve attempted: open until accepted',
    before: { order: 3, parts: new Set([1]), action: trigger },
    writes: [{ attempt: 4, action: resolve }],
    results: [true],
    known: { order: 4, parts: [], action: resolve, open: true },
  },
];

describe('createDynamoPagerDutyLedger on dynalite', () => {
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

  it.each(ORDER_ROWS)('$case', async ({ case: name, before, writes, results, known }) => {
    // Prepare: one dedup_key per row; a record as an earlier forwarder wrote it, when given.
    const key = `fp-${name}`;
    if (before !== undefined)
      await dynamo.doc.send(new PutCommand({ TableName: 'state', Item: { pk: `pagerduty-order#${key}`, ...before } }));

    // Act
    const written = [];
    for (const w of writes) written.push(await write(ledger, key, w));

    // Assess
    expect([written, await ledger.known(key)]).toEqual([results, known]);
  });

  it('knows nothing of a key never written; an open record never expires, a closed one 14 days on', async () => {
    // Act: a trigger attempted and accepted (open), its resolve attempted and accepted, a resolve closing nothing.
    const item = async (key: string) =>
      (await dynamo.doc.send(new GetCommand({ TableName: 'state', Key: { pk: `pagerduty-order#${key}` } }))).Item;
    await ledger.recordAttempt('group-a', 5, T0, 'trigger', { keyId: 'k1', version: 3 });
    const attempted = await item('group-a');
    await ledger.recordAccepted('group-a', 5, 1, T0 + 1_000, 'trigger');
    const accepted = await item('group-a');
    await ledger.recordAttempt('group-a', 6, T0 + 2_000, 'resolve', { keyId: 'k2', version: 4 });
    const resolving = await item('group-a');
    const knownResolving = await ledger.known('group-a');
    await ledger.recordAccepted('group-a', 6, 1, T0 + 3_000, 'resolve');
    const resolved = await item('group-a');
    await ledger.recordClosed('group-b', 5, 1, T0);
    const closed = await item('group-b');

    // Assess: a resolve goes where the trigger opened the incident (the trigger's key kept).
    expect(await ledger.known('group-never')).toBeNull();
    expect(knownResolving).toEqual({
      order: 6,
      parts: [],
      action: 'resolve',
      open: true,
      opener: { keyId: 'k1', version: 3 },
    });
    expect(
      [attempted, accepted, resolving, resolved, closed].map((i) => [i?.expiresAt, i?.open, i?.keyId, i?.keyVersion]),
    ).toEqual([
      [undefined, true, 'k1', 3],
      [undefined, true, 'k1', 3],
      [undefined, true, 'k1', 3],
      [T0_SECONDS + 3 + 14 * 86_400, false, 'k1', 3],
      [T0_SECONDS + 14 * 86_400, false, undefined, undefined],
    ]);
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

describe("createMemoryLedger (the model's), against the same rows", () => {
  it.each(ORDER_ROWS.filter((row) => row.before === undefined))('$case', async ({ writes, results, known }) => {
    // Act
    const ledger = createMemoryLedger();
    const written = [];
    for (const w of writes) written.push(await write(ledger, 'fp-x', w));

    // Assess
    expect([written, await ledger.known('fp-x')]).toEqual([results, known]);
  });
});
