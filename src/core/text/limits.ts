/**
 * SNS limits, measured the way SNS counts them. A publish with `MessageStructure: json` sends one
 * JSON envelope holding every variant (text for e-mail and SMS, JSON for machines, Chatbot's
 * format), each a JSON string inside it, and the whole request (envelope, subject and message
 * attributes) must stay under 256 KB. So sizes here are UTF-8 bytes of text as it appears inside a
 * JSON string, escapes included; budgets per variant are in `src/core/constants.ts`.
 */

const Escapes = {
  Quote: 0x22,
  Backslash: 0x5c,
  Backspace: 0x08,
  Tab: 0x09,
  LineFeed: 0x0a,
  FormFeed: 0x0c,
  CarriageReturn: 0x0d,
} as const;

const SHORT_ESCAPES: ReadonlySet<number> = new Set(Object.values(Escapes));

/** Bytes of the UTF-16 unit at `i` (and its pair), as JSON.stringify writes it, encoded as UTF-8. */
function unitBytes(text: string, i: number): { bytes: number; units: number } {
  const c = text.charCodeAt(i);
  if (c < 0x20) return { bytes: SHORT_ESCAPES.has(c) ? 2 : 6, units: 1 };
  if (c === Escapes.Quote || c === Escapes.Backslash) return { bytes: 2, units: 1 };
  if (c < 0x80) return { bytes: 1, units: 1 };
  if (c < 0x800) return { bytes: 2, units: 1 };
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = text.charCodeAt(i + 1);
    // A pair is one 4-byte code point; a lone surrogate is written as `\udxxx`.
    return next >= 0xdc00 && next <= 0xdfff ? { bytes: 4, units: 2 } : { bytes: 6, units: 1 };
  }
  if (c >= 0xdc00 && c <= 0xdfff) return { bytes: 6, units: 1 };
  return { bytes: 3, units: 1 };
}

/**
 * UTF-8 bytes `text` takes inside a JSON string, without the quotes.
 *
 * @example
 * jsonStringBytes('a"\n\u00e9') // 1 + 2 + 2 + 2 = 7
 */
function jsonStringBytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const u = unitBytes(text, i);
    bytes += u.bytes;
    i += u.units;
  }
  return bytes;
}

/** Bytes a JSON payload takes as a JSON string inside the SNS envelope (the measure of MAX_PAYLOAD_BYTES). */
function payloadBytes(payload: Record<string, unknown>): number {
  return jsonStringBytes(JSON.stringify(payload));
}

/** How many UTF-16 units of `text` fit in `maxBytes` (never half a surrogate pair). */
function fittingUnits(text: string, maxBytes: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const u = unitBytes(text, i);
    if (bytes + u.bytes > maxBytes) break;
    bytes += u.bytes;
    i += u.units;
  }
  return i;
}

/**
 * `text` within `maxBytes` (as measured by `jsonStringBytes`), cut text ending in `marker`.
 *
 * @example
 * fitText('x'.repeat(100), 20) // 'xxxxxxxxxxxxxxxxx...'
 */
function fitText(text: string, maxBytes: number, marker = '...'): string {
  if (fittingUnits(text, maxBytes) === text.length) return text;
  const room = Math.max(maxBytes - jsonStringBytes(marker), 0);
  return `${text.slice(0, fittingUnits(text, room))}${marker}`;
}

/**
 * Lines that fit `maxBytes` once joined with `\n` into one JSON string; when some do not, as many
 * as fit followed by one line `... and N more <what>`. Lines are kept whole, in order.
 *
 * @example
 * fitLines(problems.map((p) => `  - ${p}`), 16_384, 'problems') // [..., '  ... and 5402 more problems']
 */
function fitLines(lines: readonly string[], maxBytes: number, what = 'lines'): string[] {
  const newline = 2; // `\n` inside a JSON string
  let total = -newline;
  for (const line of lines) total += jsonStringBytes(line) + newline;
  if (total <= maxBytes) return [...lines];
  // The tail line is at most this long (`  ... and 9007199254740991 more ` + what).
  const tailBytes = 40 + jsonStringBytes(what);
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const cost = jsonStringBytes(line) + newline;
    if (used + cost + tailBytes > maxBytes) break;
    kept.push(line);
    used += cost;
  }
  kept.push(`  ... and ${lines.length - kept.length} more ${what}`);
  return kept;
}

export { fitLines, fitText, jsonStringBytes, payloadBytes };
