/**
 * Text made safe for a terminal: what a hostile status page (its version string, times, request
 * lines) or a careless argument puts in front of a person must not retitle the window, clear the
 * screen, colour or hide text, plant a hyperlink (OSC 8) or reorder what is read. One scan over
 * character codes with named states, as the report scanner: escape sequences (ESC and the C1
 * introducers, with their parameters and strings) are dropped whole, other C0/C1 controls and the
 * hidden characters (hiddenChars.ts: bidi, zero-width, tag characters, ...) dropped; line feeds and
 * tabs kept.
 */
import { isHiddenChar, isHiddenPair } from './hiddenChars.ts';

const CharCodes = {
  Bel: 0x07,
  Tab: 0x09,
  Newline: 0x0a,
  Esc: 0x1b,
  Space: 0x20,
  Slash: 0x2f,
  At: 0x40,
  LeftBracket: 0x5b,
  Backslash: 0x5c,
  RightBracket: 0x5d,
  Tilde: 0x7e,
  Del: 0x7f,
  Dcs: 0x90,
  Sos: 0x98,
  Csi: 0x9b,
  St: 0x9c,
  Osc: 0x9d,
  Pm: 0x9e,
  Apc: 0x9f,
} as const;

/** Where the scan is: plain text, after ESC, in a control sequence, in a control string (OSC, DCS, ...), or after ESC inside one. */
const States = { text: 0, escape: 1, csi: 2, string: 3, stringEscape: 4 } as const;
type State = (typeof States)[keyof typeof States];

/** After ESC, the byte that opens a control string: P (DCS), X (SOS), ] (OSC), ^ (PM), _ (APC). */
const STRING_OPENERS: ReadonlySet<number> = new Set([0x50, 0x58, CharCodes.RightBracket, 0x5e, 0x5f]);
/** C1 controls that open a control string. */
const C1_STRING_OPENERS: ReadonlySet<number> = new Set([
  CharCodes.Dcs,
  CharCodes.Sos,
  CharCodes.Osc,
  CharCodes.Pm,
  CharCodes.Apc,
]);

/** C0 controls but tab and line feed, DEL, C1 controls: dropped where they do not open a sequence. */
function isControl(c: number): boolean {
  return (c < CharCodes.Space && c !== CharCodes.Tab && c !== CharCodes.Newline) || (c >= CharCodes.Del && c <= 0x9f);
}

/** The state after ESC and `c`. */
function afterEscape(c: number): State {
  if (c === CharCodes.LeftBracket) return States.csi;
  if (STRING_OPENERS.has(c)) return States.string;
  // ESC then intermediates (0x20-0x2F) then a final byte: the intermediates stay in the escape.
  return c >= CharCodes.Space && c <= CharCodes.Slash ? States.escape : States.text;
}

/**
 * `text` without anything a terminal would act on rather than draw. A control string (OSC, DCS,
 * ...) ends at BEL or ST, or at the end of its line (the line feed kept), so an unterminated one
 * hides no more than its line. Linear in the input.
 *
 * @example
 * cleanTerminalText('Apache/2.4.71 \u001b]0;pwned\u0007(Unix)')                 // 'Apache/2.4.71 (Unix)'
 * cleanTerminalText('\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\') // 'click'
 * cleanTerminalText('abc\u202Edef\u200Bghi')                                     // 'abcdefghi'
 */
function cleanTerminalText(text: string): string {
  let out = '';
  let copied = 0;
  let state: State = States.text;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (state === States.text) {
      const pair = isHiddenPair(c, text.charCodeAt(i + 1));
      if (!pair && !isControl(c) && !isHiddenChar(c)) continue;
      out += text.slice(copied, i);
      if (pair) i++;
      else if (c === CharCodes.Esc) state = States.escape;
      else if (c === CharCodes.Csi) state = States.csi;
      else if (C1_STRING_OPENERS.has(c)) state = States.string;
      copied = i + 1;
      continue;
    }
    if (c === CharCodes.Newline) {
      // Nothing spans lines: the line feed is kept, the sequence it interrupted is over.
      state = States.text;
      copied = i;
      continue;
    }
    if (state === States.escape) state = afterEscape(c);
    else if (state === States.csi) {
      // Parameters and intermediates (0x20-0x3F) continue; a final byte (0x40-0x7E) or anything else ends it.
      if (c < CharCodes.Space || c >= CharCodes.At) state = States.text;
    } else if (state === States.string) {
      if (c === CharCodes.Bel || c === CharCodes.St) state = States.text;
      else if (c === CharCodes.Esc) state = States.stringEscape;
    } else state = c === CharCodes.Backslash ? States.text : States.string;
    copied = i + 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

export { cleanTerminalText };
