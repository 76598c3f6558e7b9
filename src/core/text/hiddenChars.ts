/**
 * The one list of characters that show as nothing, or reorder or hide the text around them:
 * what both the sanitiser (sanitize.ts, for pages and stored data) and the terminal filter
 * (terminalText.ts) remove. One list, so that a character found to hide text is added once for
 * every reader. Controls (C0, DEL, C1) are not in it: each user treats them its own way (the
 * terminal keeps tab and line feed, and reads ESC and the C1 introducers as sequences).
 */

/** Shows as nothing, or reorders or hides text: format, bidi, zero-width and filler characters, variation selectors. */
function isHiddenChar(c: number): boolean {
  return (
    c === 0xad || // soft hyphen
    c === 0x34f || // combining grapheme joiner
    c === 0x61c || // Arabic letter mark (bidi)
    c === 0x115f ||
    c === 0x1160 || // Hangul fillers
    c === 0x180e || // Mongolian vowel separator
    (c >= 0x200b && c <= 0x200f) || // zero-width space/joiners, LRM, RLM
    (c >= 0x2028 && c <= 0x202e) || // line/paragraph separators, bidi embeddings and overrides
    (c >= 0x2060 && c <= 0x206f) || // word joiner, invisible operators, bidi isolates, deprecated format
    c === 0x3164 || // Hangul filler
    (c >= 0xfe00 && c <= 0xfe0f) || // variation selectors
    c === 0xfeff || // zero-width no-break space (BOM)
    c === 0xffa0 // halfwidth Hangul filler
  );
}

/** Tag characters and supplementary variation selectors (U+E0000-E01EF) as UTF-16: invisible text smuggled after a visible one. */
function isHiddenPair(high: number, low: number): boolean {
  return high === 0xdb40 && low >= 0xdc00 && low <= 0xddef;
}

export { isHiddenChar, isHiddenPair };
