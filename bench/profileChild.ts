/**
 * Child of profile.ts: parse the input file N times (after a warm-up), nothing else. The slots are
 * not read, as a steady run does not read them (the HTML page's are then built on first read): the
 * profile is the parse a run pays for. `--slots` reads them too.
 */
import { readFileSync } from 'node:fs';
import { parseReport } from '../src/core/report/parse.ts';

const [file, n, flag] = process.argv.slice(2);
if (file === undefined || n === undefined) throw new Error('expected <input-file> <iterations>, found fewer arguments');
const text = readFileSync(file, 'utf8');
let positions = 0;
for (let i = 0; i < Number(n); i++) {
  const report = parseReport(text);
  positions += flag === '--slots' ? (report.slots?.length ?? 0) : report.scoreboard.length;
}
process.stdout.write(`${positions}\n`);
