/**
 * The state table in DynamoDB (partition key `pk` only; every key in `core/stateKeys.ts`). One item per target, `target#<name>`,
 * holds its counters, failures, every alert record and the claim in flight, so one read finds
 * every alert of a target and none can be orphaned; `meta#<key>` items hold the configuration
 * alert and the last valid configuration. Every write is conditional on the item's `version`;
 * no transactions. Numbers that are not finite are stored as null: DynamoDB cannot hold them.
 */
import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Claim, StateTable, StoredState } from '../app/ports.ts';
import { META_PREFIX } from '../core/stateKeys.ts';
import { conditional } from './dynamoConditional.ts';
import { finiteOnly } from './finiteOnly.ts';

const DAY_SECONDS = 86_400;
/** An item outlives its last write by this long: a target gone from every configuration fades away. */
const ITEM_TTL_SECONDS = 30 * DAY_SECONDS;
const BATCH_GET_MAX = 100;
/** BatchGetItem calls for one batch before the read fails (DynamoDB left keys unprocessed each time). */
const BATCH_GET_ATTEMPTS = 6;
/** Full-jitter backoff between them: a random wait up to base * 2^(attempt - 1), capped. */
const BATCH_GET_BACKOFF_BASE_MS = 50;
const BATCH_GET_BACKOFF_CAP_MS = 2000;

/** DynamoDB kept leaving keys unprocessed (throttling): the read fails visibly rather than loop. */
class UnprocessedKeysError extends Error {
  constructor(unprocessed: number, attempts: number) {
    super(
      `expected BatchGetItem to return every key within ${attempts} attempts, found ${unprocessed} still unprocessed (the table is throttled)`,
    );
    this.name = 'UnprocessedKeysError';
  }
}

interface DynamoStateTableOptions {
  /** Waits between BatchGetItem attempts (tests pass a recorder). */
  sleep?(ms: number): Promise<void>;
  /** In [0, 1): the jitter. */
  random?(): number;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The wait before attempt `attempt + 1` (full jitter, AWS's recommendation for contended retries). */
function backoffMs(attempt: number, random: () => number): number {
  return Math.floor(random() * Math.min(BATCH_GET_BACKOFF_CAP_MS, BATCH_GET_BACKOFF_BASE_MS * 2 ** (attempt - 1)));
}

const epoch = (now: Date, plusSeconds: number) => Math.floor(now.getTime() / 1000) + plusSeconds;

function versionCondition(expected: number | null): {
  ConditionExpression: string;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  return expected === null
    ? { ConditionExpression: 'attribute_not_exists(pk)' }
    : { ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': expected } };
}

function toStored(item: Record<string, unknown>): StoredState {
  const state = item.state as StoredState['state'] | undefined;
  if (state !== undefined && state !== null) {
    const stored: StoredState = {
      version: item.version as number,
      state,
      claim: (item.claim as Claim | undefined) ?? null,
    };
    if (typeof item.generation === 'string') stored.generation = item.generation;
    return stored;
  }
  // A `target#` item of the earlier layout (alerts in `alert#` items): its counters and failures
  // carry over and its version lets the next write replace it; its alerts start afresh.
  const target = String(item.pk).slice(String(item.pk).indexOf('#') + 1);
  return {
    version: (item.version as number | undefined) ?? 0,
    state: {
      target,
      evaluatedAt: (item.evaluatedAt as string | null | undefined) ?? null,
      consecutiveFailures: (item.consecutiveFailures as number | undefined) ?? 0,
      counters: (item.counters as StoredState['state']['counters'] | undefined) ?? null,
      alerts: {},
    },
    claim: null,
  };
}

/**
 * @example
 * const table = createDynamoStateTable(DynamoDBDocumentClient.from(new DynamoDBClient({})), 'alerts');
 */
function createDynamoStateTable(
  client: DynamoDBDocumentClient,
  tableName: string,
  options: DynamoStateTableOptions = {},
): StateTable {
  const sleep = options.sleep ?? sleepFor;
  const random = options.random ?? Math.random;
  return {
    async loadMany(wanted) {
      const keys = [...new Set(wanted)]; // BatchGetItem rejects a request that repeats a key
      const items = new Map<string, StoredState>();
      for (let i = 0; i < keys.length; i += BATCH_GET_MAX) {
        type Request = Record<string, { Keys: Array<Record<string, unknown>>; ConsistentRead: boolean }>;
        let request: Request | undefined = {
          [tableName]: { Keys: keys.slice(i, i + BATCH_GET_MAX).map((pk) => ({ pk })), ConsistentRead: true },
        };
        for (let attempt = 1; request !== undefined && Object.keys(request).length > 0; attempt++) {
          if (attempt > BATCH_GET_ATTEMPTS)
            throw new UnprocessedKeysError(request[tableName]?.Keys.length ?? 0, BATCH_GET_ATTEMPTS);
          if (attempt > 1) await sleep(backoffMs(attempt - 1, random));
          const out = await client.send(new BatchGetCommand({ RequestItems: request }));
          for (const item of out.Responses?.[tableName] ?? []) items.set(item.pk as string, toStored(item));
          request = out.UnprocessedKeys as Request | undefined;
        }
      }
      return items;
    },

    async put(key, { state, claim, generation }, expectedVersion, now) {
      return conditional(() =>
        client.send(
          new PutCommand({
            TableName: tableName,
            Item: finiteOnly({
              pk: key,
              state,
              ...(claim === null ? {} : { claim }),
              ...(generation === undefined ? {} : { generation }),
              version: (expectedVersion ?? 0) + 1,
              expiresAt: epoch(now, ITEM_TTL_SECONDS),
            }),
            ...versionCondition(expectedVersion),
          }),
        ),
      );
    },

    async remove(key, expectedVersion) {
      return conditional(() =>
        client.send(
          new DeleteCommand({ TableName: tableName, Key: { pk: key }, ...versionCondition(expectedVersion) }),
        ),
      );
    },

    async getMeta(key) {
      const out = await client.send(
        new GetCommand({ TableName: tableName, Key: { pk: `${META_PREFIX}${key}` }, ConsistentRead: true }),
      );
      if (out.Item === undefined) return null;
      return {
        value: out.Item.value as Record<string, unknown>,
        version: (out.Item.version as number | undefined) ?? 0,
      };
    },

    async putMeta(key, value, expectedVersion, options) {
      const expiresAt = options?.expiresAt;
      return conditional(() =>
        client.send(
          new PutCommand({
            TableName: tableName,
            Item: finiteOnly({
              pk: `${META_PREFIX}${key}`,
              value,
              version: (expectedVersion ?? 0) + 1,
              ...(expiresAt === undefined ? {} : { expiresAt: epoch(expiresAt, 0) }),
            }),
            ...(expectedVersion === undefined ? {} : versionCondition(expectedVersion)),
          }),
        ),
      );
    },

    async deleteMeta(key, expectedVersion) {
      return conditional(() =>
        client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: { pk: `${META_PREFIX}${key}` },
            ...(expectedVersion === undefined ? {} : versionCondition(expectedVersion)),
          }),
        ),
      );
    },
  };
}

export type { DynamoStateTableOptions };
export { BATCH_GET_ATTEMPTS, createDynamoStateTable, UnprocessedKeysError };
