/**
 * The values the docs' tables quote are the code's: a row `| \`DEFAULT_X\` | 16 |` must match the
 * exported constant, and a row naming an environment variable must name one of the environment
 * contract, with its default and range where it quotes them. A renamed or changed constant fails
 * here until the doc says the same.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as HTTP_DEFAULTS from '../../src/adapters/httpDefaults.ts';
import * as CONSTANTS from '../../src/core/constants.ts';
import { FORWARDER_ENVIRONMENT, MONITOR_ENVIRONMENT } from '../../src/lambda/environmentContract.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'bench/README.md',
  'bench/e2e/README.md',
].filter((page) => existsSync(join(ROOT, page)));

/** Every constant a doc may quote, by name. */
const CONSTANT_VALUES: Readonly<Record<string, unknown>> = { ...CONSTANTS, ...HTTP_DEFAULTS };

/** What a doc may quote about an environment variable: its default and range when it has them. */
interface VariableFacts {
  name: string;
  default?: unknown;
  min?: number;
  max?: number;
}

/** Every environment variable of the contract, by name. */
const VARIABLES: ReadonlyMap<string, VariableFacts> = new Map(
  [...Object.values(MONITOR_ENVIRONMENT), ...Object.values(FORWARDER_ENVIRONMENT)].map((v): [string, VariableFacts] => [
    v.name,
    v,
  ]),
);

/** One table row whose first cell is a name in backquotes: the name and the next cell's text. */
interface QuotedRow {
  line: number;
  name: string;
  value: string;
}

function quotedRows(markdown: string): QuotedRow[] {
  const rows: QuotedRow[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, index) => {
    if (text.trimStart().startsWith('```')) fenced = !fenced;
    if (fenced || !text.startsWith('|')) return;
    const cells = text.split('|').map((cell) => cell.trim());
    const first = cells[1] ?? '';
    if (!/^`[A-Z][A-Z0-9_]+`$/.test(first)) return;
    rows.push({ line: index + 1, name: first.slice(1, -1), value: cells[2] ?? '' });
  });
  return rows;
}

const UNITS: Readonly<Record<string, number>> = { KiB: 1024, MiB: 1024 * 1024 };

/** The value a cell quotes: `16`, `5000`, `4 MiB`, `` `text` ``; null when it quotes none. */
function quotedValue(cell: string): unknown {
  const code = /^`([^`]*)`$/.exec(cell);
  const text = code === null ? cell : (code[1] as string);
  const sized = /^(\d+) (KiB|MiB)$/.exec(text);
  if (sized !== null) return Number(sized[1]) * (UNITS[sized[2] as string] as number);
  if (/^\d+$/.test(text)) return Number(text);
  return code === null ? null : text;
}

/** What is wrong with one quoted row; empty when it says what the code says. */
function rowProblems(page: string, row: QuotedRow): string[] {
  const where = `${page}:${row.line} ${row.name}`;
  if (row.name in CONSTANT_VALUES) {
    const quoted = quotedValue(row.value);
    const actual = CONSTANT_VALUES[row.name];
    return quoted === actual ? [] : [`${where}: the doc says ${row.value}, the code ${JSON.stringify(actual)}`];
  }
  const variable = VARIABLES.get(row.name);
  if (variable === undefined) return [`${where}: no such constant or environment variable`];
  const problems: string[] = [];
  const quoted = quotedValue(row.value);
  if (typeof quoted === 'number' && typeof variable.default === 'number' && quoted !== variable.default)
    problems.push(`${where}: the doc says default ${row.value}, the contract ${variable.default}`);
  const range = /(\d+)-(\d+)/.exec(row.value);
  if (range !== null && (Number(range[1]) !== variable.min || Number(range[2]) !== variable.max))
    problems.push(`${where}: the doc says ${range[0]}, the contract ${variable.min}-${variable.max}`);
  return problems;
}

describe('constants and variables quoted in the README and docs', () => {
  it.each(PAGES)('%s: every quoted value is the code’s', (page) => {
    const rows = quotedRows(readFileSync(join(ROOT, page), 'utf8'));
    expect(rows.flatMap((row) => rowProblems(page, row))).toEqual([]);
  });

  it('the docs quote the fetch defaults and the environment (so the check above has rows to check)', () => {
    const names = PAGES.flatMap((page) => quotedRows(readFileSync(join(ROOT, page), 'utf8')).map((r) => r.name));
    expect(names).toEqual(
      expect.arrayContaining([
        'DEFAULT_FETCH_CONCURRENCY',
        'DEFAULT_MAX_BYTES',
        'FETCH_CONCURRENCY',
        'TARGETS_PER_SHARD',
      ]),
    );
  });
});

describe('rowProblems: a doc quoting a wrong value fails', () => {
  const row = (name: string, value: string): QuotedRow => ({ line: 7, name, value });

  it.each([
    { name: 'DEFAULT_FETCH_CONCURRENCY', value: '16', problems: [] },
    { name: 'DEFAULT_MAX_BYTES', value: '4 MiB', problems: [] },
    { name: 'USER_AGENT', value: '`httpd-status-alerts/0.1`', problems: [] },
    {
      name: 'DEFAULT_FETCH_CONCURRENCY',
      value: '8',
      problems: ['doc.md:7 DEFAULT_FETCH_CONCURRENCY: the doc says 8, the code 16'],
    },
    {
      name: 'DEFAULT_MAX_BYTES',
      value: '2 MiB',
      problems: ['doc.md:7 DEFAULT_MAX_BYTES: the doc says 2 MiB, the code 4194304'],
    },
    { name: 'DEFAULT_GONE', value: '1', problems: ['doc.md:7 DEFAULT_GONE: no such constant or environment variable'] },
  ])('constant $name quoted as $value', ({ name, value, problems }) => {
    expect(rowProblems('doc.md', row(name, value))).toEqual(problems);
  });

  it.each([
    { name: 'FETCH_CONCURRENCY', value: '`16`', problems: [] },
    { name: 'TARGETS_PER_SHARD', value: 'integer 10-1000', problems: [] },
    {
      name: 'CONFIG_MAX_AGE_SECONDS',
      value: '`60`',
      problems: ['doc.md:7 CONFIG_MAX_AGE_SECONDS: the doc says default `60`, the contract 270'],
    },
    {
      name: 'TARGETS_PER_SHARD',
      value: 'integer 1-500',
      problems: ['doc.md:7 TARGETS_PER_SHARD: the doc says 1-500, the contract 10-1000'],
    },
    {
      name: 'SHARDS_DISPATCHED',
      value: '`0`',
      problems: ['doc.md:7 SHARDS_DISPATCHED: no such constant or environment variable'],
    },
  ])('variable $name quoted as $value', ({ name, value, problems }) => {
    expect(rowProblems('doc.md', row(name, value))).toEqual(problems);
  });

  it('reads rows outside code fences only', () => {
    const sample = '| `A_B` | 1 | x |\n```\n| `C_D` | 2 |\n```\n| name | `E` |\n| `E_F` | `g` |';
    expect(quotedRows(sample)).toEqual([
      { line: 1, name: 'A_B', value: '1' },
      { line: 6, name: 'E_F', value: '`g`' },
    ]);
  });
});
