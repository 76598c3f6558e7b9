/** Child of profile.ts: parse the input file N times (after a warm-up), nothing else. */
import { readFileSync } from 'node:fs';
import { parseReport } from '../src/core/report/parse.ts';

const [file, n] = process.argv.slice(2);
if (file === undefined || n === undefined) throw new Error('expected <input-file> <iterations>, found fewer arguments');
const text = readFileSync(file, 'utf8');
let slots = 0;
for (let i = 0; i < Number(n); i++) slots += parseReport(text).slots?.length ?? 0;
process.stdout.write(`${slots}\n`);
