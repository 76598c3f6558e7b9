/**
 * The fast reader of a slot table row: the rows of the plain shape mod_status prints, read from
 * the page's bytes. A busy server prints a thousand rows of some 35 tags and 15 cells, and reading
 * a byte costs a fraction of `charCodeAt` (a bare loop over the 287 KB page: 0.41 ms as bytes,
 * 0.84-1.05 ms as `charCodeAt`, against a 1 ms budget per target). Offsets are the text's because
 * only an ASCII stretch of the page is read as bytes (`asciiWindow`).
 *
 * Its contract with the reference (`referenceRow.ts`, tested as a property over generated and
 * mutated rows): where `checkRow` would not find the row clean (another tag, a sign, an entity or
 * a tag in a number, an unknown mode, a cell too many) it answers -1 and the parser reads the
 * row the usual way, warnings and all; where it answers, its cells' ranges and figures are the
 * reference's. It may also answer -1 for a clean row it does not know (`<td class=x>`).
 */
import { CharCodes, isWhitespace } from '../../charCodes.ts';
import { modeIndexOf, positionIn } from '../../common.ts';
import { CellKind } from './columns.ts';

const Char = CharCodes; // a module-local binding: see charCodes.ts
const Kind = CellKind; // the same

/** `<td nowrap>` after its `<td`. */
const NOWRAP_TAIL = Uint8Array.from(' nowrap>', (c) => c.charCodeAt(0));

/** Per cell of a row in `ranges`: start, end, runs (as `RowCells` keeps them). */
const PER_CELL = 3;

/**
 * Bytes of the page read at once: a window of the slot table, moved on as the rows are read, so a
 * page of 20,000 slots takes no copy of its size (the usual page is some 290 KB; copying it with
 * `encodeInto` costs about 0.02 ms). One buffer for the module, not one per parse: every parse and
 * every row read again runs to its end without yielding, and a quarter-megabyte allocated and
 * zeroed per page would be paid a thousand times a minute.
 */
const WINDOW = 1 << 18;
/** Room a row may need: one that does not fit in what is left of a window moves the window on. */
const ROW_ROOM = 1 << 14;
const windowBytes = new Uint8Array(WINDOW);
const encoder = new TextEncoder();

/**
 * The window of `text` from `from` on, up to `to` (byte `k` is `text[from + k]`), or null when it
 * holds a character outside ASCII (offsets would not match). The bytes are overwritten by the next
 * call: one buffer serves every parse and every row read again, each of which runs to its end
 * without yielding (they are synchronous).
 */
function asciiWindow(text: string, from: number, to = text.length): Uint8Array | null {
  const length = Math.min(to - from, WINDOW);
  const { read, written } = encoder.encodeInto(text.substring(from, from + length), windowBytes);
  return read === length && written === length ? windowBytes.subarray(0, length) : null;
}

// Written here, not imported: a one-line helper from another module called per byte was not
// inlined under tsx and cost five times the loop (measured).
function isDigit(b: number): boolean {
  return b >= Char.Zero && b <= Char.Nine;
}

/**
 * `[start, end)` as `rangeNumber` reads `digits[.digits]` (a possible number: finite, >= 0), or -1
 * for anything else (a sign, an exponent, no digit, more than 15 digits).
 */
function plainNumber(bytes: Uint8Array, start: number, end: number): number {
  let mantissa = 0;
  let scale = 1;
  let digits = 0;
  let dot = false;
  for (let i = start; i < end; i++) {
    const b = bytes[i] as number;
    if (isDigit(b)) {
      mantissa = mantissa * 10 + (b - Char.Zero);
      digits++;
      if (dot) scale *= 10;
    } else if (b === Char.Dot && !dot) dot = true;
    else return -1;
  }
  if (digits === 0 || digits > 15) return -1;
  return scale === 1 ? mantissa : mantissa / scale;
}

/** Where `numberCell` found its number, and where its dot is (-1: none). */
class NumberRead {
  start = 0;
  end = 0;
  dot = -1;
  mantissa = 0;

  /** The number read: `mantissa` scaled by the digits after the dot. */
  value(): number {
    return this.dot < 0 ? this.mantissa : this.mantissa / (POW10[this.end - this.dot - 1] as number);
  }
}
const numberRead = new NumberRead();
/**
 * 10^k for the at most 15 digits after a dot: a division by a power read, not computed per cell
 * (`10 ** k` per cell was 8.6 % of the reader's lines in a line profile).
 */
const POW10 = Float64Array.from({ length: 16 }, (_, k) => 10 ** k);

/**
 * A number's cell from just after its `<td>`: blank text, `digits[.digits]` as `plainNumber` reads
 * them (read in the same pass that finds them), blank text, `</td>`. Returns the index after
 * `</td>` (the number in `numberRead`), or -1 for any other content.
 */
function numberCell(bytes: Uint8Array, from: number): number {
  const length = bytes.length;
  let i = from;
  while (i < length && isWhitespace(bytes[i] as number)) i++;
  const start = i;
  let mantissa = 0;
  let dot = -1;
  for (; i < length; i++) {
    const b = bytes[i] as number;
    if (isDigit(b)) mantissa = mantissa * 10 + (b - Char.Zero);
    else if (b === Char.Dot && dot < 0) dot = i;
    else break;
  }
  const end = i;
  const digits = end - start - (dot < 0 ? 0 : 1);
  if (digits === 0 || digits > 15) return -1;
  while (i < length && isWhitespace(bytes[i] as number)) i++;
  const closesCell =
    i + 5 <= length &&
    bytes[i] === Char.Lt &&
    bytes[i + 1] === Char.Slash &&
    bytes[i + 2] === Char.LowerT &&
    bytes[i + 3] === Char.LowerD &&
    bytes[i + 4] === Char.Gt;
  if (!closesCell) return -1;
  numberRead.start = start;
  numberRead.end = end;
  numberRead.dot = dot;
  numberRead.mantissa = mantissa;
  return i + 5;
}

/** Whether `[start, end)` is `a/b/c` of plain numbers (`RowCells.accInto` with no warning to come). */
function plainAcc(bytes: Uint8Array, start: number, end: number): boolean {
  let slash1 = start;
  while (slash1 < end && bytes[slash1] !== Char.Slash) slash1++;
  let slash2 = slash1 + 1;
  while (slash2 < end && bytes[slash2] !== Char.Slash) slash2++;
  return (
    slash2 < end &&
    plainNumber(bytes, start, slash1) >= 0 &&
    plainNumber(bytes, slash1 + 1, slash2) >= 0 &&
    plainNumber(bytes, slash2 + 1, end) >= 0
  );
}

/** What a row gives beside its cells' ranges, for the metrics and the table-wide checks. */
class PlainRowFigures {
  /** Column M's character code. */
  mode = 0;
  /** Column SS. */
  ss = 0;
  /** The scoreboard position Srv names, or -1. */
  position = -1;
}

/**
 * Read one row from byte `from` (just after its `<tr>`) to just after its `</tr>`: each cell's
 * range (text offsets: `base` + byte index) into `ranges` from `at`, and `out`'s figures. Every
 * cell is `<td>` or `<td nowrap>`, holds text and `<b>`/`</b>` only, and a number where its column
 * wants one. Returns the byte index after `</tr>`, or -1 (with `ranges` and `out` partly written).
 */
function readPlainRow(
  text: string,
  bytes: Uint8Array,
  base: number,
  from: number,
  kinds: Uint8Array,
  ranges: Int32Array,
  at: number,
  out: PlainRowFigures,
): number {
  const width = kinds.length;
  const length = bytes.length;
  let i = from;
  for (let cell = 0; ; cell++, at += PER_CELL) {
    // `<td>`, `<td nowrap>` or, after the last cell, `</tr>`.
    if (i + 5 > length || bytes[i] !== Char.Lt) return -1;
    if (cell === width) {
      const closesRow =
        bytes[i + 1] === Char.Slash &&
        bytes[i + 2] === Char.LowerT &&
        bytes[i + 3] === Char.LowerR &&
        bytes[i + 4] === Char.Gt;
      return closesRow ? i + 5 : -1;
    }
    if (bytes[i + 1] !== Char.LowerT || bytes[i + 2] !== Char.LowerD) return -1;
    if (bytes[i + 3] === Char.Gt) i += 4;
    else if (isNowrap(bytes, i)) i += 3 + NOWRAP_TAIL.length;
    else return -1;
    const kind = kinds[cell];
    if (kind === Kind.Number || kind === Kind.Seconds) {
      i = numberCell(bytes, i);
      if (i < 0) return -1;
      ranges[at] = base + numberRead.start;
      ranges[at + 1] = base + numberRead.end;
      ranges[at + 2] = 1;
      if (kind === Kind.Seconds) out.ss = numberRead.value();
      continue;
    }
    // The cell's text runs up to its `</td>`, with `<b>` and `</b>` between them, as `RowCells.addRun` keeps them.
    let runs = 0;
    let start = 0;
    let end = 0;
    for (;;) {
      let lt = i;
      while (lt < length && bytes[lt] !== Char.Lt) lt++;
      if (lt + 5 > length) return -1;
      let s = i;
      let e = lt;
      while (s < e && isWhitespace(bytes[s] as number)) s++;
      while (e > s && isWhitespace(bytes[e - 1] as number)) e--;
      if (s < e) {
        if (runs++ === 0) start = s;
        end = e;
      }
      const b1 = bytes[lt + 1];
      const b2 = bytes[lt + 2];
      if (b1 === Char.LowerB && b2 === Char.Gt) {
        i = lt + 3;
      } else if (b1 !== Char.Slash) {
        return -1;
      } else if (b2 === Char.LowerB && bytes[lt + 3] === Char.Gt) {
        i = lt + 4;
      } else if (b2 === Char.LowerT && bytes[lt + 3] === Char.LowerD && bytes[lt + 4] === Char.Gt) {
        i = lt + 5;
        break;
      } else return -1;
    }
    ranges[at] = base + start;
    ranges[at + 1] = base + end;
    ranges[at + 2] = runs;
    if (kind === Kind.Text) continue;
    if (runs !== 1) return -1;
    if (kind === Kind.Acc) {
      if (!plainAcc(bytes, start, end)) return -1;
    } else if (kind === Kind.Pid) {
      const dash = end === start + 1 && bytes[start] === Char.Dash;
      if (!dash && plainNumber(bytes, start, end) < 0) return -1;
    } else if (kind === Kind.Mode) {
      out.mode = bytes[start] as number;
      if (end !== start + 1 || modeIndexOf(out.mode) < 0) return -1;
    } else {
      // Srv is a few characters: the text's own reader is cheap enough here.
      out.position = positionIn(text, base + start, base + end) ?? -1;
    }
  }
}

/** Just after the `<tr>` that follows byte `from` with only blank text between, or -1. */
function nextPlainRow(bytes: Uint8Array, from: number): number {
  let i = from;
  while (i < bytes.length && isWhitespace(bytes[i] as number)) i++;
  const opensRow =
    i + 4 <= bytes.length &&
    bytes[i] === Char.Lt &&
    bytes[i + 1] === Char.LowerT &&
    bytes[i + 2] === Char.LowerR &&
    bytes[i + 3] === Char.Gt;
  return opensRow ? i + 4 : -1;
}

function isNowrap(bytes: Uint8Array, at: number): boolean {
  for (let k = 0; k < NOWRAP_TAIL.length; k++) if (bytes[at + 3 + k] !== NOWRAP_TAIL[k]) return false;
  return true;
}

export { asciiWindow, nextPlainRow, PER_CELL, PlainRowFigures, ROW_ROOM, readPlainRow };
