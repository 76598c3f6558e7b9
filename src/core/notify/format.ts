/**
 * Numbers and templates as people read them in pages.
 */
import { cleanConfigText } from '../text/sanitize.ts';

/** Integers as they are, fractions to at most 3 decimals (`0.031`), null as `n/a`. */
function formatValue(value: number | null): string {
  if (value === null) return 'n/a';
  if (Number.isInteger(value)) return String(value);
  const fixed = value.toFixed(Math.abs(value) >= 100 ? 1 : 3);
  return fixed.replace(/\.?0+$/, '');
}

/** Fills `{{value}}`, `{{threshold}}`, `{{target}}` and `{{rule}}`; unknown placeholders stay as written. */
function fillTemplate(template: string, values: Record<'value' | 'threshold' | 'target' | 'rule', string>): string {
  return cleanConfigText(
    template.replace(/\{\{\s*(value|threshold|target|rule)\s*\}\}/g, (_, key: keyof typeof values) => values[key]),
  );
}

export { fillTemplate, formatValue };
