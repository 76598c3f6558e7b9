/**
 * The "Server Details" list of a `?notable` page, read into `Slot`s. Each entry is
 * `<b>Server 0-0</b> (16985): 0|118|118 [<b>Write</b>] u0 s0 cu0 cs0\n 5 0 6(0 B|6.3 MB|6.3 MB)\n
 * <i>127.0.0.1 {GET / HTTP/1.1}</i> <i>(http/1.1)</i> <b>[www.example.test:80]</b><br />`:
 * CPU as four parts, sizes as human-readable bytes, Dur (2.4.35+) and Protocol (2.4.19+) optional.
 */
import { decodeEntities } from './common.ts';
import { slotFromNotableEntry } from './notableEntry.ts';
import type { Slot } from './types.ts';

const ENTRY_START = /<b>\s*Server\s/gi;
// Sticky: matched at each entry start only, so the list is read in one pass. Groups: notableEntry.ts.
const ENTRY = new RegExp(
  [
    String.raw`<b>\s*Server\s+(\S+?)\s*</b>\s*\(([^)]*)\):\s*(\d+)\|(\d+)\|(\d+)\s*`,
    String.raw`\[(?:<b>)?([^<\]]*)(?:</b>)?\]\s*u(\S+)\s+s(\S+)\s+cu(\S+)\s+cs(\S+)\s+`,
    String.raw`(-?\d+)\s+(-?\d+)(?:\s+(-?\d+))?\s*\(([^|)]*)\|([^|)]*)\|([^|)]*)\)\s*`,
    String.raw`<i>([^<]*?)\s*\{([^<]*)\}</i>\s*(?:<i>\(([^<]*)\)</i>\s*)?<b>\[([^<]*)\]</b>`,
  ].join(''),
  'iy',
);

/**
 * Read the entries of a "Server Details" list (`html` is the page from `</h2>` to the list's end).
 * Entries that do not have the expected shape are skipped with a warning.
 */
function readNotableSlots(html: string, warnings: string[]): Slot[] {
  const slots: Slot[] = [];
  const starts: number[] = [];
  ENTRY_START.lastIndex = 0;
  for (let m = ENTRY_START.exec(html); m !== null; m = ENTRY_START.exec(html)) starts.push(m.index);
  starts.forEach((start, n) => {
    ENTRY.lastIndex = start;
    const m = ENTRY.exec(html);
    const slot = m === null ? null : slotFromNotableEntry(m, warnings, decodeEntities);
    if (slot !== null) slots.push(slot);
    else {
      const end = starts[n + 1] ?? html.length;
      const entry = html.slice(start, Math.min(end, start + 80)).replace(/\s+/g, ' ');
      warnings.push(`Server Details entry ${n + 1} (${JSON.stringify(entry)}) could not be read; skipped`);
    }
  });
  return slots;
}

export { readNotableSlots };
