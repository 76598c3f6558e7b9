/**
 * Child process (`node --expose-gc --import tsx test/support/fetchPeak.ts <url> <maxBytes> <timeoutMs>`):
 * one `fetchStatusPage` of `url` and the memory and CPU it costs. Prints JSON: the outcome
 * (ok or reason, detail, body length), the peak RSS during the fetch minus the RSS before it,
 * the heap before and after, and the CPU time. A child of its own, so the peak is the fetch's:
 * the server (in the parent) and the test runner's heap do not count.
 *
 * The peak: on Linux `VmHWM` reset just before the fetch (see `highWater.ts`); elsewhere `maxRSS`
 * since the process started, which counts start-up too (an upper bound).
 */
import { fetchStatusPage } from '../../src/adapters/httpStatusSource.ts';
import { highWaterKB, resetHighWater } from './highWater.ts';

const [url, maxBytesText, timeoutText] = process.argv.slice(2);
if (url === undefined) throw new Error('expected <url> <maxBytes> <timeoutMs> arguments, found none');
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('expected node --expose-gc, found no global gc()');

gc();
gc();
const reset = resetHighWater();
const before = process.memoryUsage();
const cpuBefore = process.cpuUsage();
const started = performance.now();
const result = await fetchStatusPage({
  name: 'trickle',
  url,
  maxBytes: Number(maxBytesText),
  timeoutMs: Number(timeoutText ?? 30_000),
  // The trickling server is on loopback, beside this process.
  allowLoopback: true,
});
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const peakKB = (reset ? highWaterKB() : null) ?? process.resourceUsage().maxRSS;
const after = process.memoryUsage();
const MB = 1024 * 1024;
process.stdout.write(
  `${JSON.stringify({
    ok: result.ok,
    reason: result.ok ? null : result.reason,
    detail: result.ok ? null : result.detail,
    bodyBytes: result.ok ? result.body.length : null,
    peakAddedMB: Math.max(0, peakKB * 1024 - before.rss) / MB,
    peakFrom: reset ? 'VmHWM reset before the fetch' : 'maxRSS since the process started',
    heapBeforeMB: before.heapUsed / MB,
    heapAfterMB: after.heapUsed / MB,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs,
  })}\n`,
);
