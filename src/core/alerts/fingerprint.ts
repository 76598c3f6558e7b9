/**
 * An alert's identity: a stable hash of target and rule (the dedup key of pages and threads).
 */
import { createHash } from 'node:crypto';

/** 16 hex characters of SHA-256 over target and rule; the same pair always gives the same key. */
function fingerprint(target: string, rule: string): string {
  return createHash('sha256').update(`${target}\u0000${rule}`).digest('hex').slice(0, 16);
}

export { fingerprint };
