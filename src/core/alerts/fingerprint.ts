/**
 * An alert's identity: a stable hash of target and rule (the dedup key of pages and threads).
 */
import { createHash } from 'node:crypto';

/**
 * Fingerprints taken so far, by target and then rule: a warm container takes the same ones for
 * every target and rule every minute, and a SHA-256 each (eleven a target under the default rules)
 * cost more than the rest of a steady target's rules. Keyed by the two names as they are (their
 * hashes kept by the engine), not by a pair string built and hashed at each call. Cleared at
 * `MAX_TARGETS` targets (a target's rules at `MAX_RULES`), so a churning fleet cannot grow it.
 */
const known = new Map<string, Map<string, string>>();
const MAX_TARGETS = 10_000;
const MAX_RULES = 1_000;

/** 16 hex characters of SHA-256 over target and rule; the same pair always gives the same key. */
function fingerprint(target: string, rule: string): string {
  let byRule = known.get(target);
  if (byRule === undefined) {
    if (known.size >= MAX_TARGETS) known.clear();
    byRule = new Map();
    known.set(target, byRule);
  }
  let id = byRule.get(rule);
  if (id === undefined) {
    id = createHash('sha256').update(`${target}\u0000${rule}`).digest('hex').slice(0, 16);
    if (byRule.size >= MAX_RULES) byRule.clear();
    byRule.set(rule, id);
  }
  return id;
}

export { fingerprint };
