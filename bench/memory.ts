/**
 * Child process (`node --expose-gc --import tsx bench/memory.ts <input-file>`): the memory one
 * parse adds. Prints JSON: heap and RSS before/after, and the peak RSS during the parse minus the
 * RSS before it.
 *
 * The peak: on Linux the high-water mark is reset to the current RSS just before the parse
 * (`/proc/self/clear_refs` 5) and read after it (`VmHWM`), so it is the parse's own. Elsewhere it
 * is `maxRSS`, the process's peak since it started: loading tsx and the modules can peak higher
 * than the parse, and that excess then reads as "added" (4-33 MB on the development machine for
 * any input, a 21 KB `?auto` page included).
 */
import { readFileSync } from 'node:fs';
import { parseReport } from '../src/core/report/parse.ts';
import { highWaterKB, resetHighWater } from '../test/support/highWater.ts';

const file = process.argv[2];
if (file === undefined) throw new Error('expected an input file argument, found none');
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('expected node --expose-gc, found no global gc()');

const text = readFileSync(file, 'utf8');
gc();
gc();
const maxRssBeforeKB = process.resourceUsage().maxRSS;
const reset = resetHighWater();
const before = process.memoryUsage();
const report = parseReport(text);
const peakKB = (reset ? highWaterKB() : null) ?? process.resourceUsage().maxRSS;
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
    peakAddedMB: Math.max(0, peakKB * 1024 - before.rss) / MB,
    peakFrom: reset ? 'VmHWM reset before the parse' : 'maxRSS since the process started',
  })}\n`,
);
