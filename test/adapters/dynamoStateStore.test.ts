import { BatchGetCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  BATCH_GET_ATTEMPTS,
  createDynamoStateTable,
  UnprocessedKeysError,
} from '../../src/adapters/dynamoStateStore.ts';
import { createMemoryStateTable } from '../../src/adapters/memoryStateStore.ts';
import type { Claim, StateTable } from '../../src/app/ports.ts';
import type { AlertRecord, TargetState } from '../../src/core/alerts/types.ts';
import { type LocalDynamo, startDynalite } from '../support/emulators.ts';
import { partialMessage } from '../support/messages.ts';

const NOW = new Date('2026-11-22T12:00:00Z');

function alert(target: string, fingerprint: string): AlertRecord {
  return {
    fingerprint,
    target,
    rule: 'closing-pileup',
    severity: 'warning',
    state: 'firing',
    activeAt: '2026-11-22T11:55:00.000Z',
    firedAt: '2026-11-22T11:58:00.000Z',
    resolvedAt: null,
    lastSentAt: null,
    lastSentStatus: null,
    value: 23,
    threshold: 20,
  };
}

function state(target: string, alerts: AlertRecord[]): TargetState {
  return {
    target,
    evaluatedAt: NOW.toISOString(),
    consecutiveFailures: 0,
    counters: { totalAccesses: 10, uptimeSeconds: 5, sslRetrieveHits: 1, sslRetrieveMisses: 0 },
    alerts: Object.fromEntries(alerts.map((a) => [a.fingerprint, a])),
  };
}

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startDynalite();
  await dynamo.createTable('state');
});
afterAll(async () => {
  await dynamo.stop();
});

// The memory table stands in for DynamoDB in the model-based tests: both must answer alike.
describe.each([
  ['dynamoStateStore on dynalite', () => createDynamoStateTable(dynamo.doc, 'state')],
  ['memoryStateTable', () => createMemoryStateTable()],
])('%s', (_name, make) => {
  let table: StateTable;
  beforeAll(() => {
    table = make();
  });

  it('writes one item per target holding every alert, conditional on its version', async () => {
    const s = state('db-1', [alert('db-1', 'fp-a'), alert('db-1', 'fp-b')]);
    expect(await table.put('target#db-1', { state: s, claim: null }, null, NOW)).toBe(true);
    expect(await table.put('target#db-1', { state: s, claim: null }, null, NOW)).toBe(false); // exists already
    expect(await table.put('target#db-1', { state: s, claim: null }, 2, NOW)).toBe(false); // stale version
    expect(await table.put('target#db-1', { state: s, claim: null }, 1, NOW)).toBe(true);
    expect((await table.loadMany(['target#db-1'])).get('target#db-1')).toEqual({ version: 2, state: s, claim: null });
    expect(await table.remove('target#db-1', 1)).toBe(false);
    expect(await table.remove('target#db-1', 2)).toBe(true);
    expect((await table.loadMany(['target#db-1'])).size).toBe(0);
  });

  it('keeps a claim with its pages until the next write replaces it', async () => {
    const s = state('db-2', [alert('db-2', 'fp-c')]);
    const claim: Claim = {
      token: 'run-a',
      expiresAtMs: NOW.getTime() + 60_000,
      deleteAfter: false,
      pages: [
        {
          notification: {
            fingerprint: 'fp-c',
            status: 'firing',
            reason: 'first',
            target: 'db-2',
            rule: 'closing-pileup',
            severity: 'warning',
            value: 23,
            threshold: 20,
            subject: '[FIRING warning] db-2: closing-pileup (23 >= 20)',
            message: 'text',
            payload: partialMessage({ version: 1 }),
            labels: {},
          },
          record: { ...alert('db-2', 'fp-c'), lastSentAt: NOW.toISOString(), lastSentStatus: 'firing' },
        },
      ],
    };
    expect(await table.put('target#db-2', { state: s, claim }, null, NOW)).toBe(true);
    expect((await table.loadMany(['target#db-2'])).get('target#db-2')?.claim).toEqual(claim);
    expect(await table.put('target#db-2', { state: s, claim: null }, 1, NOW)).toBe(true);
    expect((await table.loadMany(['target#db-2'])).get('target#db-2')?.claim).toBeNull();
  });

  it('stores non-finite numbers as null instead of failing the write', async () => {
    const s = state('db-3', [{ ...alert('db-3', 'fp-d'), value: Number.POSITIVE_INFINITY }]);
    s.counters = {
      totalAccesses: Number.POSITIVE_INFINITY,
      uptimeSeconds: Number.NaN,
      sslRetrieveHits: 1,
      sslRetrieveMisses: 0,
    };
    expect(await table.put('target#db-3', { state: s, claim: null }, null, NOW)).toBe(true);
    const read = (await table.loadMany(['target#db-3'])).get('target#db-3')?.state;
    expect(read?.counters).toEqual({
      totalAccesses: null,
      uptimeSeconds: null,
      sslRetrieveHits: 1,
      sslRetrieveMisses: 0,
    });
    expect(read?.alerts['fp-d']?.value).toBeNull();
  });

  it('meta items: unconditional, or conditional on their version', async () => {
    expect(await table.putMeta('m', { a: 1 })).toBe(true);
    expect(await table.getMeta('m')).toEqual({ value: { a: 1 }, version: 1 });
    expect(await table.putMeta('m', { a: 2 }, null)).toBe(false);
    expect(await table.putMeta('m', { a: 2 }, 1)).toBe(true);
    await table.deleteMeta('m');
    expect(await table.getMeta('m')).toBeNull();
  });
});

describe('dynamoStateStore meta items with an expiry', () => {
  it('stores the expiry as the TTL attribute, in epoch seconds, and reads the item back as any meta item', async () => {
    const table = createDynamoStateTable(dynamo.doc, 'state');
    const expiresAt = new Date('2026-11-23T12:00:00.900Z');
    expect(await table.putMeta('done-1', { a: 1 }, null, { expiresAt })).toBe(true);
    expect(await table.putMeta('done-1', { a: 2 }, null, { expiresAt })).toBe(false);
    const raw = await dynamo.doc.send(new GetCommand({ TableName: 'state', Key: { pk: 'meta#done-1' } }));
    expect(raw.Item?.expiresAt).toBe(Math.floor(expiresAt.getTime() / 1000));
    expect(await table.getMeta('done-1')).toEqual({ value: { a: 1 }, version: 1 });
  });
});

describe('dynamoStateStore reads', () => {
  it('reads a target item of the earlier layout as state without alerts, replaceable at its version', async () => {
    const table = createDynamoStateTable(dynamo.doc, 'state');
    await dynamo.doc.send(
      new PutCommand({
        TableName: 'state',
        Item: {
          pk: 'target#old-1',
          evaluatedAt: NOW.toISOString(),
          consecutiveFailures: 1,
          counters: null,
          fingerprints: ['fp'],
          version: 7,
        },
      }),
    );
    const loaded = (await table.loadMany(['target#old-1'])).get('target#old-1');
    expect(loaded).toEqual({
      version: 7,
      state: { target: 'old-1', evaluatedAt: NOW.toISOString(), consecutiveFailures: 1, counters: null, alerts: {} },
      claim: null,
    });
    expect(await table.put('target#old-1', { state: state('old-1', []), claim: null }, 7, NOW)).toBe(true);
  });

  it('reads 150 targets in batches of 100 keys, one read per target whatever its alerts', async () => {
    const table = createDynamoStateTable(dynamo.doc, 'state');
    for (let i = 0; i < 150; i++) {
      const s = state(`web-${i}`, [alert(`web-${i}`, `fp-${i}-a`), alert(`web-${i}`, `fp-${i}-b`)]);
      expect(await table.put(`target#web-${i}`, { state: s, claim: null }, null, NOW)).toBe(true);
    }
    const send = vi.spyOn(dynamo.doc, 'send');
    const keys = [...Array.from({ length: 150 }, (_, i) => `target#web-${i}`), 'target#never-seen'];
    const loaded = await table.loadMany(keys);
    const batches = send.mock.calls.filter(([command]) => command instanceof BatchGetCommand).length;
    send.mockRestore();
    expect(batches).toBe(2); // 151 keys
    expect(loaded.get('target#web-149')).toEqual({
      version: 1,
      state: state('web-149', [alert('web-149', 'fp-149-a'), alert('web-149', 'fp-149-b')]),
      claim: null,
    });
    expect(loaded.has('target#never-seen')).toBe(false);
  });
});

describe('dynamoStateStore BatchGetItem with keys left unprocessed', () => {
  /** A client whose BatchGetItem leaves every key unprocessed `throttled` times, then answers them all. */
  function throttlingClient(throttled: number) {
    const calls: number[] = [];
    const client = {
      async send(command: BatchGetCommand) {
        const keys = command.input.RequestItems?.state?.Keys ?? [];
        calls.push(keys.length);
        if (calls.length <= throttled)
          return { Responses: { state: [] }, UnprocessedKeys: { state: { Keys: keys, ConsistentRead: true } } };
        return {
          Responses: { state: keys.map((k) => ({ pk: k.pk, version: 1, state: state(String(k.pk).slice(7), []) })) },
        };
      },
    };
    return { client: client as unknown as DynamoDBDocumentClient, calls };
  }

  it.each<[string, number, number[]]>([
    ['answered at once', 0, []],
    ['throttled twice: two waits, growing bounds', 2, [25, 50]],
    ['throttled five times: five waits, each bound twice the last', 5, [25, 50, 100, 200, 400]],
  ])('%s', async (_, throttled, waits) => {
    const { client, calls } = throttlingClient(throttled);
    const slept: number[] = [];
    const table = createDynamoStateTable(client, 'state', {
      sleep: async (ms) => void slept.push(ms),
      random: () => 0.5,
    });
    const loaded = await table.loadMany(['target#a', 'target#b']);
    expect([...loaded.keys()]).toEqual(['target#a', 'target#b']);
    expect(calls).toEqual(Array.from({ length: throttled + 1 }, () => 2));
    expect(slept).toEqual(waits);
  });

  it(`fails visibly after ${BATCH_GET_ATTEMPTS} attempts, with how many keys were left`, async () => {
    const { client, calls } = throttlingClient(Number.POSITIVE_INFINITY);
    const table = createDynamoStateTable(client, 'state', { sleep: async () => {}, random: () => 0.99 });
    const read = table.loadMany(['target#a', 'target#b', 'target#c']);
    await expect(read).rejects.toThrow(UnprocessedKeysError);
    await expect(read).rejects.toThrow(
      `expected BatchGetItem to return every key within ${BATCH_GET_ATTEMPTS} attempts, found 3 still unprocessed (the table is throttled)`,
    );
    expect(calls).toHaveLength(BATCH_GET_ATTEMPTS);
  });
});
