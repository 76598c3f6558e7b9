/**
 * The last valid configuration in the state table, for cold starts and for finding removed
 * targets: gzipped JSON in base64 chunks (`meta#config#<hash>.<version>#<n>`, under DynamoDB's 400 KB
 * item limit whatever the fleet) behind a pointer item (`meta#last-valid-config`). Credentials in
 * target URLs are redacted before storing: no state item holds a secret.
 */
import { randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { RawConfig } from '../../core/monitorConfig.ts';
import { STATE_KEYS } from '../../core/stateKeys.ts';
import { redactCredentials } from '../../core/text/sanitize.ts';
import type { StateTable } from '../ports.ts';

const LAST_VALID_KEY = STATE_KEYS.lastValidConfig;
/** Base64 characters per chunk item: well under DynamoDB's 400 KB. */
const CHUNK_CHARS = 300_000;

interface LastValidPointer {
  hash: string;
  /**
   * Names this save's chunks: the hash and the pointer version the save wrote. Unique per save,
   * so deleting a replaced save's chunks never touches a later save of the same configuration.
   * (Pointers stored before it was kept name their chunks by the hash alone.)
   */
  chunksId: string;
  chunks: number;
  savedAt: string;
  /** Targets gone from the configuration whose resolves or deletion have not finished yet. */
  removing: string[];
  /**
   * Discovery parameters gone from the configuration whose discovery alert has not been resolved
   * and its item deleted yet. Kept here, with the configuration that dropped them, because the
   * next run's configuration no longer names them: nothing else would remember the alert owed.
   * Empty on pointers stored before it was kept.
   */
  retiringDiscovery: string[];
  /**
   * Random, new at every write of the pointer: a container whose applied configuration carries
   * another generation knows the table moved on (a hash can come back; a generation never does).
   * Empty on pointers stored before it was kept.
   */
  generation: string;
}

const chunkKey = STATE_KEYS.configChunk;

/** The raw configuration with credentials in target URLs hidden: what may be stored. */
function redacted(raw: RawConfig): RawConfig {
  const targets: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw.targets)) targets[name] = redactCredentials(value);
  // Discovered targets are kept as rendered: their URLs come from templates, which refuse credentials.
  return { ...raw, targets };
}

/** The pointer as stored, with the version a conditional write of it must name. */
interface StoredConfig {
  pointer: LastValidPointer;
  /** Null when its chunks are unreadable (the earlier layout is converted, not null). */
  raw: RawConfig | null;
  version: number;
}

/** Times the pointer is read again when its chunks went (another run saved a newer one). */
const MAX_READS = 4;

function pointerOf(value: Partial<LastValidPointer>): LastValidPointer {
  return {
    hash: String(value.hash ?? ''),
    chunksId: String(value.chunksId ?? value.hash ?? ''),
    chunks: value.chunks ?? 0,
    savedAt: value.savedAt ?? '',
    removing: value.removing ?? [],
    retiringDiscovery: value.retiringDiscovery ?? [],
    generation: String(value.generation ?? ''),
  };
}

/** The generation of the configuration the table says was applied last (null: none stored yet). */
async function readConfigGeneration(table: StateTable): Promise<string | null> {
  const item = await table.getMeta(LAST_VALID_KEY);
  return item === null ? null : pointerOf(item.value as Partial<LastValidPointer>).generation;
}

/**
 * The last valid configuration, or null if none was stored. A chunk missing means another run
 * replaced the pointer and deleted the chunks after this run read it: the pointer is read again
 * (reading it as "no targets before" would forget which targets were removed).
 */
async function readStoredConfig(table: StateTable): Promise<StoredConfig | null> {
  for (let read = 1; ; read++) {
    const item = await table.getMeta(LAST_VALID_KEY);
    if (item === null) return null;
    const value = item.value as Partial<LastValidPointer> & { raw?: RawConfig };
    const pointer = pointerOf(value);
    // The earlier single-item layout (unredacted): an empty hash makes the next valid run rewrite it.
    if (value.raw !== undefined)
      return { pointer: { ...pointer, hash: '' }, raw: redacted(value.raw), version: item.version };
    const parts: string[] = [];
    for (let i = 0; i < pointer.chunks; i++) {
      const chunk = await table.getMeta(chunkKey(pointer.chunksId, i));
      if (chunk === null) break;
      parts.push(String(chunk.value.data));
    }
    if (parts.length < pointer.chunks) {
      const now = await table.getMeta(LAST_VALID_KEY);
      if (now !== null && now.version !== item.version && read < MAX_READS) continue;
      return { pointer, raw: null, version: now?.version ?? item.version }; // torn; the next valid run writes it whole
    }
    try {
      const raw = JSON.parse(gunzipSync(Buffer.from(parts.join(''), 'base64')).toString('utf8')) as RawConfig;
      return { pointer, raw, version: item.version };
    } catch {
      return { pointer, raw: null, version: item.version };
    }
  }
}

/**
 * Store `raw` as the last valid configuration, with the removals and discovery alerts it owes, if
 * the pointer is still at `stored`'s version (absent when `stored` is null): chunks first, then
 * the pointer, then the previous chunks, so a crash leaves the old configuration whole. Answers
 * the writes made and the pointer written; null when it was not (another run moved it on: the
 * caller reads it again).
 */
async function saveStoredConfig(
  table: StateTable,
  raw: RawConfig,
  hash: string,
  removing: string[],
  now: Date,
  stored: StoredConfig | null,
  retiringDiscovery: string[] = [],
): Promise<{ writes: number; saved: LastValidPointer | null }> {
  const data = gzipSync(JSON.stringify(redacted(raw))).toString('base64');
  const chunks = Math.max(1, Math.ceil(data.length / CHUNK_CHARS));
  // Why the version: two runs that both win a save of one hash (one after the other) must not
  // share chunks, or the first deleting its replaced chunks could take the second's. Two runs
  // racing for one version with one hash write the same bytes; with two hashes, different keys.
  const chunksId = `${hash}.${(stored?.version ?? 0) + 1}`;
  for (let i = 0; i < chunks; i++)
    await table.putMeta(chunkKey(chunksId, i), { data: data.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS) });
  const pointer: LastValidPointer = {
    hash,
    chunksId,
    chunks,
    savedAt: now.toISOString(),
    removing,
    retiringDiscovery,
    generation: randomUUID(),
  };
  // Why conditional: two runs applying at once must not overwrite each other's `removing`.
  if (!(await table.putMeta(LAST_VALID_KEY, { ...pointer }, stored?.version ?? null)))
    return { writes: chunks + 1, saved: null };
  const old = stored?.pointer;
  let writes = chunks + 1;
  if (old !== undefined && old.chunksId !== '')
    for (let i = 0; i < old.chunks; i++, writes++) await table.deleteMeta(chunkKey(old.chunksId, i));
  return { writes, saved: pointer };
}

/**
 * Record which removals (and deleted discovery parameters' alerts) are still owed, if the pointer
 * is still at `stored`'s version: the pointer written, or null.
 */
async function saveRemoving(
  table: StateTable,
  stored: StoredConfig,
  removing: string[],
  retiringDiscovery: string[] = stored.pointer.retiringDiscovery,
): Promise<LastValidPointer | null> {
  const pointer: LastValidPointer = { ...stored.pointer, removing, retiringDiscovery, generation: randomUUID() };
  return (await table.putMeta(LAST_VALID_KEY, { ...pointer }, stored.version)) ? pointer : null;
}

/**
 * Record that only `retiringDiscovery` is still owed, if the pointer is still at `stored`'s
 * version: the pointer written, or null. The generation stays: the configuration and its removals
 * are as they were, so no container needs to read them again; the list only ever shrinks here.
 */
async function saveRetiringDiscovery(
  table: StateTable,
  stored: StoredConfig,
  retiringDiscovery: string[],
): Promise<LastValidPointer | null> {
  const pointer: LastValidPointer = { ...stored.pointer, retiringDiscovery };
  return (await table.putMeta(LAST_VALID_KEY, { ...pointer }, stored.version)) ? pointer : null;
}

export type { LastValidPointer, StoredConfig };
export {
  LAST_VALID_KEY,
  readConfigGeneration,
  readStoredConfig,
  saveRemoving,
  saveRetiringDiscovery,
  saveStoredConfig,
};
