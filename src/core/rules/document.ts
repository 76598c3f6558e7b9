/**
 * Rules documents: several JSON documents (SSM parameters or files) merged into one rule list,
 * then over the built-in rules (merge.ts). An invalid set is rejected whole, with every problem listed.
 */

import { didYouMean } from '../nearest.ts';
import { DEFAULT_RULES, toRule } from './defaultRules.ts';
import { DEFAULT_RULES_DOCUMENT } from './defaults.ts';
import { compare } from './evaluate.ts';
import { mergeRules, type RulesDocuments } from './merge.ts';
import { metricSpec } from './metrics.ts';
import { DocumentsValidationError, issuesToProblems, itemLabel, readDocument } from './problems.ts';
import {
  DOCUMENT_DEFAULT_FIELDS,
  type DocumentDefaults,
  disabledRuleSchema,
  documentDefaultsSchema,
  RULE_FIELDS,
  ruleSchema,
} from './schema.ts';
import { OPS, type Op, type Rule, type ValidationProblem } from './types.ts';

/** The rules documents are invalid; `problems` lists every problem, each with source, rule and field. */
class RulesValidationError extends DocumentsValidationError {
  constructor(problems: ValidationProblem[], options?: ErrorOptions) {
    super('rules', problems, options);
    this.name = 'RulesValidationError';
  }
}

/** Unique names across documents, and `minSamples` only where the metric has samples. */
function crossCheck(source: string, label: string, raw: unknown, seen: Map<string, string>): ValidationProblem[] {
  if (raw === null || typeof raw !== 'object') return [];
  const { name, metric, minSamples, op, threshold, clearThreshold } = raw as Record<string, unknown>;
  const out: ValidationProblem[] = [];
  if (typeof name === 'string') {
    const first = seen.get(name);
    if (first === undefined) seen.set(name, source);
    else
      out.push({ source, rule: label, field: 'name', message: `expected a unique name, found it already in ${first}` });
  }
  const spec = typeof metric === 'string' ? metricSpec(metric) : undefined;
  if (minSamples !== undefined && spec !== undefined && !spec.samples) {
    out.push({
      source,
      rule: label,
      field: 'minSamples',
      message: `expected only on a ratio metric with samples, found it on ${spec.name}`,
    });
  }
  const clear = clearThresholdProblem(op, threshold, clearThreshold);
  if (clear !== null) out.push({ source, rule: label, field: 'clearThreshold', message: clear });
  return out;
}

/**
 * `clearThreshold` must lie where the condition does not hold (its clearing side), on an ordering
 * `op`: between the two numbers the alert keeps its state, so the other way round it could never
 * resolve. Null when there is nothing to say (or the schema already reports the fields).
 */
function clearThresholdProblem(op: unknown, threshold: unknown, clear: unknown): string | null {
  if (typeof clear !== 'number' || !Number.isFinite(clear)) return null;
  if (op === '==' || op === '!=') return `expected clearThreshold only with op < <= > >=, found it with op ${op}`;
  if (typeof threshold !== 'number' || !Number.isFinite(threshold) || !OPS.includes(op as Op)) return null;
  if (!compare(op as Op, clear, threshold)) return null;
  const side = op === '<' ? '>=' : op === '<=' ? '>' : op === '>' ? '<=' : '<';
  return `expected a number on the clearing side of threshold ${threshold} (${side} ${threshold} for op ${op}), found ${clear}`;
}

/** The document's defaults for its rules (`groupBy`, `groupInterval` beside `rules`), problems recorded. */
function readDefaults(source: string, doc: Record<string, unknown>, problems: ValidationProblem[]): DocumentDefaults {
  const parsed = documentDefaultsSchema.safeParse(doc);
  if (parsed.success) return parsed.data;
  problems.push(...issuesToProblems(source, null, doc, parsed.error.issues, DOCUMENT_DEFAULT_FIELDS));
  return {};
}

const BUILT_IN_NAMES = DEFAULT_RULES.map((rule) => rule.name);

/** A rule switched off must name a built-in one: any other name switches nothing off (a typo). */
function disabledProblem(source: string, label: string, name: string): ValidationProblem | null {
  if (BUILT_IN_NAMES.includes(name)) return null;
  const message = `expected "enabled": false only on a built-in rule (${BUILT_IN_NAMES.join(', ')}), found "${name}"${didYouMean(name, BUILT_IN_NAMES)}`;
  return { source, rule: label, field: 'enabled', message };
}

/**
 * Validates rules documents (`{ "rules": [...] }` each, optionally with `groupBy` and
 * `groupInterval`, the defaults of that document's rules): their rules, and the built-in rules
 * they switch off (`"enabled": false`, where the name alone is enough). Names must be unique
 * across all documents.
 *
 * @throws RulesValidationError listing every problem of every document
 * @example
 * readRulesDocuments([{ source: 'a', text: '{"rules":[{"name":"ssl-cache-misses","enabled":false}]}' }])
 * // { rules: [], disabled: ['ssl-cache-misses'] }
 */
function readRulesDocuments(docs: ReadonlyArray<{ source: string; text: string }>): RulesDocuments {
  const problems: ValidationProblem[] = [];
  const rules: Rule[] = [];
  const disabled: string[] = [];
  const seen = new Map<string, string>();
  for (const { source, text } of docs) {
    const read = readDocument(source, text, 'rules', problems, DOCUMENT_DEFAULT_FIELDS);
    if (read === null) continue;
    const defaults = readDefaults(source, read.doc, problems);
    read.items?.forEach((raw, index) => {
      const label = itemLabel(raw, index, 'name');
      // Checks across fields and documents run on the raw rule too, so one pass lists every problem.
      const crossProblems = crossCheck(source, label, raw, seen);
      const off = raw !== null && typeof raw === 'object' && (raw as { enabled?: unknown }).enabled === false;
      if (off) {
        const parsed = disabledRuleSchema.safeParse(raw);
        if (!parsed.success) problems.push(...issuesToProblems(source, label, raw, parsed.error.issues, RULE_FIELDS));
        const unknown = parsed.success ? disabledProblem(source, label, parsed.data.name) : null;
        if (unknown !== null) crossProblems.push(unknown);
        problems.push(...crossProblems);
        if (parsed.success && crossProblems.length === 0) disabled.push(parsed.data.name);
        return;
      }
      const parsed = ruleSchema.safeParse(raw);
      if (!parsed.success) problems.push(...issuesToProblems(source, label, raw, parsed.error.issues, RULE_FIELDS));
      problems.push(...crossProblems);
      if (parsed.success && crossProblems.length === 0) rules.push(toRule(parsed.data, defaults));
    });
  }
  if (problems.length > 0) throw new RulesValidationError(problems);
  return { rules, disabled };
}

/**
 * The documents' own rules, switched-off ones left out (what `--no-default-rules` evaluates).
 *
 * @throws RulesValidationError listing every problem of every document
 * @example
 * parseRulesDocuments([{ source: '/alerts/rules/base', text: '{"rules":[]}' }]) // []
 */
function parseRulesDocuments(docs: ReadonlyArray<{ source: string; text: string }>): Rule[] {
  return readRulesDocuments(docs).rules;
}

/**
 * The rules evaluated: the documents merged over `base` by name (the built-in rules unless told).
 *
 * @throws RulesValidationError listing every problem of every document
 * @example
 * rulesFromDocuments([{ source: 'a', text: '{"rules":[]}' }]) // DEFAULT_RULES, unchanged
 */
function rulesFromDocuments(
  docs: ReadonlyArray<{ source: string; text: string }>,
  base: readonly Rule[] = DEFAULT_RULES,
): Rule[] {
  return mergeRules(base, readRulesDocuments(docs));
}

export {
  DEFAULT_RULES,
  DEFAULT_RULES_DOCUMENT,
  parseRulesDocuments,
  RulesValidationError,
  readRulesDocuments,
  rulesFromDocuments,
};
