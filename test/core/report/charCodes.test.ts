/**
 * `CharCodes` (src/core/report/charCodes.ts) names each code by its character, and `isWhitespace`
 * is HTML's whitespace: the five codes the scanner and both row readers trim, nothing else.
 */
import { describe, expect, it } from 'vitest';
import { CharCodes, isWhitespace } from '../../../src/core/report/charCodes.ts';

const CHARACTERS: Readonly<Record<keyof typeof CharCodes, string>> = {
  Tab: '\t',
  Lf: '\n',
  Ff: '\f',
  Cr: '\r',
  Space: ' ',
  Bang: '!',
  DoubleQuote: '"',
  SingleQuote: "'",
  OpenParen: '(',
  CloseParen: ')',
  Dash: '-',
  Dot: '.',
  Slash: '/',
  Zero: '0',
  Nine: '9',
  Colon: ':',
  Lt: '<',
  Gt: '>',
  Question: '?',
  UpperS: 'S',
  OpenBracket: '[',
  CloseBracket: ']',
  LowerA: 'a',
  LowerB: 'b',
  LowerD: 'd',
  LowerM: 'm',
  LowerR: 'r',
  LowerT: 't',
  LowerZ: 'z',
  OpenBrace: '{',
  Pipe: '|',
  CloseBrace: '}',
};

describe('CharCodes', () => {
  it.each(Object.entries(CHARACTERS))('%s is the code of %j', (name, character) => {
    expect(CharCodes[name as keyof typeof CharCodes]).toBe(character.charCodeAt(0));
  });
});

describe('isWhitespace', () => {
  it('is true for space, tab, LF, CR and FF only, among the codes below 256', () => {
    const whitespace = Array.from({ length: 256 }, (_, c) => c).filter(isWhitespace);
    expect(whitespace).toEqual([0x09, 0x0a, 0x0c, 0x0d, 0x20]);
  });
});
