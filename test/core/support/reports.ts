/**
 * Parsed real reports for the rule tests: the expected parser output of the Apache 2.4.71 captures,
 * used as StatusReport inputs (the parsers are tested on their own).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { StatusReport } from '../../../src/core/report/types.ts';

const ROOT = fileURLToPath(new URL('../../fixtures/apache-2.4.71/', import.meta.url));

/** `name` like `prefork-busy/report.html`; reads `<name>.expected.json`. */
function loadReport(name: string): StatusReport {
  const parsed = JSON.parse(readFileSync(`${ROOT}${name}.expected.json`, 'utf8')) as Omit<StatusReport, 'legend'>;
  return { legend: null, ...parsed };
}

export { loadReport };
