/**
 * The rules seeded into `<prefix>/rules/defaults`: the CLI's built-in document, so that the CLI
 * and AWS start from the same rules. The raw document is seeded, not the parsed `DEFAULT_RULES`
 * (whose `forMs`/`keepFiringForMs` fields are not valid document fields).
 */
import { DEFAULT_RULES_DOCUMENT } from '../src/core/rules/document.ts';

/** The parameter value: one rules document, the same shape as a local rules file. */
function defaultRulesDocument(): string {
  return JSON.stringify(DEFAULT_RULES_DOCUMENT);
}

export { defaultRulesDocument };
