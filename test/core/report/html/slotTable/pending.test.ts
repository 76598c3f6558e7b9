/**
 * The slot table's rows are read two ways: the plain shape mod_status prints straight from the
 * page's bytes, anything else through the scanner's tokens. Both must give the same report: each
 * case reshapes every row of a generated page (or one row) so the plain reader hands it back at a
 * different point, and the report must equal the one of the plain page, and what generated it.
 */
import { describe, expect, it } from 'vitest';
import { slotsPending } from '../../../../../src/core/report/lazySlots.ts';
import { parseReport } from '../../../../../src/core/report/parse.ts';
import type { StatusReport } from '../../../../../src/core/report/types.ts';
import { computeMetrics } from '../../../../../src/core/rules/compute.ts';
import { expectedReport, generateSlots, modelOf } from '../../../../support/generate.ts';
import { renderHtml } from '../../../../support/generatePages.ts';

const model = modelOf(generateSlots(96, 'prefork'), { mpm: 'prefork' });
const plain = renderHtml(model);
const expected = expectedReport(model, 'html');

/** Applies `reshape` to the part of the page from the slot table's first data row on. */
function reshapeRows(reshape: (rows: string) => string): string {
  const first = plain.indexOf('<tr><td><b>');
  return plain.slice(0, first) + reshape(plain.slice(first));
}

const CASES: ReadonlyArray<[string, (rows: string) => string]> = [
  ['upper-case cell tags', (rows) => rows.replaceAll('<td>', '<TD>').replaceAll('</td>', '</TD>')],
  ['a quoted attribute on a cell', (rows) => rows.replaceAll('<td nowrap>', '<td class="r">')],
  ['rows not closed by </tr>', (rows) => rows.replaceAll('</tr>', '')],
  ['a comment inside the first cell', (rows) => rows.replaceAll('<tr><td><b>', '<tr><td><!-- s --><b>')],
  ['bold closed in upper case', (rows) => rows.replaceAll('</b>', '</B>')],
  ['the last cell ends with a line break tag', (rows) => rows.replaceAll('</td></tr>', '<br></td></tr>')],
  ['text before the first cell', (rows) => rows.replaceAll('<tr><td>', '<tr>\n <td>')],
  [
    'a character outside ASCII between the 10th and 11th rows (the rest read the usual way)',
    (rows) =>
      rows
        .split('<tr><td>')
        .map((row, i) => (i === 10 ? `${row}<!-- \u00e9 -->` : row))
        .join('<tr><td>'),
  ],
  [
    // Still the plain shape: the client is read in two runs, and again from the page when built.
    'the 20th row with its client in two runs (<b> around its first character)',
    (rows) =>
      rows
        .split('<tr><td>')
        .map((row, i) => (i === 20 ? withClientInTwoRuns(row) : row))
        .join('<tr><td>'),
  ],
  [
    'only the 50th row reshaped',
    (rows) =>
      rows
        .split('<tr><td>')
        .map((row, i) => (i === 50 ? row.replace('</td>', '</TD>') : row))
        .join('<tr><td>'),
  ],
];

/** A row (from after its first `<td>`) whose client cell (the 12th) starts with its first character in `<b>`. */
function withClientInTwoRuns(row: string): string {
  const cells = row.split('</td>');
  const client = cells[11] as string;
  const text = client.slice(client.indexOf('>') + 1);
  expect(text.length).toBeGreaterThan(1);
  cells[11] = `${client.slice(0, client.indexOf('>') + 1)}<b>${text[0]}</b>${text.slice(1)}`;
  return cells.join('</td>');
}

const metricsOf = (report: StatusReport) =>
  computeMetrics({
    observation: { kind: 'report', report },
    previous: null,
    consecutiveFailures: 0,
    downAfterFailures: 2,
  });

describe('slot table rows: the plain reader and the scanner agree', () => {
  it('the plain page parses to what generated it', () => {
    expect(parseReport(plain)).toEqual(expected);
  });

  it.each(CASES)('%s', (_name, reshape) => {
    const page = reshapeRows(reshape);
    expect(page).not.toBe(plain);
    // The metrics first, from the rows still pending; then the slots built from them.
    expect(metricsOf(parseReport(page))).toEqual(metricsOf(expected));
    expect(parseReport(page)).toEqual(expected);
  });

  it('a vhost outside ASCII in the 50th row: that row and the rest read the usual way, the same report', () => {
    const slots = generateSlots(96, 'prefork').map((slot, i) =>
      i === 49 ? { ...slot, vhost: 'b\u00fccher.example' } : slot,
    );
    const accented = modelOf(slots, { mpm: 'prefork' });
    const report = parseReport(renderHtml(accented));
    expect(report.slots?.[49]?.vhost).toBe('b\u00fccher.example');
    expect(report).toEqual(expectedReport(accented, 'html'));
  });

  it("a table of 2,000 rows, longer than the plain reader's window of the page, parses to what generated it", () => {
    const large = modelOf(generateSlots(2000, 'prefork'), { mpm: 'prefork' });
    const page = renderHtml(large);
    expect(page.length).toBeGreaterThan(2 * 2 ** 18);
    const report = parseReport(page);
    expect(slotsPending(report)).toBe(true);
    expect(report).toEqual(expectedReport(large, 'html'));
  });

  it('a page cut inside a plain row keeps the rows before it and says where it ended', () => {
    const cut = plain.slice(0, plain.indexOf('<tr><td><b>', plain.indexOf('<tr><td><b>') + 1) + 20);
    const report = parseReport(cut);
    expect(report.slots).toEqual(expected.slots?.slice(0, 1));
    expect(report.warnings).toContain('the page ends inside the slot table; its last row (2) was skipped');
  });
});
