/**
 * A small HTML tokenizer in the htmlparser2 model: one loop over `charCodeAt` with named states,
 * emitting index ranges instead of strings, so that the parser slices only what it keeps.
 * Tolerant of what browsers and old servers write: any tag case, quoted or bare attributes,
 * `<br />`, comments (IE conditional ones too), declarations, and `</td</tr>` (a tag cut by `<`).
 */
import { CharCodes } from '../charCodes.ts';

const Char = CharCodes; // a module-local binding: see charCodes.ts

/** Receives the tokens of `scanHtml`, as `[start, end)` indexes into the scanned text. */
interface ScanHandler {
  /** Text between tags (entities not decoded). */
  onText(start: number, end: number): void;
  /**
   * `<name ...>` or `<name />`; `start` is at `<`, `end` just after `>`. Returns where scanning
   * goes on: `end`, or further when the handler has read what follows itself (a slot table row).
   */
  onOpenTag(tag: number, start: number, end: number): number;
  /** `</name>`; `start` is at `<`, `end` just after `>`. */
  onCloseTag(tag: number, start: number, end: number): void;
}

// States of the scanner (plain constants: the hot loop compares them on every step).
const TEXT = 0;
const TAG_OPEN = 1; // after "<"
const TAG_NAME = 2; // start or end tag, after its first letter
const END_TAG_OPEN = 3; // after "</"
const IN_TAG = 4; // attributes, up to ">"
const MARKUP_DECLARATION = 5; // after "<!" or "<?"

// Names longer than this are no tag the parser cares about; their ids stay apart from short ones.
const MAX_NAME = 10;
const UNKNOWN_TAG = -1;

/** For each character code below 128: 1-26 for letters (any case), 27-36 for digits, 0 for anything else. */
const NAME_CODES = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const lower = c | 0x20;
  if (lower >= Char.LowerA && lower <= Char.LowerZ) NAME_CODES[c] = lower - Char.LowerA + 1;
  else if (c >= Char.Zero && c <= Char.Nine) NAME_CODES[c] = c - Char.Zero + 27;
}

/** 1-26 for letters (any case), 27-36 for digits, 0 for anything else (a table: it runs per tag character). */
function nameCode(c: number): number {
  return c < 128 ? (NAME_CODES[c] as number) : 0;
}

function isLetter(c: number): boolean {
  const lower = c | 0x20;
  return lower >= Char.LowerA && lower <= Char.LowerZ;
}

/** The numeric id `scanHtml` reports for a tag name (case-insensitive): `tagId('td')`. */
function tagId(name: string): number {
  let id = 0;
  for (let i = 0; i < name.length; i++) id = id * 37 + nameCode(name.charCodeAt(i));
  return name.length > MAX_NAME ? UNKNOWN_TAG : id;
}

// Raw text elements: their content is not markup (a "<" in a script is no tag).
const SCRIPT = tagId('script');
const STYLE = tagId('style');

/**
 * Tokenize `text`, calling `handler` for each text run and tag in order. Never throws: anything
 * that is not a tag is text, and an unterminated tag or comment at the end is dropped.
 *
 * @example
 * scanHtml('<td>1</td>', { onText: (s, e) => ..., onOpenTag: (tag) => ..., onCloseTag: (tag) => ... });
 */
function scanHtml(text: string, handler: ScanHandler): void {
  const length = text.length;
  let state: number = TEXT;
  let sectionStart = 0; // start of the current text run or tag (its "<")
  let tag = 0;
  let closing = false;
  let i = 0;
  // Each state consumes its whole run of characters before the loop switches again.
  while (i < length) {
    switch (state) {
      case TEXT: {
        // Most runs are empty (`</td><td>`) or a few characters: a plain loop beats indexOf calls.
        let end = i;
        while (end < length && text.charCodeAt(end) !== Char.Lt) end++;
        if (end > sectionStart) handler.onText(sectionStart, end);
        sectionStart = end;
        i = end + 1;
        // The usual tag (`<td>`, `</td>`: a name straight after "<" or "</") is read here, without
        // a trip through the states; anything else goes on in TAG_OPEN.
        let c = text.charCodeAt(i);
        closing = c === Char.Slash;
        if (closing) c = text.charCodeAt(++i);
        let code = nameCode(c);
        if (code === 0 || code > 26) {
          if (closing) i--;
          state = TAG_OPEN;
          break;
        }
        tag = 0;
        let nameLength = 0;
        do {
          tag = tag * 37 + code;
          nameLength++;
          c = text.charCodeAt(++i);
          code = nameCode(c);
        } while (code !== 0);
        if (nameLength > MAX_NAME) tag = UNKNOWN_TAG;
        if (c === Char.Gt) {
          i = emit(text, handler, closing, tag, sectionStart, i + 1);
          sectionStart = i;
        } else if (c === Char.Lt) {
          // "</td</tr>": the cut tag ends here and a new one starts.
          emit(text, handler, closing, tag, sectionStart, i);
          sectionStart = i++;
          state = TAG_OPEN;
        } else {
          state = IN_TAG;
        }
        break;
      }
      case TAG_OPEN: {
        const c = text.charCodeAt(i);
        if (isLetter(c)) {
          state = TAG_NAME;
          closing = false;
        } else if (c === Char.Slash) {
          state = END_TAG_OPEN;
          i++;
        } else if (c === Char.Bang || c === Char.Question) {
          state = MARKUP_DECLARATION;
          i++;
        } else {
          state = TEXT; // a lone "<" is text: the run that began at it goes on
        }
        break;
      }
      case END_TAG_OPEN: {
        const c = text.charCodeAt(i);
        if (isLetter(c)) {
          state = TAG_NAME;
          closing = true;
        } else if (c === Char.Gt) {
          sectionStart = ++i; // "</>" is nothing
          state = TEXT;
        } else {
          state = MARKUP_DECLARATION; // "</ ...>" is a bogus comment
        }
        break;
      }
      case TAG_NAME: {
        tag = 0;
        let nameLength = 0;
        let c = text.charCodeAt(i);
        for (let code = nameCode(c); code !== 0; code = nameCode(c)) {
          tag = tag * 37 + code;
          nameLength++;
          c = text.charCodeAt(++i);
        }
        if (nameLength > MAX_NAME) tag = UNKNOWN_TAG;
        if (c === Char.Gt) {
          i = emit(text, handler, closing, tag, sectionStart, i + 1);
          sectionStart = i;
          state = TEXT;
        } else if (c === Char.Lt) {
          // "</td</tr>": the cut tag ends here and a new one starts.
          emit(text, handler, closing, tag, sectionStart, i);
          sectionStart = i++;
          state = TAG_OPEN;
        } else {
          state = IN_TAG;
        }
        break;
      }
      case IN_TAG: {
        // Attributes are skipped: up to ">", jumping over quoted values.
        const c = text.charCodeAt(i);
        if (c === Char.Gt) {
          i = emit(text, handler, closing, tag, sectionStart, i + 1);
          sectionStart = i;
          state = TEXT;
        } else if (c === Char.DoubleQuote || c === Char.SingleQuote) {
          const close = text.indexOf(c === Char.DoubleQuote ? '"' : "'", i + 1);
          i = close < 0 ? length : close + 1;
        } else {
          i++;
        }
        break;
      }
      case MARKUP_DECLARATION: {
        // "<!--" runs to "-->", anything else ("<!DOCTYPE", "<![endif]>", "<?xml") to ">".
        const isComment =
          text.charCodeAt(i) === Char.Dash &&
          text.charCodeAt(i + 1) === Char.Dash &&
          text.charCodeAt(i - 1) === Char.Bang;
        const close = isComment ? text.indexOf('-->', i + 2) : text.indexOf('>', i);
        if (close < 0) return;
        i = close + (isComment ? 3 : 1);
        sectionStart = i;
        state = TEXT;
        break;
      }
    }
  }
}

/** Report one tag; returns where scanning resumes (past the content of `<script>`/`<style>`). */
function emit(text: string, handler: ScanHandler, closing: boolean, tag: number, start: number, end: number): number {
  if (closing) {
    handler.onCloseTag(tag, start, end);
    return end;
  }
  const resume = handler.onOpenTag(tag, start, end);
  return tag !== SCRIPT && tag !== STYLE ? resume : rawTextEnd(text, tag, resume);
}

/** Where the content of a `<script>` or `<style>` starting at `from` ends: its content is not markup. */
function rawTextEnd(text: string, tag: number, from: number): number {
  const close = tag === SCRIPT ? /<\/script/gi : /<\/style/gi;
  close.lastIndex = from;
  return close.exec(text)?.index ?? text.length;
}

export type { ScanHandler };
export { scanHtml, tagId };
