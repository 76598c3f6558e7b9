/**
 * A rules document that leaves only its own rules: rules documents add to the built-in rules, so
 * a test that follows one rule's alerts switches every built-in off by name.
 */
import { DEFAULT_RULES } from '../../src/core/rules/document.ts';

function onlyTheseRules(rules: ReadonlyArray<Record<string, unknown>>): string {
  const off = DEFAULT_RULES.map((rule) => ({ name: rule.name, enabled: false }));
  return JSON.stringify({ rules: [...rules, ...off] });
}

export { onlyTheseRules };
