/**
 * The "Server Details" list of a `?notable` page as a text dump prints it: entries flowed over
 * lines, `Server 0-0 (16985): 0|118|118 [Write] u0 s0 cu0 cs0 5 0 6(0 B|6.3 MB|6.3 MB) 127.0.0.1
 * {GET / HTTP/1.1} (http/1.1) [www.example.test:80]`.
 */
import { readNotableFields, slotFromNotableEntry } from './notableEntry.ts';
import type { Slot } from './types.ts';

function readEntry(entry: string, warnings: string[]): Slot | null {
  const fields = readNotableFields(entry);
  return fields === null ? null : slotFromNotableEntry(fields, warnings, (text) => text);
}

/** Read the entries from `lines[start]` until `isEnd`; unreadable entries are skipped with a warning. */
function readNotableText(
  lines: readonly string[],
  start: number,
  isEnd: (line: string) => boolean,
  warnings: string[],
): { slots: Slot[]; next: number } {
  const entries: string[] = [];
  let i = start;
  for (; i < lines.length && !isEnd(lines[i] as string); i++) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    if (/^Server \S+ \(/.test(line) || entries.length === 0) entries.push(line);
    else entries[entries.length - 1] += ` ${line}`;
  }
  const slots: Slot[] = [];
  entries.forEach((entry, n) => {
    const slot = readEntry(entry, warnings);
    if (slot !== null) slots.push(slot);
    else
      warnings.push(`Server Details entry ${n + 1} (${JSON.stringify(entry.slice(0, 80))}) could not be read; skipped`);
  });
  return { slots, next: i };
}

export { readNotableText };
