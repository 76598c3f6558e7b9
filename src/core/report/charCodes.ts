/**
 * The character codes the report readers compare, named once (htmlparser2's `CharCodes`): the
 * readers work on `charCodeAt` and on bytes, never on one-character strings, because a busy page
 * is a quarter of a million characters read once each. Here, not in `html/`, because the
 * "Server Details" entry reader and the IPv4 key serve the text dump too.
 *
 * Each reader binds it to a module-local `const Char = CharCodes` and compares `Char.Lt`, the form
 * its codes had when its speed was measured: read through the import binding in the hot loops, the
 * 1,024-slot HTML parse measured 1.06-1.11x in one in-process A/B series (inside the machine's
 * noise in others). For A/B scripts: one that loads the parser through tsx's CommonJS transform (a
 * `.ts` file outside an ESM package) makes each imported access a getter call, 5x slower.
 */
const CharCodes = {
  Tab: 0x09, // "\t"
  Lf: 0x0a, // "\n"
  Ff: 0x0c, // "\f"
  Cr: 0x0d, // "\r"
  Space: 0x20, // " "
  Bang: 0x21, // "!"
  DoubleQuote: 0x22, // '"'
  SingleQuote: 0x27, // "'"
  OpenParen: 0x28, // "("
  CloseParen: 0x29, // ")"
  Dash: 0x2d, // "-"
  Dot: 0x2e, // "."
  Slash: 0x2f, // "/"
  Zero: 0x30, // "0"
  Nine: 0x39, // "9"
  Colon: 0x3a, // ":"
  Lt: 0x3c, // "<"
  Gt: 0x3e, // ">"
  Question: 0x3f, // "?"
  UpperS: 0x53, // "S"
  OpenBracket: 0x5b, // "["
  CloseBracket: 0x5d, // "]"
  LowerA: 0x61, // "a"
  LowerB: 0x62, // "b"
  LowerD: 0x64, // "d"
  LowerM: 0x6d, // "m"
  LowerR: 0x72, // "r"
  LowerT: 0x74, // "t"
  LowerZ: 0x7a, // "z"
  OpenBrace: 0x7b, // "{"
  Pipe: 0x7c, // "|"
  CloseBrace: 0x7d, // "}"
} as const;

/** HTML's whitespace (space, tab, LF, CR, FF), as the scanner and the row readers trim cells. */
function isWhitespace(c: number): boolean {
  // One comparison for the usual character; the five whitespace codes are all <= space.
  return (
    c <= CharCodes.Space &&
    (c === CharCodes.Space || c === CharCodes.Lf || c === CharCodes.Tab || c === CharCodes.Cr || c === CharCodes.Ff)
  );
}

export { CharCodes, isWhitespace };
