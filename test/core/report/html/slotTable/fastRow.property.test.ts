/**
 * The fast row reader against the reference (`fastRow.ts`, `referenceRow.ts`): over rows of the
 * real 2.4.71 captures and of generated pages, mutated by inserting, deleting and replacing the
 * characters and tags that matter (signs, entities, tags in numbers, unknown modes, cells, case),
 * the fast reader answers -1 wherever the reference would warn, and elsewhere reads the same
 * cells (ranges and runs), the same M, SS and scoreboard position, and ends the row where the
 * scanner closes it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { positionIn, positionOf } from '../../../../../src/core/report/common.ts';
import { scanHtml, tagId } from '../../../../../src/core/report/html/scanner.ts';
import { type ColumnMap, cellKinds, mapColumns } from '../../../../../src/core/report/html/slotTable/columns.ts';
import {
  asciiWindow,
  PER_CELL,
  PlainRowFigures,
  readPlainRow,
} from '../../../../../src/core/report/html/slotTable/fastRow.ts';
import {
  checkRow,
  RowCells,
  RowNumbers,
  RowVerdict,
} from '../../../../../src/core/report/html/slotTable/referenceRow.ts';
import { generateSlots, modelOf } from '../../../../support/generate.ts';
import { renderHtml } from '../../../../support/generatePages.ts';

const TD = tagId('td');
const TH = tagId('th');
const TR = tagId('tr');
const TABLE = tagId('table');

/** A page's slot table: its columns and its rows, each from just after its `<tr>` to just after its `</tr>`. */
interface Table {
  name: string;
  columns: ColumnMap;
  width: number;
  rows: string[];
}

function tableOf(name: string, page: string): Table {
  const header = page.indexOf('<tr><th>Srv</th>');
  const headerEnd = page.indexOf('</tr>', header);
  const names = [...page.slice(header, headerEnd).matchAll(/<th>([\s\S]*?)<\/th>/g)].map((m) =>
    (m[1] as string).replace(/<[^>]*>/g, '').trim(),
  );
  const columns = mapColumns(names, []) ?? expect.fail(`expected the header of ${name} to map`);
  const rows = page
    .slice(headerEnd + 5, page.indexOf('</table>', headerEnd))
    .split('<tr>')
    .slice(1)
    .map((row) => row.slice(0, row.indexOf('</tr>') + 5));
  return { name, columns, width: names.length, rows };
}

const FIXTURES = new URL('../../../../fixtures/apache-2.4.71/', import.meta.url);
const TABLES: readonly Table[] = [
  ...readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.html') && !f.includes('notable') && !f.startsWith('noextended'))
    .sort()
    .map((f) => tableOf(f, readFileSync(new URL(f, FIXTURES), 'latin1'))),
  ...(['prefork', 'worker', 'event'] as const).map((mpm) =>
    tableOf(`generated ${mpm}`, renderHtml(modelOf(generateSlots(64, mpm), { mpm }))),
  ),
];

/** What a reader makes of one row: where it ends, each cell's [start, end, runs], and the figures. */
interface RowRead {
  end: number;
  cells: number[][];
  mode: number;
  ss: number;
  position: number;
}

/** A cell's range matters only where it holds text (runs > 0). */
const cellOf = (start: number, end: number, runs: number): number[] => (runs === 0 ? [0, 0, 0] : [start, end, runs]);

/** The fast reader on `text` from `from` (just after a `<tr>`), or -1. */
function fastRead(text: string, from: number, table: Table): RowRead | -1 {
  const bytes = asciiWindow(text, 0);
  if (bytes === null) return -1; // outside ASCII the parser does not call it
  const ranges = new Int32Array(table.width * PER_CELL);
  const figures = new PlainRowFigures();
  const end = readPlainRow(text, bytes, 0, from, cellKinds(table.columns, table.width), ranges, 0, figures);
  if (end < 0) return -1;
  const cells = Array.from({ length: table.width }, (_, i) =>
    cellOf(ranges[i * PER_CELL] as number, ranges[i * PER_CELL + 1] as number, ranges[i * PER_CELL + 2] as number),
  );
  return { end, cells, mode: figures.mode, ss: figures.ss, position: figures.position };
}

/**
 * The reference on the same row: the scanner's tokens into `RowCells` as the page builder takes
 * them (cells of `<td>`/`<th>`, text inside an open cell, the row ended by `</tr>`, `<tr>` or a
 * table tag), then `checkRow`. The verdict, and what it read when the row is clean.
 */
function referenceRead(text: string, from: number, table: Table): { verdict: number; read: RowRead } {
  const cells = new RowCells();
  let open = true;
  let cellOpen = false;
  let end = -1;
  const close = (at: number) => {
    if (open) end = at;
    open = false;
  };
  scanHtml(text, {
    onText(start, stop) {
      if (open && cellOpen && start >= from) cells.addRun(text, start, stop);
    },
    onOpenTag(tag, start, stop) {
      if (!open || start < from) return stop;
      if (tag === TD || tag === TH) {
        cells.open(tag === TH);
        cellOpen = true;
      } else if (tag === TR || tag === TABLE) close(-1);
      return stop;
    },
    onCloseTag(tag, start, stop) {
      if (!open || start < from) return;
      if (tag === TD || tag === TH) cellOpen = false;
      else if (tag === TR) close(stop);
      else if (tag === TABLE) close(-1);
    },
  });
  const numbers = new RowNumbers();
  const verdict = checkRow(text, cells, table.columns, table.width, numbers);
  const srv = table.columns.Srv;
  const position =
    cells.runs[srv] === 1
      ? positionIn(text, cells.start[srv] as number, cells.end[srv] as number)
      : positionOf(cells.raw(text, srv));
  return {
    verdict,
    read: {
      end,
      cells: Array.from({ length: table.width }, (_, i) =>
        cellOf(cells.start[i] as number, cells.end[i] as number, cells.runs[i] as number),
      ),
      mode: numbers.modeCode,
      ss: numbers.ss,
      position: position ?? -1,
    },
  };
}

/** What a mutation puts in: the characters and tags on which the two readers could part. */
const PIECES = [
  ' ',
  '\n',
  '\t',
  '-',
  '+',
  '.',
  'e',
  '0',
  '7',
  '/',
  '&amp;',
  '&#48;',
  '&',
  '<',
  '>',
  '<b>',
  '</b>',
  '<i>',
  '</i>',
  '<B>',
  '<br>',
  '<td>',
  '</td>',
  '<td nowrap>',
  '<td class="x">',
  '<TD>',
  '<th>',
  '</th>',
  '<tr>',
  '</tr>',
  '</TR>',
  '<table>',
  '</table>',
  '<!-- x -->',
  '<td</td',
  'W',
  '_',
  '?',
  'x',
  'é',
] as const;

/** What a cell edit puts in a whole cell: values each column could be asked to read. */
const CELL_VALUES = [
  '',
  ' ',
  'x',
  '?',
  '-',
  '-1',
  '+1',
  '1e3',
  '.5',
  '5.',
  '1.2.3',
  '0x10',
  'Infinity',
  '1234567890123456',
  '123456789012345',
  '0.000',
  '&#55;',
  'W',
  '<b>W</b>',
  '<b>_</b>\n',
  'W W',
  '<b>1</b>-<b>0</b>',
  '1/2',
  '1/2/3',
  '1/2/x',
  '1//3',
  '/1/2/3',
  '12-3',
  '1 2',
] as const;

type Edit = { at: number; kind: 'insert' | 'replace' | 'delete' | 'cell'; piece: string; length: number };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({
    at: fc.nat(),
    kind: fc.constantFrom('insert', 'replace', 'delete'),
    piece: fc.constantFrom(...PIECES),
    length: fc.integer({ min: 1, max: 6 }),
  }),
  fc.record({
    at: fc.nat(),
    kind: fc.constant('cell'),
    piece: fc.constantFrom(...CELL_VALUES),
    length: fc.constant(0),
  }),
);

function applyEdit(row: string, { at, kind, piece, length }: Edit): string {
  if (kind === 'cell') {
    // The content of cell `at` (between its `<td...>` and its `</td>`) becomes `piece`.
    const ends = [...row.matchAll(/<\/td>/g)].map((m) => m.index);
    if (ends.length === 0) return row;
    const end = ends[at % ends.length] as number;
    const td = row.lastIndexOf('<td', end);
    const start = row.indexOf('>', td) + 1;
    return td < 0 || start > end ? row : row.slice(0, start) + piece + row.slice(end);
  }
  const i = at % (row.length + 1);
  if (kind === 'insert') return row.slice(0, i) + piece + row.slice(i);
  if (kind === 'replace') return row.slice(0, i) + piece + row.slice(i + length);
  return row.slice(0, i) + row.slice(i + length);
}

const caseArb = fc.record({
  table: fc.nat(TABLES.length - 1),
  row: fc.nat(),
  edits: fc.array(editArb, { minLength: 0, maxLength: 3 }),
  after: fc.constantFrom('\n<tr>', '\n</table>', '', '<td>'),
});

describe('the fast row reader answers as the reference or -1', () => {
  it('has rows to read from every table', () => {
    expect(TABLES.filter((t) => t.rows.length === 0).map((t) => t.name)).toEqual([]);
  });

  it('over real and generated rows, mutated: -1 where the reference warns, the same read elsewhere', () => {
    const outcomes = { read: 0, declined: 0, referenceWarns: 0 };
    fc.assert(
      fc.property(caseArb, ({ table: t, row: r, edits, after }) => {
        const table = TABLES[t] as Table;
        const row = edits.reduce(applyEdit, table.rows[r % table.rows.length] as string);
        const prefix = '<table><tr>';
        const text = `${prefix}${row}${after}`;
        const fast = fastRead(text, prefix.length, table);
        const reference = referenceRead(text, prefix.length, table);
        if (reference.verdict !== RowVerdict.Clean) outcomes.referenceWarns++;
        if (fast === -1) {
          outcomes.declined++;
          return;
        }
        outcomes.read++;
        expect(reference.verdict).toBe(RowVerdict.Clean);
        expect(fast).toEqual(reference.read);
      }),
      { numRuns: 3000 },
    );
    // Not vacuous: both answers came, and the reference warned about some rows.
    expect(outcomes.read).toBeGreaterThan(100);
    expect(outcomes.declined).toBeGreaterThan(100);
    expect(outcomes.referenceWarns).toBeGreaterThan(100);
  });
});
