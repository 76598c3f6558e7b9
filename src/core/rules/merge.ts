/**
 * Rules documents add to a base rule list (the built-in rules, or none): by rule name, a document's
 * rule replaces the base rule of that name in its place, a rule switched off (`"enabled": false`)
 * leaves, and the documents' other rules follow in their order. One custom rule must not silently
 * switch every built-in off: that would hide a saturated server.
 */
import type { Rule } from './types.ts';

/** What validated rules documents say: their rules, and the names they switch off. */
interface RulesDocuments {
  rules: Rule[];
  /** Names of rules given with `"enabled": false`. */
  disabled: string[];
}

/**
 * The rules evaluated: `base` overlaid by the documents.
 *
 * @example
 * mergeRules(DEFAULT_RULES, { rules: [closingAt30], disabled: ['ssl-cache-misses'] })
 * // the built-ins with closing-pileup replaced in place and ssl-cache-misses gone
 */
function mergeRules(base: readonly Rule[], documents: RulesDocuments): Rule[] {
  const own = new Map(documents.rules.map((rule) => [rule.name, rule]));
  const off = new Set(documents.disabled);
  const baseNames = new Set(base.map((rule) => rule.name));
  const merged: Rule[] = [];
  for (const rule of base) if (!off.has(rule.name)) merged.push(own.get(rule.name) ?? rule);
  for (const rule of documents.rules) if (!baseNames.has(rule.name)) merged.push(rule);
  return merged;
}

export type { RulesDocuments };
export { mergeRules };
