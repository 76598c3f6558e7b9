/**
 * The "Server Details" list of a `?notable` page, read into `Slot`s. Each entry is
 * `<b>Server 0-0</b> (16985): 0|118|118 [<b>Write</b>] u0 s0 cu0 cs0\n 5 0 6(0 B|6.3 MB|6.3 MB)\n
 * <i>127.0.0.1 {GET / HTTP/1.1}</i> <i>(http/1.1)</i> <b>[www.example.test:80]</b><br />`:
 * CPU as four parts, sizes as human-readable bytes, Dur (2.4.35+) and Protocol (2.4.19+) optional.
 * Each entry runs from its `<b>Server` to its `<br` (or the next entry); its tags are dropped and
 * the text is cut into fields by `readNotableFields`, in one pass.
 */
import { CharCodes } from '../charCodes.ts';
import { decodeEntities } from '../common.ts';
import { readNotableFields, slotFromNotableEntry } from '../notableEntry.ts';
import type { Slot } from '../types.ts';

const Char = CharCodes; // a module-local binding: see charCodes.ts

// Linear: each match attempt starts at a literal "<b>", and "\s*" can only run over the whitespace
// right after that "<b>" (giving it back cannot make "S" match), so every character is read O(1) times.
const ENTRY_START = /<b>\s*Server\s/gi;

const isLetter = (c: number): boolean => (c | 0x20) >= Char.LowerA && (c | 0x20) <= Char.LowerZ;

/** Whether `<br` (any case, then no letter) starts at `i`: the end of an entry. */
function isBreak(html: string, i: number): boolean {
  return (
    (html.charCodeAt(i + 1) | 0x20) === Char.LowerB &&
    (html.charCodeAt(i + 2) | 0x20) === Char.LowerR &&
    !isLetter(html.charCodeAt(i + 3))
  );
}

/** The text of `[start, end)` up to its first `<br`, tags dropped (an unclosed tag drops the rest). */
function entryText(html: string, start: number, end: number): string {
  let out = '';
  let runStart = start;
  let i = start;
  while (i < end) {
    if (html.charCodeAt(i) !== Char.Lt) {
      i++;
      continue;
    }
    out += html.slice(runStart, i);
    if (isBreak(html, i)) return out;
    while (i < end && html.charCodeAt(i) !== Char.Gt) i++;
    runStart = ++i;
  }
  return runStart < end ? out + html.slice(runStart, end) : out;
}

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
    const end = starts[n + 1] ?? html.length;
    const fields = readNotableFields(entryText(html, start, end));
    const slot = fields === null ? null : slotFromNotableEntry(fields, warnings, decodeEntities);
    if (slot !== null) slots.push(slot);
    else {
      const entry = html.slice(start, Math.min(end, start + 80)).replace(/\s+/g, ' ');
      warnings.push(`Server Details entry ${n + 1} (${JSON.stringify(entry)}) could not be read; skipped`);
    }
  });
  return slots;
}

export { readNotableSlots };
