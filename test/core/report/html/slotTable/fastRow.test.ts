/**
 * The plain row reader (`src/core/report/html/slotTable/fastRow.ts`) reads a slot table row whole from the
 * page's bytes or says -1, leaving the row to the usual reader. Each case is one row as printed
 * from just after its `<tr>`: what it reads (the cells, the figures) or that it declines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cellKinds, mapColumns } from '../../../../../src/core/report/html/slotTable/columns.ts';
import {
  asciiWindow,
  nextPlainRow,
  PER_CELL,
  PlainRowFigures,
  readPlainRow,
} from '../../../../../src/core/report/html/slotTable/fastRow.ts';
import { SLOT_COLUMNS } from '../../../../../src/core/report/types.ts';

const WIDTH = SLOT_COLUMNS.length;
const KINDS = cellKinds(mapColumns([...SLOT_COLUMNS], []) ?? expect.fail('expected the 2.4.71 header to map'), WIDTH);

/** A 2.4.71 prefork row with `replace` applied to its cells by column name. */
function row(replace: Partial<Record<(typeof SLOT_COLUMNS)[number], string>> = {}, tail = '</tr>'): string {
  const cells: Record<(typeof SLOT_COLUMNS)[number], string> = {
    Srv: '<b>0-0</b>',
    PID: '16000',
    Acc: '1/54/54',
    M: '<b>W</b>\n',
    CPU: '0.06',
    SS: '4',
    Req: '0',
    Dur: '4',
    Conn: '0.0',
    Child: '0.99',
    Slot: '0.99\n',
    Client: '127.0.0.1',
    Protocol: 'http/1.1',
    VHost: 'www.example.test:80',
    Request: 'GET /index.html HTTP/1.1',
    ...replace,
  };
  const nowrap = new Set(['VHost', 'Request']);
  return `${SLOT_COLUMNS.map((c) => `${nowrap.has(c) ? '<td nowrap>' : '<td>'}${cells[c]}</td>`).join('')}${tail}\n`;
}

interface Read {
  end: number;
  cells: string[];
  runs: number[];
  mode: string;
  ss: number;
  position: number;
}

/** `readPlainRow` on `text` from 0: what it read, or -1. */
function read(text: string): Read | -1 {
  const bytes = asciiWindow(text, 0) ?? expect.fail('expected an ASCII row');
  const ranges = new Int32Array(WIDTH * PER_CELL);
  const figures = new PlainRowFigures();
  const end = readPlainRow(text, bytes, 0, 0, KINDS, ranges, 0, figures);
  if (end < 0) return -1;
  const cells = SLOT_COLUMNS.map((_, i) =>
    (ranges[i * PER_CELL + 2] as number) === 0
      ? ''
      : text.slice(ranges[i * PER_CELL] as number, ranges[i * PER_CELL + 1] as number),
  );
  const runs = SLOT_COLUMNS.map((_, i) => ranges[i * PER_CELL + 2] as number);
  return { end, cells, runs, mode: String.fromCharCode(figures.mode), ss: figures.ss, position: figures.position };
}

const PLAIN_CELLS = [
  '0-0',
  '16000',
  '1/54/54',
  'W',
  '0.06',
  '4',
  '0',
  '4',
  '0.0',
  '0.99',
  '0.99',
  '127.0.0.1',
  'http/1.1',
  'www.example.test:80',
  'GET /index.html HTTP/1.1',
];

describe('readPlainRow: rows it reads', () => {
  const ONE_RUN = PLAIN_CELLS.map(() => 1);
  const CASES: ReadonlyArray<[string, string, Partial<Read>]> = [
    ['the row mod_status prints', row(), { cells: PLAIN_CELLS, runs: ONE_RUN, mode: 'W', ss: 4, position: 0 }],
    ['a process id of "-"', row({ PID: '-' }), { cells: PLAIN_CELLS.with(1, '-') }],
    ['an empty client cell', row({ Client: '' }), { cells: PLAIN_CELLS.with(11, ''), runs: ONE_RUN.with(11, 0) }],
    ['Srv 17-3 on position 17', row({ Srv: '<b>17-3</b>' }), { position: 17, cells: PLAIN_CELLS.with(0, '17-3') }],
    ['a mode in no <b>', row({ M: '_' }), { mode: '_', cells: PLAIN_CELLS.with(3, '_') }],
    ['seconds with a fraction', row({ SS: '12.5' }), { ss: 12.5 }],
    [
      'a request in two runs (kept as two: the usual reader strips the tag)',
      row({ Request: 'GET /a<b>b</b> HTTP/1.1' }),
      { cells: PLAIN_CELLS.with(14, 'GET /a<b>b</b> HTTP/1.1'), runs: ONE_RUN.with(14, 3) },
    ],
    ['blank text around numbers', row({ Req: ' 7 \n' }), { cells: PLAIN_CELLS.with(6, '7') }],
  ];
  it.each(CASES)('%s', (_name, text, expected) => {
    const result = read(text);
    expect(result).not.toBe(-1);
    expect(result).toMatchObject({ end: text.indexOf('</tr>') + 5, ...expected });
  });
});

describe('readPlainRow: rows it leaves to the usual reader', () => {
  const CASES: ReadonlyArray<[string, string]> = [
    ['upper-case cell tags', row().replaceAll('<td>', '<TD>')],
    ['a header cell', row().replace('<td>', '<th>')],
    ['a cell with an attribute', row().replace('<td nowrap>', '<td class="r">')],
    ['a comment in a cell', row({ Client: '<!-- c -->127.0.0.1' })],
    ['a negative number', row({ SS: '-1' })],
    ['an exponent', row({ Req: '1e3' })],
    ['an entity in a number', row({ Req: '&#49;' })],
    ['a number in two runs', row({ Conn: '1<b>2</b>' })],
    ['no digits', row({ Slot: '.' })],
    ['16 digits', row({ Req: '1234567890123456' })],
    ['an empty number cell', row({ CPU: '' })],
    ['a process id that is text', row({ PID: 'pid' })],
    ['Acc of two numbers', row({ Acc: '1/54' })],
    ['Acc of four numbers', row({ Acc: '1/54/54/1' })],
    ['an unknown mode', row({ M: '?' })],
    ['two modes', row({ M: 'WW' })],
    ['an empty mode', row({ M: '' })],
    ['Srv in two runs', row({ Srv: '<b>0</b>-<b>0</b>' })],
    ['a cell missing', row().replace('<td>0.06</td>', '')],
    ['a cell more', row({}, '<td>x</td></tr>')],
    ['no </tr>', row({}, '')],
    ['cut inside a cell', row().slice(0, 120)],
    ['a line break tag', row({ Request: 'GET /<br>' })],
  ];
  it.each(CASES)('%s', (_name, text) => {
    expect(read(text)).toBe(-1);
  });
});

describe('asciiWindow and nextPlainRow', () => {
  it.each([
    ['ASCII text', 'ab<tr>', 2, [0x3c, 0x74, 0x72, 0x3e]],
    ['a character outside ASCII', 'ab<tr>é', 0, null],
    ['outside ASCII before the window only', 'é<tr>', 1, [0x3c, 0x74, 0x72, 0x3e]],
  ] as const)('%s', (_name, text, from, expected) => {
    const bytes = asciiWindow(text, from);
    expect(bytes === null ? null : [...bytes]).toEqual(expected);
  });

  it('a window up to `to`: one row read again from its stretch', () => {
    expect([...(asciiWindow('xx<tr>yy', 2, 6) ?? [])]).toEqual([0x3c, 0x74, 0x72, 0x3e]);
  });

  it('a window of a long page stops at 256 KiB', () => {
    expect(asciiWindow('x'.repeat(300_000), 1000)?.length).toBe(1 << 18);
  });

  it.each([
    ['blank text, then <tr>', '</tr>\n\n<tr><td>', 5, 11],
    ['the table ends', '</tr>\n</table>', 5, -1],
    ['text between rows', '</tr>x<tr>', 5, -1],
    ['upper-case <TR>', '</tr><TR>', 5, -1],
  ] as const)('next row: %s', (_name, text, from, expected) => {
    const bytes = asciiWindow(text, 0) ?? expect.fail('expected ASCII');
    expect(nextPlainRow(bytes, from)).toBe(expected);
  });
});

describe('the 2.4.71 captures', () => {
  const FIXTURES = new URL('../../../../fixtures/apache-2.4.71/', import.meta.url);
  const pages = readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.html') && !f.includes('notable') && !f.startsWith('noextended'))
    .sort();
  it.each(pages)('every slot row of %s is read by the plain reader', (file) => {
    const page = readFileSync(new URL(file, FIXTURES), 'latin1');
    const header = page.indexOf('<tr><th>Srv</th>');
    const tableEnd = page.indexOf('</table>', header);
    const rows = page
      .slice(page.indexOf('</tr>', header) + 5, tableEnd)
      .split('<tr>')
      .slice(1);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => read(r) === -1)).toEqual([]);
  });
});
