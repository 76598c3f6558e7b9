/**
 * Worst-case inputs: each named hostile case of test/support/hostileInputs.ts (a real capture with
 * an attacker's payload spliced in) timed at 32 KB, 256 KB and 2 MB of payload. Linear parsing
 * shows as a flat time per KB and growth near 8x per 8x size; a quadratic reader would show 64x.
 * Part of `npm run bench:parser` (bench/run.ts); alone: `npx tsx bench/worstCase.ts [name part]`.
 */
import { fileURLToPath } from 'node:url';
import { NotAStatusReportError } from '../src/core/errors.ts';
import { parseReport } from '../src/core/report/parse.ts';
import { splice, WORST_CASES } from '../test/support/hostileInputs.ts';
import { measure, type Timing } from './measure.ts';

const PAYLOAD_SIZES = [32 * 1024, 256 * 1024, 2 * 1024 * 1024] as const;
const BUDGET_MS = 500;

interface WorstCaseRow {
  name: string;
  /** Median per parse at each payload size, in order of `PAYLOAD_SIZES`. */
  timings: Timing[];
  inputKB: number[];
  /** Time at 8x the payload over time at 1x: 256 KB / 32 KB and 2 MB / 256 KB. */
  growth: [number, number];
  /** Microseconds per KB of input at 2 MB. */
  usPerKB: number;
}

function parseOrReject(text: string): unknown {
  try {
    return parseReport(text);
  } catch (error) {
    if (error instanceof NotAStatusReportError) return error;
    throw error;
  }
}

const f = (ms: number): string => (ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));

/** Time every worst case (or those whose name contains `only`) at every size, one line per case. */
function timeWorstCases(out: (line: string) => void, only = ''): WorstCaseRow[] {
  out('\nWorst cases (median ms per parse at 32 KB / 256 KB / 2 MB of payload; growth per 8x; us per KB at 2 MB)\n');
  const rows: WorstCaseRow[] = [];
  for (const [name, base, anchor, payload] of WORST_CASES) {
    if (!name.includes(only)) continue;
    const texts = PAYLOAD_SIZES.map((n) => splice(base, anchor, payload(n)));
    const timings = texts.map((text) => measure(() => parseOrReject(text), BUDGET_MS));
    const [a, b, c] = timings.map((t) => t.medianMs) as [number, number, number];
    const inputKB = texts.map((t) => Math.round(t.length / 1024));
    const row: WorstCaseRow = {
      name,
      timings,
      inputKB,
      growth: [b / a, c / b],
      usPerKB: (c * 1000) / (inputKB[2] as number),
    };
    rows.push(row);
    out(
      `${name.padEnd(58)} ${f(a).padStart(7)} ${f(b).padStart(7)} ${f(c).padStart(8)} | x${row.growth[0].toFixed(1).padStart(5)} x${row.growth[1].toFixed(1).padStart(5)} | ${row.usPerKB.toFixed(2).padStart(6)} us/KB\n`,
    );
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  timeWorstCases((line) => process.stdout.write(line), process.argv[2]);
}

export type { WorstCaseRow };
export { timeWorstCases };
