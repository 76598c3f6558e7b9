/**
 * Alert state in DynamoDB: one item per alert fingerprint (`alert#<fp>`) and one per target
 * (`target#<name>`: counters, failures, which fingerprints it has), each with a `version` for
 * conditional writes. No transactions: every write stands alone and is guarded by its condition.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AlertRecord, TargetState } from '../core/alerts/types.ts';

const DAY_SECONDS = 86_400;
/** Items outlive their last write by this long; resolved alerts go sooner. */
const TARGET_TTL_SECONDS = 30 * DAY_SECONDS;
const RESOLVED_TTL_SECONDS = 7 * DAY_SECONDS;
const BATCH_GET_MAX = 100;

interface LoadedState {
  state: TargetState | null;
  targetVersion: number | null;
  /** Version of each alert item read, by fingerprint. */
  alertVersions: Record<string, number>;
}

interface StateTable {
  /** The stored state of each target (batched reads); a target never seen has `state: null`. */
  loadMany(targets: readonly string[]): Promise<Map<string, LoadedState>>;
  /** Claim the right to publish for `fingerprint`; the claimed version, or null when another run holds or advanced it. */
  claimAlert(
    fingerprint: string,
    expectedVersion: number | null,
    token: string,
    now: Date,
    leaseMs: number,
  ): Promise<number | null>;
  putAlert(record: AlertRecord, expectedVersion: number | null, now: Date, claimToken?: string): Promise<boolean>;
  deleteAlert(fingerprint: string, expectedVersion: number): Promise<boolean>;
  putTarget(state: TargetState, expectedVersion: number | null, now: Date): Promise<boolean>;
  getMeta(key: string): Promise<{ value: Record<string, unknown>; version: number } | null>;
  /** Write a `meta#` item; with `expectedVersion` only if it is still at that version (null: absent). */
  putMeta(key: string, value: Record<string, unknown>, expectedVersion?: number | null): Promise<boolean>;
}

const epoch = (now: Date, plusSeconds: number) => Math.floor(now.getTime() / 1000) + plusSeconds;

/** A failed condition is an answer (another run got there first), not an error. */
async function conditional(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (
      error instanceof ConditionalCheckFailedException ||
      (error as Error).name === 'ConditionalCheckFailedException'
    ) {
      return false;
    }
    throw error;
  }
}

function versionCondition(expected: number | null): { ConditionExpression: string; values: Record<string, unknown> } {
  return expected === null
    ? { ConditionExpression: 'attribute_not_exists(pk)', values: {} }
    : { ConditionExpression: 'version = :expected', values: { ':expected': expected } };
}

/** DynamoDB rejects an empty `ExpressionAttributeValues`: send none instead. */
function attributeValues(values: Record<string, unknown>): Record<string, unknown> | undefined {
  return Object.keys(values).length === 0 ? undefined : values;
}

/**
 * @example
 * const table = createDynamoStateTable(DynamoDBDocumentClient.from(new DynamoDBClient({})), 'alerts');
 */
function createDynamoStateTable(client: DynamoDBDocumentClient, tableName: string): StateTable {
  /** Items by key, 100 keys a call, following UnprocessedKeys; consistent reads. */
  async function batchGet(wanted: string[]): Promise<Map<string, Record<string, unknown>>> {
    const keys = [...new Set(wanted)]; // BatchGetItem rejects a request that repeats a key
    const items = new Map<string, Record<string, unknown>>();
    for (let i = 0; i < keys.length; i += BATCH_GET_MAX) {
      type Request = Record<string, { Keys: Array<Record<string, unknown>>; ConsistentRead: boolean }>;
      let request: Request | undefined = {
        [tableName]: { Keys: keys.slice(i, i + BATCH_GET_MAX).map((pk) => ({ pk })), ConsistentRead: true },
      };
      while (request !== undefined && Object.keys(request).length > 0) {
        const out = await client.send(new BatchGetCommand({ RequestItems: request }));
        for (const item of out.Responses?.[tableName] ?? []) items.set(item.pk as string, item);
        request = out.UnprocessedKeys as Request | undefined;
      }
    }
    return items;
  }

  return {
    async loadMany(targets) {
      const heads = await batchGet(targets.map((t) => `target#${t}`));
      const fingerprints = [...heads.values()].flatMap((item) => (item.fingerprints as string[] | undefined) ?? []);
      const alertItems = await batchGet(fingerprints.map((fp) => `alert#${fp}`));
      const loaded = new Map<string, LoadedState>();
      for (const target of targets) {
        const item = heads.get(`target#${target}`);
        if (item === undefined) {
          loaded.set(target, { state: null, targetVersion: null, alertVersions: {} });
          continue;
        }
        const alerts: Record<string, AlertRecord> = {};
        const alertVersions: Record<string, number> = {};
        for (const fp of (item.fingerprints as string[] | undefined) ?? []) {
          const alertItem = alertItems.get(`alert#${fp}`);
          if (alertItem === undefined) continue; // expired by TTL or deleted
          alerts[fp] = alertItem.record as AlertRecord;
          alertVersions[fp] = alertItem.version as number;
        }
        const state: TargetState = {
          target,
          evaluatedAt: (item.evaluatedAt as string | null) ?? null,
          consecutiveFailures: (item.consecutiveFailures as number | undefined) ?? 0,
          counters: (item.counters as TargetState['counters']) ?? null,
          alerts,
        };
        loaded.set(target, { state, targetVersion: item.version as number, alertVersions });
      }
      return loaded;
    },

    async claimAlert(fingerprint, expectedVersion, token, now, leaseMs) {
      const { ConditionExpression, values } = versionCondition(expectedVersion);
      const next = (expectedVersion ?? 0) + 1;
      const ok = await conditional(() =>
        client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: `alert#${fingerprint}` },
            UpdateExpression: 'SET claimToken = :token, claimExpires = :expires, version = :next, expiresAt = :ttl',
            ConditionExpression: `${ConditionExpression} AND (attribute_not_exists(claimToken) OR claimExpires < :now)`,
            ExpressionAttributeValues: {
              ':token': token,
              ':expires': now.getTime() + leaseMs,
              ':now': now.getTime(),
              ':next': next,
              ':ttl': epoch(now, TARGET_TTL_SECONDS),
              ...values,
            },
          }),
        ),
      );
      return ok ? next : null;
    },

    async putAlert(record, expectedVersion, now, claimToken) {
      const { ConditionExpression, values } = versionCondition(expectedVersion);
      const claim = claimToken === undefined ? '' : ' AND claimToken = :token';
      const ttl = record.state === 'inactive' ? RESOLVED_TTL_SECONDS : TARGET_TTL_SECONDS;
      return conditional(() =>
        client.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              pk: `alert#${record.fingerprint}`,
              record,
              version: (expectedVersion ?? 0) + 1,
              expiresAt: epoch(now, ttl),
            },
            ConditionExpression: `${ConditionExpression}${claim}`,
            ExpressionAttributeValues: attributeValues(
              claimToken === undefined ? values : { ...values, ':token': claimToken },
            ),
          }),
        ),
      );
    },

    async deleteAlert(fingerprint, expectedVersion) {
      return conditional(() =>
        client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: { pk: `alert#${fingerprint}` },
            ConditionExpression: 'version = :expected AND attribute_not_exists(claimToken)',
            ExpressionAttributeValues: { ':expected': expectedVersion },
          }),
        ),
      );
    },

    async putTarget(state, expectedVersion, now) {
      const { ConditionExpression, values } = versionCondition(expectedVersion);
      return conditional(() =>
        client.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              pk: `target#${state.target}`,
              evaluatedAt: state.evaluatedAt,
              consecutiveFailures: state.consecutiveFailures,
              counters: state.counters,
              fingerprints: Object.keys(state.alerts),
              version: (expectedVersion ?? 0) + 1,
              expiresAt: epoch(now, TARGET_TTL_SECONDS),
            },
            ConditionExpression,
            ExpressionAttributeValues: attributeValues(values),
          }),
        ),
      );
    },

    async getMeta(key) {
      const out = await client.send(
        new GetCommand({ TableName: tableName, Key: { pk: `meta#${key}` }, ConsistentRead: true }),
      );
      if (out.Item === undefined) return null;
      return {
        value: out.Item.value as Record<string, unknown>,
        version: (out.Item.version as number | undefined) ?? 0,
      };
    },

    async putMeta(key, value, expectedVersion) {
      const { ConditionExpression, values } = versionCondition(expectedVersion ?? null);
      return conditional(() =>
        client.send(
          new PutCommand({
            TableName: tableName,
            Item: { pk: `meta#${key}`, value, version: (expectedVersion ?? 0) + 1 },
            ...(expectedVersion === undefined
              ? {}
              : { ConditionExpression, ExpressionAttributeValues: attributeValues(values) }),
          }),
        ),
      );
    },
  };
}

export type { LoadedState, StateTable };
export { createDynamoStateTable };
