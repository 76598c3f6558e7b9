/**
 * The last valid configuration in the state table, for cold starts and for finding removed
 * targets: gzipped JSON in base64 chunks (`meta#config#<hash>#<n>`, under DynamoDB's 400 KB item
 * limit whatever the fleet) behind a pointer item (`meta#last-valid-config`). Credentials in
 * target URLs are redacted before storing: no state item holds a secret.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { RawConfig } from './core/monitorConfig.ts';
import { redactCredentials } from './core/notify/sanitize.ts';
import type { StateTable } from './ports.ts';

const LAST_VALID_KEY = 'last-valid-config';
/** Base64 characters per chunk item: well under DynamoDB's 400 KB. */
const CHUNK_CHARS = 300_000;

interface LastValidPointer {
  hash: string;
  chunks: number;
  savedAt: string;
  /** Targets gone from the configuration whose resolves or deletion have not finished yet. */
  removing: string[];
}

const chunkKey = (hash: string, index: number) => `config#${hash}#${index}`;

/** The raw configuration with credentials in target URLs hidden: what may be stored. */
function redacted(raw: RawConfig): RawConfig {
  const targets: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw.targets)) targets[name] = redactCredentials(value);
  return { targets, rules: raw.rules, silences: raw.silences };
}

async function readStoredConfig(
  table: StateTable,
): Promise<{ pointer: LastValidPointer; raw: RawConfig | null } | null> {
  const item = await table.getMeta(LAST_VALID_KEY);
  if (item === null) return null;
  const value = item.value as Partial<LastValidPointer> & { raw?: RawConfig };
  const pointer: LastValidPointer = {
    hash: String(value.hash ?? ''),
    chunks: value.chunks ?? 0,
    savedAt: value.savedAt ?? '',
    removing: value.removing ?? [],
  };
  // The earlier single-item layout (unredacted): an empty hash makes the next valid run rewrite it.
  if (value.raw !== undefined) return { pointer: { ...pointer, hash: '' }, raw: redacted(value.raw) };
  const parts: string[] = [];
  for (let i = 0; i < pointer.chunks; i++) {
    const chunk = await table.getMeta(chunkKey(pointer.hash, i));
    if (chunk === null) return { pointer, raw: null }; // a torn save; the next valid run writes it whole
    parts.push(String(chunk.value.data));
  }
  try {
    return {
      pointer,
      raw: JSON.parse(gunzipSync(Buffer.from(parts.join(''), 'base64')).toString('utf8')) as RawConfig,
    };
  } catch {
    return { pointer, raw: null };
  }
}

/** Chunks first, then the pointer, then the previous chunks: a crash leaves the old configuration whole. */
async function saveStoredConfig(
  table: StateTable,
  raw: RawConfig,
  hash: string,
  removing: string[],
  now: Date,
  old?: LastValidPointer,
) {
  const data = gzipSync(JSON.stringify(redacted(raw))).toString('base64');
  const chunks = Math.max(1, Math.ceil(data.length / CHUNK_CHARS));
  for (let i = 0; i < chunks; i++)
    await table.putMeta(chunkKey(hash, i), { data: data.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS) });
  const pointer: LastValidPointer = { hash, chunks, savedAt: now.toISOString(), removing };
  await table.putMeta(LAST_VALID_KEY, { ...pointer });
  if (old !== undefined && old.hash !== hash)
    for (let i = 0; i < old.chunks; i++) await table.deleteMeta(chunkKey(old.hash, i));
  return chunks + 1;
}

export type { LastValidPointer };
export { LAST_VALID_KEY, readStoredConfig, saveStoredConfig };
