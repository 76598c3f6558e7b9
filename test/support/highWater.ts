/**
 * The process's resident-memory high-water mark, resettable on Linux: `/proc/self/clear_refs` 5
 * sets `VmHWM` to the current RSS, so a reading after some work is that work's own peak. Used by
 * the memory children of the benchmark and the tests (`bench/memory.ts`, `test/support/fetchPeak.ts`).
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** `VmHWM` of /proc/self/status in KB, or null where there is none. */
function highWaterKB(): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return match === null ? null : Number(match[1]);
  } catch {
    return null;
  }
}

/** Reset the high-water mark to the current RSS; false where that cannot be done. */
function resetHighWater(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return highWaterKB() !== null;
  } catch {
    return false;
  }
}

export { highWaterKB, resetHighWater };
