/**
 * What the PagerDuty forwarder remembers, in the monitor's state table (partition key `pk`, TTL
 * attribute `expiresAt`), shared by every container of the forwarder:
 * - `pagerduty-order#<dedup_key>`: the newest `order` attempted (written before each send) or
 *   accepted for that key (or a resolve dropped because nothing was open, which ends the key's
 *   incident all the same), the parts of that page accepted (parts of one grouped page share its
 *   order), its action (trigger or resolve) and `open`: PagerDuty may hold an open incident for
 *   the key (a trigger attempted, no resolve accepted since), and the routing key it was opened
 *   with (`keyId`, the start of its SHA-256, and `keyVersion`, the SSM parameter version). An
 *   open record has no expiry (`expiresAt` removed): it lives as long as the incident; once
 *   closed it expires 14 days after its last write;
 * - `pagerduty-own#<group-<id>>`: per-alert mode, the alerts of a group holding an incident of
 *   their own (a string set, at most the bound; taken and freed by conditional writes);
 * - `pagerduty-pace#<key id>#<window start>`: events sent in one pacing window for one routing key;
 * - `pagerduty-key#<key id>`: a refused or missing routing key was already reported.
 * The routing key itself is never stored: `<key id>` is the start of its SHA-256.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { PAGERDUTY_KEY_PROBLEM_TTL_SECONDS, PAGERDUTY_ORDER_TTL_SECONDS } from '../core/constants.ts';
import { PAGERDUTY_ACTIONS } from '../core/pagerduty/events.ts';
import type { KnownOrder } from '../core/pagerduty/forwardDecision.ts';
import { STATE_KEYS } from '../core/stateKeys.ts';
import type { PagerDutyLedger } from '../forwarder/ports.ts';
import { conditional } from './dynamoConditional.ts';

const epochSeconds = (ms: number) => Math.floor(ms / 1000);
/** When a `pagerduty-order` record written at `nowMs` expires. */
const expiryOf = (nowMs: number) => epochSeconds(nowMs) + PAGERDUTY_ORDER_TTL_SECONDS;

/**
 * @example
 * const ledger = createDynamoPagerDutyLedger(DynamoDBDocumentClient.from(new DynamoDBClient({})), process.env.STATE_TABLE);
 * await ledger.known('group-5f1c...'); // { order: 1764000000000, parts: [1], action: 'trigger', open: true }
 */
function createDynamoPagerDutyLedger(doc: DynamoDBDocumentClient, tableName: string): PagerDutyLedger {
  const orderKey = STATE_KEYS.pagerDutyOrder;
  /** One conditional update of a key's order record; false when its condition failed. */
  const updateOrder = (
    dedupKey: string,
    input: Pick<
      UpdateCommandInput,
      'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
    >,
  ) =>
    conditional(() => doc.send(new UpdateCommand({ TableName: tableName, Key: { pk: orderKey(dedupKey) }, ...input })));
  return {
    async known(dedupKey) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: tableName, Key: { pk: orderKey(dedupKey) }, ConsistentRead: true }),
      );
      if (Item === undefined || typeof Item.order !== 'number') return null;
      const parts = Item.parts instanceof Set ? [...(Item.parts as Set<number>)] : [];
      const action = Object.values(PAGERDUTY_ACTIONS).find((a) => a === Item.action) ?? null;
      // Records written before `open` was: open unless their last word was a resolve.
      const open = typeof Item.open === 'boolean' ? Item.open : action !== PAGERDUTY_ACTIONS.resolve;
      const known: KnownOrder = { order: Item.order, parts: parts.sort((a, b) => a - b), action, open };
      if (typeof Item.keyId === 'string')
        known.opener = { keyId: Item.keyId, version: typeof Item.keyVersion === 'number' ? Item.keyVersion : null };
      return known;
    },

    async recordAttempt(dedupKey, order, _nowMs, action, opener) {
      const trigger = action === PAGERDUTY_ACTIONS.trigger;
      const names: Record<string, string> = { '#order': 'order', '#action': 'action', '#open': 'open' };
      // A resolve leaves `open` as it was (the trigger's incident is open until the resolve is
      // accepted); sent only while open, so a record from before `open` was is open.
      const open = trigger ? ':true' : 'if_not_exists(#open, :true)';
      const values: Record<string, unknown> = { ':order': order, ':action': action, ':true': true };
      let set = `SET #order = :order, #action = :action, #open = ${open}`;
      if (trigger && opener !== undefined) {
        set += ', keyId = :keyId, keyVersion = :keyVersion';
        values[':keyId'] = opener.keyId;
        values[':keyVersion'] = opener.version;
      }
      // Why no expiry while open: the incident lasts as long as it lasts (a silenced group, an
      // alert that never repeats), and its resolve must still find it; a resolve sets it again.
      const remove = trigger ? ['expiresAt'] : [];
      const update = (more: string[]) =>
        `${set}${[...remove, ...more].length > 0 ? ` REMOVE ${[...remove, ...more].join(', ')}` : ''}`;
      // A newer order starts with no part accepted; the same order keeps its parts.
      const newer = await updateOrder(dedupKey, {
        UpdateExpression: update(['parts']),
        ConditionExpression: 'attribute_not_exists(pk) OR #order < :order',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      });
      if (newer) return true;
      return updateOrder(dedupKey, {
        UpdateExpression: update([]),
        ConditionExpression: '#order = :order',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      });
    },

    recordAccepted(dedupKey, order, part, nowMs, action) {
      const closes = action === PAGERDUTY_ACTIONS.resolve;
      // Closed: the record expires 14 days on; still open: it does not expire.
      return updateOrder(dedupKey, {
        UpdateExpression: closes
          ? 'ADD parts :part SET expiresAt = :expiresAt, #open = :false'
          : 'ADD parts :part REMOVE expiresAt',
        ConditionExpression: '#order = :order',
        ExpressionAttributeNames: { '#order': 'order', ...(closes ? { '#open': 'open' } : {}) },
        ExpressionAttributeValues: {
          ':order': order,
          ':part': new Set([part]),
          ...(closes ? { ':false': false, ':expiresAt': expiryOf(nowMs) } : {}),
        },
      });
    },

    async recordClosed(dedupKey, order, part, nowMs) {
      const names = { '#order': 'order', '#action': 'action', '#open': 'open' };
      // Why conditional on nothing open: a trigger attempted since the decision must get its resolve.
      const closed = '(#open = :false OR (attribute_not_exists(#open) AND #action = :resolve))';
      const resolve = PAGERDUTY_ACTIONS.resolve;
      const newer = await conditional(() =>
        doc.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              pk: orderKey(dedupKey),
              order,
              parts: new Set([part]),
              action: resolve,
              open: false,
              expiresAt: expiryOf(nowMs),
            },
            ConditionExpression: `attribute_not_exists(pk) OR (#order < :order AND ${closed})`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':order': order, ':false': false, ':resolve': resolve },
          }),
        ),
      );
      if (newer) return true;
      return updateOrder(dedupKey, {
        UpdateExpression: 'ADD parts :part SET expiresAt = :expiresAt',
        ConditionExpression: `#order = :order AND ${closed}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ':order': order,
          ':part': new Set([part]),
          ':expiresAt': expiryOf(nowMs),
          ':false': false,
          ':resolve': resolve,
        },
      });
    },

    async ownIncidents(groupKey) {
      const { Item } = await doc.send(
        new GetCommand({ TableName: tableName, Key: { pk: STATE_KEYS.pagerDutyOwn(groupKey) }, ConsistentRead: true }),
      );
      return Item?.members instanceof Set ? new Set([...(Item.members as Set<string>)]) : new Set();
    },

    claimOwnIncident(groupKey, fingerprint, bound, nowMs) {
      return conditional(() =>
        doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: STATE_KEYS.pagerDutyOwn(groupKey) },
            UpdateExpression: 'ADD members :fp SET expiresAt = :expiresAt',
            // Why the bound is checked in the write: containers forwarding parts of one page claim at once.
            ConditionExpression:
              'attribute_not_exists(members) OR size(members) < :bound OR contains(members, :fpText)',
            ExpressionAttributeValues: {
              ':fp': new Set([fingerprint]),
              ':fpText': fingerprint,
              ':bound': bound,
              ':expiresAt': expiryOf(nowMs),
            },
          }),
        ),
      );
    },

    async notePageFiring(groupKey, pageOrder, entries, nowMs) {
      const Key = { pk: STATE_KEYS.pagerDutyPage(groupKey) };
      const names = { '#order': 'order' };
      const values = { ':order': pageOrder, ':expiresAt': expiryOf(nowMs) };
      const listed = (item: Record<string, unknown> | undefined) =>
        item?.entries instanceof Set ? [...(item.entries as Set<string>)].sort() : [];
      let after: Record<string, unknown> | undefined;
      const write = (input: Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression'>, more = {}) =>
        conditional(async () => {
          ({ Attributes: after } = await doc.send(
            new UpdateCommand({
              TableName: tableName,
              Key,
              ...input,
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: { ...values, ...more },
              ReturnValues: 'ALL_NEW',
            }),
          ));
        });
      // DynamoDB keeps no empty set: a part listing no firing alert only starts its page.
      const add = entries.length === 0 ? {} : { ':entries': new Set(entries) };
      const newer = await write(
        {
          UpdateExpression: `SET #order = :order, expiresAt = :expiresAt${entries.length === 0 ? ' REMOVE entries' : ', entries = :entries'}`,
          ConditionExpression: 'attribute_not_exists(pk) OR #order < :order',
        },
        add,
      );
      if (newer) return listed(after);
      const same = await write(
        {
          UpdateExpression: `SET expiresAt = :expiresAt${entries.length === 0 ? '' : ' ADD entries :entries'}`,
          ConditionExpression: '#order = :order',
        },
        add,
      );
      return same ? listed(after) : null;
    },

    async freeOwnIncident(groupKey, fingerprint) {
      // Conditional: an update would otherwise create an item without its TTL when there is none.
      await conditional(() =>
        doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: STATE_KEYS.pagerDutyOwn(groupKey) },
            UpdateExpression: 'DELETE members :fp',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':fp': new Set([fingerprint]) },
          }),
        ),
      );
    },

    takeSlot(keyId, windowStartMs, limit, windowMs) {
      return conditional(() =>
        doc.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: STATE_KEYS.pagerDutyPace(keyId, windowStartMs) },
            UpdateExpression: 'ADD sent :one SET expiresAt = :expiresAt',
            ConditionExpression: 'attribute_not_exists(sent) OR sent < :limit',
            ExpressionAttributeValues: {
              ':one': 1,
              ':limit': limit,
              ':expiresAt': epochSeconds(windowStartMs + windowMs) + 3_600,
            },
          }),
        ),
      );
    },

    noteKeyProblem(keyId, nowMs) {
      return conditional(() =>
        doc.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              pk: STATE_KEYS.pagerDutyKeyProblem(keyId),
              notedAt: new Date(nowMs).toISOString(),
              expiresAt: epochSeconds(nowMs) + PAGERDUTY_KEY_PROBLEM_TTL_SECONDS,
            },
            // DynamoDB deletes expired items late: an expired one counts as gone.
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
            ExpressionAttributeValues: { ':now': epochSeconds(nowMs) },
          }),
        ),
      );
    },
  };
}

export { createDynamoPagerDutyLedger };
