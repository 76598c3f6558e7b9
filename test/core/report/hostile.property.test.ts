/**
 * Parsing time under adversarial input. Real captures of every form with an attacker's payload
 * spliced in (long whitespace runs, unclosed tags, digit runs, deep nesting, repeated sections,
 * huge lines) must parse or be rejected within a per-input limit, and the named worst cases must
 * grow linearly: time at 8n over time at n stays far below the 64x of a quadratic parse.
 *
 * Timing on a shared 2-core machine is noisy, so the limits are generous on purpose: a linear
 * parse of these inputs takes milliseconds, the quadratic ones this file guards against took
 * seconds to minutes (160 KB of spaces inside a `?notable` entry: 17 s).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NotAStatusReportError } from '../../../src/core/errors.ts';
import { parseReport } from '../../../src/core/report/parse.ts';
import { REPORT_FORMATS } from '../../../src/core/report/types.ts';
import {
  BASES,
  type BaseName,
  NOTABLE_HEAD_HTML,
  NOTABLE_HEAD_TEXT,
  splice,
  WORST_CASES,
} from '../../support/hostileInputs.ts';

/** Per input (detected form plus each forced form): a linear parse of 256 KB takes a few ms. */
const LIMIT_MS = 2000;
/** Time at 8n over time at n, best of 3 each: linear reads about 8, quadratic 64. */
const MAX_GROWTH = 30;
const GROWTH_N = 16 * 1024;

/** What a payload is made of: a prefix that opens a construct, a unit repeated, a closing suffix. */
const PREFIXES = [
  '',
  '<i>',
  '<td>',
  '<dt>Server uptime: ',
  'Total Accesses: ',
  '   Srv x',
  NOTABLE_HEAD_HTML,
  NOTABLE_HEAD_TEXT,
];
const UNITS = [
  ' ',
  '\t',
  '\n',
  ' \n',
  '\r',
  '<',
  '<td',
  '<b>',
  '<i>',
  '<table>',
  '<!--',
  '<td a="',
  '&',
  '&#',
  '&a',
  '9',
  '9.',
  '-',
  '{',
  '}',
  '(',
  ')',
  '|',
  '[',
  ': ',
  'e+',
  'W',
  '_',
  'a ',
  'Server ',
  '<b>Server 1</b> (',
  'Srv ',
  '0-0 1 0/0/0 W 0 0 0 0 0 0 0 ',
  'SSL/TLS Session Cache Status:\n',
  'Scoreboard Key:\n',
  'Scoreboard: W\n',
  'CacheType: SHMCB\n',
  '<dt>',
  '<pre>',
  'Request ',
];
const SUFFIXES = ['', 'x', '</i>', '\n', '}'];

function payloadOf(prefix: string, unit: string, suffix: string, length: number): string {
  return prefix + unit.repeat(Math.max(1, Math.floor(length / unit.length))) + suffix;
}

/** Parse detected and forced into every form; only a report or `NotAStatusReportError` may come out. */
function parseEveryWay(text: string): void {
  for (const format of [undefined, ...REPORT_FORMATS]) {
    try {
      parseReport(text, format === undefined ? {} : { format });
    } catch (error) {
      if (!(error instanceof NotAStatusReportError)) throw error;
    }
  }
}

function elapsedMs(run: () => void): number {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function bestOf3(run: () => void): number {
  return Math.min(elapsedMs(run), elapsedMs(run), elapsedMs(run));
}

describe('parseReport under adversarial payloads: each input within the time limit', () => {
  it(`parses or rejects every spliced capture within ${LIMIT_MS} ms`, () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...(Object.keys(BASES) as BaseName[])),
        fc.nat(6),
        fc.constantFrom(...PREFIXES),
        fc.constantFrom(...UNITS),
        fc.constantFrom(...SUFFIXES),
        fc.integer({ min: 1, max: 256 * 1024 }),
        (base, anchor, prefix, unit, suffix, length) => {
          // Prepare
          const text = splice(base, anchor, payloadOf(prefix, unit, suffix, length));
          // Act
          const ms = elapsedMs(() => parseEveryWay(text));
          // Assess
          expect(ms).toBeLessThan(LIMIT_MS);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('parses or rejects any repetition of report fragments within the time limit', () => {
    const fragment = fc.constantFrom(
      ...UNITS,
      ...PREFIXES.filter((p) => p !== ''),
      '</table>',
      '</td>',
      '</tr>',
      '</pre>',
      '<hr>',
    );
    fc.assert(
      fc.property(
        fc.array(fragment, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 20_000 }),
        (parts, times) => {
          const text = `<title>Apache Status</title>${parts.join('').repeat(times)}`;
          expect(elapsedMs(() => parseEveryWay(text))).toBeLessThan(LIMIT_MS);
          expect(elapsedMs(() => parseEveryWay(`Scoreboard: _\n${parts.join('').repeat(times)}`))).toBeLessThan(
            LIMIT_MS,
          );
        },
      ),
      { numRuns: 30 },
    );
  });
});

/**
 * Time at 8n over time at n (best of 3 each; n floored at 1 ms so a fast small parse does not
 * inflate the ratio). Noise on a shared machine can spoil one measurement, never three in a row,
 * so up to 3 attempts are made; a parse over the time limit fails at once.
 */
function growth(small: string, large: string): { ratio: number; largeMs: number } {
  let best = { ratio: Number.POSITIVE_INFINITY, largeMs: 0 };
  for (let attempt = 0; attempt < 3 && best.ratio >= MAX_GROWTH; attempt++) {
    const smallMs = bestOf3(() => parseEveryWay(small));
    const largeMs = bestOf3(() => parseEveryWay(large));
    if (largeMs >= LIMIT_MS) return { ratio: largeMs / Math.max(smallMs, 1), largeMs };
    const ratio = largeMs / Math.max(smallMs, 1);
    if (ratio < best.ratio) best = { ratio, largeMs };
  }
  return best;
}

describe('parseReport: the worst cases grow linearly', () => {
  it.each(WORST_CASES)('%s', (_name, base, anchor, payload) => {
    // Prepare
    const small = splice(base, anchor, payload(GROWTH_N));
    const large = splice(base, anchor, payload(8 * GROWTH_N));
    parseEveryWay(small); // warm up: the first call compiles
    // Act
    const { ratio, largeMs } = growth(small, large);
    // Assess
    expect(largeMs).toBeLessThan(LIMIT_MS);
    expect(ratio).toBeLessThan(MAX_GROWTH);
  });
});
