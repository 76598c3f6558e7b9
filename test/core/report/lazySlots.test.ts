/**
 * The slots of the HTML page and of a text dump are built on first read
 * (`src/core/report/lazySlots.ts`): a report fresh from the parse must be the same report to every
 * consumer (`toEqual`, `JSON.stringify`, `structuredClone`, spread) as one whose slots were read,
 * and its warnings must all be there before anyone reads them. Rows any check warns about are
 * built as they are read instead.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { slotsPending } from '../../../src/core/report/lazySlots.ts';
import { parseReport } from '../../../src/core/report/parse.ts';
import type { Slot, StatusReport } from '../../../src/core/report/types.ts';
import { computeMetrics } from '../../../src/core/rules/compute.ts';
import { expectedReport, generateSlots, modelOf } from '../../support/generate.ts';
import { renderAuto, renderHtml } from '../../support/generatePages.ts';
import { renderLynx } from '../../support/generateText.ts';

const FIXTURES = new URL('../../fixtures/apache-2.4.71/', import.meta.url);
/** The HTML pages and text dumps with a slot table (not `?auto`; `?notable` slots are no table). */
const CAPTURES = readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' })
  .filter((f) => (f.endsWith('.html') || f.endsWith('.txt')) && !f.includes('notable') && !f.includes('.auto.'))
  .sort();

/**
 * Captures whose slots are built in the parse: no slot table (ExtendedStatus Off), and a busy
 * prefork capture whose column M disagrees with its scoreboard once (a warning), in each form.
 */
const BUILT_EAGERLY: ReadonlySet<string> = new Set([
  'noextended/report.html',
  'noextended/report.lynx.txt',
  'noextended/report.lynx80.txt',
  'prefork-busy/report.html',
  'prefork-busy/report.lynx.txt',
  'prefork-busy/report.lynx80.txt',
]);

/**
 * Each page, its report with the slots read (a plain object: every field a data property; what
 * generated it for a generated page), and whether the parse leaves its slots pending.
 */
const PAGES: ReadonlyArray<[string, string, StatusReport, boolean]> = [
  ...CAPTURES.map((file): [string, string, StatusReport, boolean] => {
    const page = readFileSync(new URL(file, FIXTURES), 'latin1');
    return [file, page, { ...parseReport(page) }, !BUILT_EAGERLY.has(file)];
  }),
  ...(['prefork', 'worker', 'event'] as const).flatMap((mpm): Array<[string, string, StatusReport, boolean]> => {
    const model = modelOf(generateSlots(96, mpm), { mpm });
    return [
      [`generated ${mpm}, 96 slots, HTML`, renderHtml(model), expectedReport(model, 'html'), true],
      [`generated ${mpm}, 96 slots, lynx 80`, renderLynx(model, 80), expectedReport(model, 'text'), true],
      [`generated ${mpm}, 96 slots, lynx 200`, renderLynx(model, 200), expectedReport(model, 'text'), true],
    ];
  }),
  // More rows than a text table makes room for before reading any (`SlotColumns`: 4,096).
  ((): [string, string, StatusReport, boolean] => {
    const model = modelOf(generateSlots(5000, 'prefork'), { mpm: 'prefork' });
    return ['generated prefork, 5,000 slots, lynx 200', renderLynx(model, 200), expectedReport(model, 'text'), true];
  })(),
];

describe('a report with its slots pending is the same report to every consumer', () => {
  it('covers every HTML capture and text dump but the ?notable ones (their slots are not a table)', () => {
    expect(CAPTURES).toEqual([
      'event-busy/report.html',
      'event-busy/report.late.html',
      'event-busy/report.late.lynx.txt',
      'event-busy/report.late.lynx80.txt',
      'event-busy/report.lynx.txt',
      'event-busy/report.lynx80.txt',
      'event-closing/report.browser-copy.txt',
      'event-closing/report.graceful.browser-copy.txt',
      'event-closing/report.graceful.html',
      'event-closing/report.graceful.lynx.txt',
      'event-closing/report.graceful.lynx80.txt',
      'event-closing/report.html',
      'event-closing/report.lynx.txt',
      'event-closing/report.lynx80.txt',
      'noextended/report.html',
      'noextended/report.lynx.txt',
      'noextended/report.lynx80.txt',
      'prefork-busy/report.html',
      'prefork-busy/report.lynx.txt',
      'prefork-busy/report.lynx80.txt',
      'prefork-busy/report.refresh5.html',
      'prefork-busy/report.refresh5.lynx.txt',
      'prefork-busy/report.refresh5.lynx80.txt',
      'prefork-idle/report.html',
      'prefork-idle/report.lynx.txt',
      'prefork-idle/report.lynx80.txt',
    ]);
  });

  it.each(PAGES)('%s: toEqual', (_name, page, read) => {
    expect(parseReport(page)).toEqual(read);
  });

  it.each(PAGES)('%s: JSON.stringify, byte for byte', (_name, page, read) => {
    expect(JSON.stringify(parseReport(page))).toBe(JSON.stringify(read));
  });

  it.each(PAGES)('%s: isDeepStrictEqual (prototypes compared too)', (_name, page, read) => {
    expect(isDeepStrictEqual(parseReport(page), read)).toBe(true);
  });

  it.each(PAGES)('%s: structuredClone', (_name, page, read) => {
    expect(structuredClone(parseReport(page))).toEqual(read);
  });

  it.each(PAGES)('%s: spread, Object.keys and Object.entries', (_name, page, read) => {
    const report = parseReport(page);
    expect(Object.keys(report)).toEqual(Object.keys(read));
    expect({ ...report }).toEqual(read);
    expect(Object.fromEntries(Object.entries(parseReport(page)))).toEqual(read);
  });

  it.each(PAGES)('%s: the metrics, without building the slots', (_name, page, read, pending) => {
    const report = parseReport(page);
    const input = { previous: null, consecutiveFailures: 0, downAfterFailures: 2 };
    const metrics = computeMetrics({ ...input, observation: { kind: 'report', report } });
    expect(slotsPending(report)).toBe(pending);
    expect(metrics).toEqual(computeMetrics({ ...input, observation: { kind: 'report', report: read } }));
  });

  it('keeps the field order of every other report', () => {
    const model = modelOf(generateSlots(8, 'prefork'));
    const auto = Object.keys(parseReport(renderAuto(model)));
    expect(Object.keys(parseReport(renderHtml(model)))).toEqual(auto);
    expect(Object.keys(parseReport(renderLynx(model, 80)))).toEqual(auto);
  });

  it("shows no property but the contract's, in any form: own keys, symbols included", () => {
    const model = modelOf(generateSlots(8, 'prefork'));
    for (const page of [renderHtml(model), renderLynx(model, 80)]) {
      const report = parseReport(page);
      expect(slotsPending(report)).toBe(true);
      expect(Reflect.ownKeys(report)).toEqual(Object.keys(parseReport(renderAuto(model))));
    }
  });

  it('builds the slots once; a write replaces them as for a plain field', () => {
    const report = parseReport(renderHtml(modelOf(generateSlots(8, 'prefork'))));
    expect(slotsPending(report)).toBe(true);
    const slots = report.slots;
    expect(slotsPending(report)).toBe(false);
    expect(report.slots).toBe(slots);
    report.slots = null;
    expect(report.slots).toBeNull();
    expect(JSON.parse(JSON.stringify(report)).slots).toBeNull();
  });
});

/** A generated prefork page of 8 slots, `change` applied to its slots (the scoreboard follows them). */
function pageOf(change: (slots: Slot[]) => Slot[]): string {
  return renderHtml(modelOf(change(generateSlots(8, 'prefork')), { mpm: 'prefork' }));
}

const WARNING_CASES: ReadonlyArray<[string, string, readonly string[]]> = [
  ['a clean table', pageOf((s) => s), []],
  [
    'a negative SS',
    pageOf((s) => s.map((slot, i) => (i === 3 ? { ...slot, ss: -5 } : slot))),
    [
      '1 slot rows have an impossible number (row 4, Srv "3-0": ss is -5, expected a finite number >= 0); those rows are skipped',
    ],
  ],
  [
    'a Srv printed twice',
    pageOf((s) => s.map((slot, i) => (i === 5 ? { ...slot, srv: '2-0' } : slot))),
    [
      'slot 2-0: column M is "W" but scoreboard position 2 is "G"',
      '1 slot rows repeat a scoreboard position (Srv) already printed (row 6, Srv "2-0"); the first printing of each slot is kept',
    ],
  ],
  [
    'column M against the scoreboard',
    pageOf((s) => s).replace(
      '<td><b>0-0</b></td><td>16000</td><td>1/54/54</td><td><b>W</b>',
      '<td><b>0-0</b></td><td>16000</td><td>1/54/54</td><td><b>K</b>',
    ),
    ['slot 0-0: column M is "K" but scoreboard position 0 is "W"'],
  ],
  [
    'a Srv past the scoreboard',
    pageOf((s) => s.map((slot, i) => (i === 7 ? { ...slot, srv: '9-0' } : slot))),
    [
      '1 slot rows lie beyond the scoreboard\'s 8 positions (row 8, Srv "9-0"); dropped, so the table counts no more slots than the scoreboard has',
    ],
  ],
  [
    'an M that is no mode',
    pageOf((s) => s).replace(
      '<td><b>0-0</b></td><td>16000</td><td>1/54/54</td><td><b>W</b>',
      '<td><b>0-0</b></td><td>16000</td><td>1/54/54</td><td><b>?</b>',
    ),
    [
      'slot table row 1 (Srv "0-0"): M is "?", not one of the 11 mode characters',
      'slot 0-0: column M is "?" but scoreboard position 0 is "W"',
    ],
  ],
  [
    'an M that is no mode in the middle of the table',
    pageOf((s) => s.map((slot, i) => (i === 4 ? { ...slot, mode: '?' } : slot))),
    [
      'scoreboard has characters outside the 11 modes: "?"',
      'slot table row 5 (Srv "4-0"): M is "?", not one of the 11 mode characters',
    ],
  ],
  [
    'a row printed twice: more rows than positions',
    rowTwice('7-0'),
    [
      '1 slot rows repeat a scoreboard position (Srv) already printed (row 9, Srv "7-0"); the first printing of each slot is kept',
    ],
  ],
];

/** The generated 8-slot prefork page with its row of Srv `srv` printed twice in a row (9 rows, 8 positions). */
function rowTwice(srv: string): string {
  const page = pageOf((s) => s);
  const start = page.indexOf(`<tr><td><b>${srv}</b>`);
  const end = page.indexOf('</tr>', start) + '</tr>'.length;
  return page.slice(0, end) + page.slice(start, end) + page.slice(end);
}

describe('every warning is known when the parse returns', () => {
  it.each(WARNING_CASES)('%s', (_name, page, warnings) => {
    const report = parseReport(page);
    expect(report.warnings).toEqual(warnings);
    expect(slotsPending(report)).toBe(warnings.length === 0);
    const read = { ...report };
    expect(read.warnings).toEqual(warnings);
    expect(parseReport(page)).toEqual(read);
  });
});

/** A generated 8-slot prefork lynx dump (80 columns), `change` applied to its slots (the scoreboard follows them). */
function dumpOf(change: (slots: Slot[]) => Slot[]): string {
  return renderLynx(modelOf(change(generateSlots(8, 'prefork')), { mpm: 'prefork' }), 80);
}

/** Text dumps: the warnings, and whether the slots stay pending (a row the reader skips leaves the others so). */
const TEXT_WARNING_CASES: ReadonlyArray<[string, string, readonly string[], boolean]> = [
  ['a clean dump', dumpOf((s) => s), [], true],
  [
    'a negative SS',
    dumpOf((s) => s.map((slot, i) => (i === 3 ? { ...slot, ss: -5 } : slot))),
    [
      '1 slot rows have an impossible number (row 4, Srv "3-0": ss is -5, expected a finite number >= 0); those rows are skipped',
    ],
    false,
  ],
  [
    'a Srv printed twice',
    dumpOf((s) => s.map((slot, i) => (i === 5 ? { ...slot, srv: '2-0' } : slot))),
    [
      'slot 2-0: column M is "W" but scoreboard position 2 is "G"',
      '1 slot rows repeat a scoreboard position (Srv) already printed (row 6, Srv "2-0"); the first printing of each slot is kept',
    ],
    false,
  ],
  [
    'a Srv past the scoreboard',
    dumpOf((s) => s.map((slot, i) => (i === 7 ? { ...slot, srv: '9-0' } : slot))),
    [
      '1 slot rows lie beyond the scoreboard\'s 8 positions (row 8, Srv "9-0"); dropped, so the table counts no more slots than the scoreboard has',
    ],
    false,
  ],
  [
    'a CPU that is no number: the reader skips its row, the others stay pending',
    dumpOf((s) => s.map((slot, i) => (i === 2 ? { ...slot, cpu: Number.POSITIVE_INFINITY } : slot))),
    ['slot table row at line 36 (Srv "2-0"): CPU is "Infinity", expected a number; row skipped'],
    true,
  ],
];

describe('every warning of a text dump is known when the parse returns', () => {
  it.each(TEXT_WARNING_CASES)('%s', (_name, page, warnings, pending) => {
    const report = parseReport(page);
    expect(report.warnings).toEqual(warnings);
    expect(slotsPending(report)).toBe(pending);
    const read = { ...report };
    expect(read.warnings).toEqual(warnings);
    expect(parseReport(page)).toEqual(read);
  });
});
