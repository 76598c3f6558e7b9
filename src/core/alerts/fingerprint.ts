/**
 * An alert's identity: a stable hash of target and rule (the dedup key of pages and threads).
 */
import { createHash } from 'node:crypto';

/**
 * Fingerprints taken so far: a warm container takes the same ones for every target and rule every
 * minute, and a SHA-256 each (eleven a target under the default rules) cost more than the rest of
 * a steady target's rules. Cleared when it holds `MAX_KNOWN`, so a churning fleet cannot grow it.
 */
const known = new Map<string, string>();
const MAX_KNOWN = 100_000;

/** 16 hex characters of SHA-256 over target and rule; the same pair always gives the same key. */
function fingerprint(target: string, rule: string): string {
  const pair = `${target}\u0000${rule}`;
  let id = known.get(pair);
  if (id === undefined) {
    id = createHash('sha256').update(pair).digest('hex').slice(0, 16);
    if (known.size >= MAX_KNOWN) known.clear();
    known.set(pair, id);
  }
  return id;
}

export { fingerprint };
