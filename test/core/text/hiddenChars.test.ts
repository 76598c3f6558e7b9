import { describe, expect, it } from 'vitest';
import { isHiddenChar, isHiddenPair } from '../../../src/core/text/hiddenChars.ts';

describe('isHiddenChar', () => {
  // Each range's ends, and the characters just outside them.
  it.each([
    ['soft hyphen', 0xad, true],
    ['combining grapheme joiner', 0x34f, true],
    ['Arabic letter mark', 0x61c, true],
    ['Hangul choseong filler', 0x115f, true],
    ['Hangul jungseong filler', 0x1160, true],
    ['Mongolian vowel separator', 0x180e, true],
    ['zero-width space', 0x200b, true],
    ['right-to-left mark', 0x200f, true],
    ['line separator', 0x2028, true],
    ['right-to-left override', 0x202e, true],
    ['word joiner', 0x2060, true],
    ['nominal digit shapes', 0x206f, true],
    ['Hangul filler', 0x3164, true],
    ['variation selector 1', 0xfe00, true],
    ['variation selector 16', 0xfe0f, true],
    ['byte order mark', 0xfeff, true],
    ['halfwidth Hangul filler', 0xffa0, true],
    ['space', 0x20, false],
    ['e with acute', 0xe9, false],
    ['hyphen', 0x2010, false],
    ['narrow no-break space', 0x202f, false],
    ['presentation form for vertical comma', 0xfe10, false],
    ['tab (a control: each user decides)', 0x09, false],
  ])('%s', (_, code, expected) => {
    expect(isHiddenChar(code)).toBe(expected);
  });
});

describe('isHiddenPair', () => {
  it.each([
    ['language tag', '\u{E0001}', true],
    ['cancel tag', '\u{E007F}', true],
    ['variation selector 17', '\u{E0100}', true],
    ['variation selector 256', '\u{E01EF}', true],
    ['past the variation selectors', '\u{E01F0}', false],
    ['an emoji', '\u{1F600}', false],
  ])('%s: %s', (_, pair, expected) => {
    expect(isHiddenPair(pair.charCodeAt(0), pair.charCodeAt(1))).toBe(expected);
  });
});
