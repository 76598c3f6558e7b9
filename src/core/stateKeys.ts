/**
 * Every item key of the state table, in one table (docs/lambda.md, "State table", points here).
 * `StateTable.put`/`loadMany` take the whole key; `getMeta`/`putMeta`/`deleteMeta` take the part
 * after `meta#` (the adapter adds the prefix), so the `meta` column is what those calls name.
 * In core, as the table of emitted metrics is: a contract the monitor's app, the PagerDuty
 * forwarder and the DynamoDB adapters all name keys through, so no adapter reaches into an app.
 */
import { groupId } from './alerts/group.ts';

/** The DynamoDB partition key of a `meta` key: what the adapters store. */
const META_PREFIX = 'meta#';

const STATE_KEYS = {
  /** One target's state: counters, failures, every alert record, the claim in flight. */
  target: (name: string) => `target#${name}`,
  /** The configuration alert's state, an item like a target's. */
  configAlert: 'config#alert',
  /**
   * The discovery alert of one discovery parameter (its name), an item like a target's. The list
   * in force itself is in the stored configuration (`RawConfig.discovered`, chunked with it).
   */
  discoveryAlert: (name: string) => `discovery#${name}`,
  /** meta: the pointer to the last valid configuration (hash, chunks, removals owed, generation). */
  lastValidConfig: 'last-valid-config',
  /** meta: one chunk of a stored configuration, named per save. */
  configChunk: (chunksId: string, index: number) => `config#${chunksId}#${index}`,
  /** meta: one alert group (members, newest page, claim in flight); a continuation (1, 2, ...) its own item. */
  group: (key: string, continuation = 0) => `group#${groupId(key, continuation)}`,
  /** meta: the open groups, group item key -> group key. */
  openGroups: 'groups',
  /**
   * meta: one shard of one dispatch checked to the end (its tick, the dispatch's run, its index;
   * TTL): a late redelivery of it is a duplicate to acknowledge, not a failure to dead-letter.
   */
  shardDone: (scheduledAt: string, runId: string, index: number) => `shard-done#${scheduledAt}#${runId}#${index}`,
  // The PagerDuty forwarder's items (whole keys; its role may touch only keys starting `pagerduty-`).
  /** The last `order` PagerDuty accepted for a dedup_key, and that page's accepted parts (TTL). */
  pagerDutyOrder: (dedupKey: string) => `pagerduty-order#${dedupKey}`,
  /** Per-alert mode: the alerts of a group (`group-<id>`) holding an incident of their own (TTL). */
  pagerDutyOwn: (groupKey: string) => `pagerduty-own#${groupKey}`,
  /** Per-alert mode: the firing alerts the parts of a group's newest page listed, so far (TTL). */
  pagerDutyPage: (groupKey: string) => `pagerduty-page#${groupKey}`,
  /** Events sent to one routing key (its id, never the key) in one pacing window (TTL). */
  pagerDutyPace: (keyId: string, windowStartMs: number) => `pagerduty-pace#${keyId}#${windowStartMs}`,
  /** A missing or refused routing key was already reported (TTL). */
  pagerDutyKeyProblem: (keyId: string) => `pagerduty-key#${keyId}`,
} as const;

export { META_PREFIX, STATE_KEYS };
