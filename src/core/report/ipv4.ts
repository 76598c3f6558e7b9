/**
 * A client printed as an IPv4 address the canonical way (four decimal octets 0-255, no leading
 * zero, nothing else) as one number: the metrics count a thousand busy slots' clients per page,
 * and a number read from the page is cheaper to count by than a string sliced out of it. Two
 * canonical texts are equal exactly when their numbers are; any other text is counted as text.
 */
import { CharCodes } from './charCodes.ts';

const Char = CharCodes; // a module-local binding: see charCodes.ts

/** `[start, end)` of `text` as an address number (0 to 2^32 - 1), or -1 when it is not a canonical IPv4 address. */
function ipv4Key(text: string, start: number, end: number): number {
  let key = 0;
  let i = start;
  for (let octet = 0; octet < 4; octet++) {
    if (octet > 0) {
      if (i >= end || text.charCodeAt(i) !== Char.Dot) return -1;
      i++;
    }
    const first = i;
    let value = 0;
    while (i < end && i - first < 3) {
      const c = text.charCodeAt(i);
      if (c < Char.Zero || c > Char.Nine) break;
      value = value * 10 + (c - Char.Zero);
      i++;
    }
    const digits = i - first;
    if (digits === 0 || value > 255 || (digits > 1 && text.charCodeAt(first) === Char.Zero)) return -1;
    key = key * 256 + value;
  }
  return i === end ? key : -1;
}

export { ipv4Key };
