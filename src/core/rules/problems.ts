/**
 * Shared by the rules and silences documents: JSON reading and zod issues turned into problems
 * that name source, rule and field, with what was expected and what was found.
 */

import type * as z from 'zod/mini';
import { ProblemListError } from '../errors.ts';
import { didYouMean } from '../nearest.ts';
import { RULE_NAME } from './schema.ts';
import type { ValidationProblem } from './types.ts';

/** A short, one-line rendering of a found value (report and config text is never trusted). */
function describeFound(found: unknown): string {
  if (found === undefined) return 'nothing';
  const text = JSON.stringify(found) ?? String(found);
  const clean = text.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 60 ? `${clean.slice(0, 57)}...` : clean;
}

function valueAt(raw: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let at: unknown = raw;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/**
 * zod issues of one item (rule or silence) as problems; `item` names it (its name or `#n`), null
 * for the document's own fields.
 */
function issuesToProblems(
  source: string,
  item: string | null,
  raw: unknown,
  issues: ReadonlyArray<z.core.$ZodIssue>,
  fields: readonly string[],
): ValidationProblem[] {
  return issues.flatMap((issue): ValidationProblem[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        source,
        rule: item,
        field: key,
        message: `unknown field, expected one of ${fields.join(', ')}${didYouMean(key, fields)}`,
      }));
    }
    const field = issue.path.length === 0 ? null : issue.path.map(String).join('.');
    const found = describeFound(valueAt(raw, issue.path));
    return [{ source, rule: item, field, message: `${issue.message}, found ${found}` }];
  });
}

/** What `unknown field` problems of a document say is allowed: `only "rules"`, or the list. */
function expectedKeys(keys: readonly string[]): string {
  return keys.length === 1 ? `expected only "${keys[0]}"` : `expected one of ${keys.join(', ')}`;
}

/**
 * Parses one JSON document `{ "<key>": [ ... ] }`, which may also hold `otherKeys` (validated by
 * the caller), and returns its items with the whole document, or null after recording why the
 * document as a whole cannot be read. Items are null, the problem recorded, when `<key>` is not an
 * array: the other keys can still be checked, so one pass lists every problem.
 */
function readDocument(
  source: string,
  text: string,
  key: string,
  problems: ValidationProblem[],
  otherKeys: readonly string[] = [],
): { items: unknown[] | null; doc: Record<string, unknown> } | null {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    problems.push({ source, rule: null, field: null, message: `expected a JSON document, found invalid JSON: ${why}` });
    return null;
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    problems.push({
      source,
      rule: null,
      field: null,
      message: `expected an object { "${key}": [...] }, found ${describeFound(doc)}`,
    });
    return null;
  }
  const allowed = [key, ...otherKeys];
  const extra = Object.keys(doc).filter((k) => !allowed.includes(k));
  for (const k of extra)
    problems.push({
      source,
      rule: null,
      field: k,
      message: `unknown field, ${expectedKeys(allowed)}${didYouMean(k, allowed)}`,
    });
  const record = doc as Record<string, unknown>;
  const items = record[key];
  if (!Array.isArray(items)) {
    problems.push({ source, rule: null, field: key, message: `expected an array, found ${describeFound(items)}` });
    return { items: null, doc: record };
  }
  return { items, doc: record };
}

/** The items of a document that holds nothing but `{ "<key>": [ ... ] }`; see `readDocument`. */
function readItems(source: string, text: string, key: string, problems: ValidationProblem[]): unknown[] | null {
  return readDocument(source, text, key, problems)?.items ?? null;
}

/** The name an item is known by in problems: its `name` when it is a usable string, else `#n`. */
function itemLabel(raw: unknown, index: number, nameField: string): string {
  const name = valueAt(raw, [nameField]);
  return typeof name === 'string' && RULE_NAME.test(name) ? name : `#${index + 1}`;
}

/** One line per problem: `source: rule "x" field "y": message`. */
function formatProblems(problems: readonly ValidationProblem[]): string {
  return problems
    .map((p) => {
      const where = [p.rule === null ? null : `rule ${p.rule}`, p.field === null ? null : `field ${p.field}`];
      return `${p.source}: ${where.filter((w) => w !== null).join(' ')}${p.rule === null && p.field === null ? '' : ': '}${p.message}`;
    })
    .join('\n');
}

/**
 * A set of documents (`what`: rules, silences) is invalid; `problems` lists every problem, each
 * with source, rule and field. Subclasses name the kind of document.
 */
class DocumentsValidationError extends ProblemListError<ValidationProblem> {
  constructor(what: string, problems: ValidationProblem[], options?: ErrorOptions) {
    super(
      `expected valid ${what} documents, found ${problems.length} problem(s):\n${formatProblems(problems)}`,
      problems,
      options,
    );
  }
}

export { DocumentsValidationError, issuesToProblems, itemLabel, readDocument, readItems };
