/**
 * The values the docs' tables quote are the code's: a row `| \`DEFAULT_X\` | 16 |` must match the
 * exported constant, and a row naming an environment variable must name one of the environment
 * contract, with its default and range where it quotes them. A renamed or changed constant fails
 * here until the doc says the same. Figures quoted in prose are checked too: the model test's
 * sequence counts and a claimed page's byte caps exactly, the Lambda bundle's sizes (built as the
 * stack builds it) within a tolerance.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { dollars, monthlyCost, PRICES } from '../../bench/e2e/costModel.ts';
import { costTable, FLEETS, type MeasuredUsage, USAGE_FILE, usageAt } from '../../bench/e2e/fleetUsage.ts';
import {
  BUNDLE_ALIASES,
  BUNDLE_BANNER,
  BUNDLE_MAIN_FIELDS,
  BUNDLE_MINIFY,
  BUNDLE_TARGET,
  HANDLER_ENTRY,
  SHARDED_HANDLER_ENTRY,
} from '../../infra/constructs/monitorFunction.ts';
import * as HTTP_DEFAULTS from '../../src/adapters/httpDefaults.ts';
import { MAX_STORED_MESSAGE_BYTES, MAX_STORED_PAYLOAD_BYTES } from '../../src/app/accounting/targetItems.ts';
import * as CONSTANTS from '../../src/core/constants.ts';
import { SHARD_BUDGET } from '../../src/core/sqsLimits.ts';
import { FORWARDER_ENVIRONMENT, MONITOR_ENVIRONMENT } from '../../src/lambda/environmentContract.ts';
import { modelRuns } from '../support/modelRuns.ts';

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

describe('docs/scale.md: the shard budgets as the code keeps them', () => {
  it('quotes the message and batch budgets of SHARD_BUDGET', () => {
    const scale = readFileSync(join(ROOT, 'docs/scale.md'), 'utf8').replaceAll(/\s+/g, ' ');
    expect(scale).toContain(`${SHARD_BUDGET.messageBytes / 1024} KiB of JSON a message`);
    expect(scale).toContain(`closed at ${SHARD_BUDGET.batchEntries} entries or ${SHARD_BUDGET.batchBytes / 1024} KiB`);
  });
});

describe('the cost tables: the model’s bill of the counted month', () => {
  // bench/e2e/usage.ts counted the month (runs spaced by the schedule); the tables must be what
  // the model makes of those counts at the prices it holds, to the cent.
  const measured = JSON.parse(readFileSync(USAGE_FILE, 'utf8')) as MeasuredUsage;

  it('docs/scale.md prints the whole table, every line of it', () => {
    expect(readFileSync(join(ROOT, 'docs/scale.md'), 'utf8')).toContain(costTable(measured));
  });

  it('the README quotes the four totals', () => {
    const totals = FLEETS.map((n) => `**${dollars(monthlyCost(usageAt(n, measured)).total)}**`).join(' | ');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`| **total** | ${totals} |`);
  });

  it('both give the date of the prices', () => {
    expect(prose('docs/scale.md')).toContain(`list prices of ${PRICES.asOf}`);
    expect(prose('README.md')).toContain(`list prices of ${PRICES.asOf}`);
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

/** A page's text with every run of white space one space, so a quoted phrase may wrap. */
function prose(page: string): string {
  return readFileSync(join(ROOT, page), 'utf8').replace(/\s+/g, ' ');
}

/** A figure as the docs write it: `300`, `20,000`. */
const figure = (n: number): string => n.toLocaleString('en-US');

describe('figures quoted in prose: the model test’s sequence counts, a claimed page’s caps', () => {
  const soakScript = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { soak: string } })
    .scripts.soak;
  const soakDefault = /SOAK_SEQUENCES:-(\d+)/.exec(soakScript)?.[1];
  const ci = modelRuns({});
  const soak = modelRuns({ SOAK_SEQUENCES: soakDefault });
  const text = figure(MAX_STORED_MESSAGE_BYTES);
  const payload = figure(MAX_STORED_PAYLOAD_BYTES);

  it('reads the soak script’s default', () => {
    expect(soakDefault).toMatch(/^\d+$/);
  });

  it.each([
    {
      page: 'README.md',
      phrase: `(${figure(ci.memory)} on the in-memory table and ${figure(ci.dynalite)} on dynalite in \`npm test\` and CI;`,
    },
    {
      page: 'README.md',
      phrase: `\`npm run soak\` runs ${figure(soak.memory)} on the in-memory table and ${figure(soak.dynalite)} on dynalite`,
    },
    {
      page: 'docs/lambda.md',
      phrase: `${figure(ci.memory)} sequences on an in-memory table with DynamoDB's conditional semantics and ${figure(ci.dynalite)} on dynalite in \`npm test\` and CI, ${figure(soak.memory)} and ${figure(soak.dynalite)} with \`npm run soak\``,
    },
    { page: 'docs/lambda.md', phrase: `(text capped at ${text} bytes of UTF-8, payload at ${payload} bytes)` },
    { page: 'docs/lambda.md', phrase: `within ${text} bytes and its payload within ${payload} bytes (UTF-8,` },
  ])('$page quotes: $phrase', ({ page, phrase }) => {
    const said = prose(page).includes(phrase) ? [] : [`${page} does not say: ${phrase}`];
    expect(said).toEqual([]);
  });
});

/** How far a quoted bundle figure may be from the measured one before the doc counts as stale. */
const SIZE_TOLERANCE = 0.05;

/** What is wrong with a size quoted in KB (1,000 bytes) against measured bytes; null when within the tolerance. */
function sizeProblem(what: string, quotedKb: number, bytes: number, tolerance = SIZE_TOLERANCE): string | null {
  const measuredKb = bytes / 1000;
  if (Math.abs(quotedKb - measuredKb) <= measuredKb * tolerance) return null;
  return `${what}: the doc says ${quotedKb} KB, the bundle measures ${Math.round(measuredKb)} KB (${bytes} bytes)`;
}

describe('sizeProblem: a stale bundle size fails', () => {
  it.each([
    { quotedKb: 570, bytes: 570_241, problem: null },
    { quotedKb: 545, bytes: 570_241, problem: null },
    {
      quotedKb: 517,
      bytes: 570_241,
      problem: 'bundle: the doc says 517 KB, the bundle measures 570 KB (570241 bytes)',
    },
  ])('$quotedKb KB against $bytes bytes', ({ quotedKb, bytes, problem }) => {
    expect(sizeProblem('bundle', quotedKb, bytes)).toBe(problem);
  });
});

describe('bundle sizes quoted in the README and docs/scale.md', () => {
  /** The stack's esbuild settings (infra/constructs/monitorFunction.ts), built in memory with a metafile. */
  const bundleOf = async (entry: string) => {
    const options: BuildOptions = {
      bundle: true,
      platform: 'node',
      target: BUNDLE_TARGET,
      format: 'esm',
      minify: BUNDLE_MINIFY,
      mainFields: BUNDLE_MAIN_FIELDS,
      alias: BUNDLE_ALIASES,
      banner: { js: BUNDLE_BANNER },
      absWorkingDir: ROOT,
      entryPoints: [entry],
      outfile: 'index.mjs',
      write: false,
      metafile: true,
      logLevel: 'error',
    };
    const result = await build(options);
    const [file] = result.outputFiles ?? [];
    const [output] = Object.values(result.metafile?.outputs ?? {});
    if (file === undefined || output === undefined)
      throw new Error(`expected one esbuild output for ${entry}, found none`);
    const bytesOf = (owner: RegExp) =>
      Object.entries(output.inputs)
        .filter(([input]) => owner.test(input))
        .reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
    return {
      bytes: file.contents.length,
      gzipBytes: gzipSync(file.contents).length,
      ourBytes: bytesOf(/^src\//),
      sdkBytes: bytesOf(/node_modules\/@(aws-sdk|smithy|aws)\/|node_modules\/(mnemonist|obliterator)\//),
    };
  };

  it('the README quotes the bundle, gzipped, our code and the AWS SDK, and scale.md what SQS adds', async () => {
    const [main, sharded] = await Promise.all([bundleOf(HANDLER_ENTRY), bundleOf(SHARDED_HANDLER_ENTRY)]);
    const readme = /The bundle is (\d+) KB \((\d+) KB gzipped; our code (\d+) KB of it, the AWS SDK (\d+) KB,/.exec(
      prose('README.md'),
    );
    const sqs = /The SQS client \(`@aws-sdk\/client-sqs`\) adds about (\d+) KB/.exec(prose('docs/scale.md'));
    expect([readme === null, sqs === null]).toEqual([false, false]);
    const [bundle, gzipped, ours, sdk] = (readme ?? []).slice(1).map(Number) as [number, number, number, number];
    expect(
      [
        sizeProblem('README bundle', bundle, main.bytes),
        sizeProblem('README gzipped', gzipped, main.gzipBytes),
        sizeProblem('README our code', ours, main.ourBytes),
        sizeProblem('README AWS SDK', sdk, main.sdkBytes),
        // A difference of two bundles: a tenth either way, a few KB.
        sizeProblem('scale.md SQS client', Number(sqs?.[1]), sharded.bytes - main.bytes, 0.1),
      ].filter((problem) => problem !== null),
    ).toEqual([]);
  });
});
