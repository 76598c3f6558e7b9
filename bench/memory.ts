/**
 * Child process (`node --expose-gc --import tsx bench/memory.ts <input-file>`): the memory one
 * parse adds. Prints JSON: heap and RSS before/after, and peak RSS (`maxRSS`) minus RSS before.
 */
import { readFileSync } from 'node:fs';
import { parseReport } from '../src/core/report/parse.ts';

const file = process.argv[2];
if (file === undefined) throw new Error('expected an input file argument, found none');
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('expected node --expose-gc, found no global gc()');

const text = readFileSync(file, 'utf8');
gc();
gc();
const before = process.memoryUsage();
const maxRssBeforeKB = process.resourceUsage().maxRSS;
const report = parseReport(text);
const peakKB = process.resourceUsage().maxRSS;
const after = process.memoryUsage();
gc();
const retained = process.memoryUsage();
const MB = 1024 * 1024;
process.stdout.write(
  `${JSON.stringify({
    slots: report.slots?.length ?? null,
    inputMB: Buffer.byteLength(text) / MB,
    heapBeforeMB: before.heapUsed / MB,
    heapAfterMB: after.heapUsed / MB,
    heapRetainedMB: (retained.heapUsed - before.heapUsed) / MB,
    rssBeforeMB: before.rss / MB,
    rssAfterMB: after.rss / MB,
    maxRssBeforeMB: maxRssBeforeKB / 1024,
    peakAddedMB: (peakKB * 1024 - before.rss) / MB,
  })}\n`,
);
