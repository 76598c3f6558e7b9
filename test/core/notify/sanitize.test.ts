import { describe, expect, it } from 'vitest';
import { cleanReportText, cleanSubjectText } from '../../../src/core/notify/sanitize.ts';

describe('Function: cleanReportText', () => {
  it.each([
    ['plain request', 'GET /page20k.html?a=1&b=2 HTTP/1.1', 'GET /page20k.html?a=1&b=2 HTTP/1.1'],
    ['forged line', 'GET /x HTTP/1.1\r\n[FIRING critical] fake', 'GET /x HTTP/1.1%5BFIRING critical%5D fake'],
    ['HTML', 'GET /<script>alert(1)</script>', 'GET /%3Cscript%3Ealert%281%29%3C/script%3E'],
    ['Markdown link', '[click](https://evil.example)', '%5Bclick%5D%28https://evil.example%29'],
    ['mention and code', '<!channel> @here `x`', '%3C%21channel%3E %40here %60x%60'],
    ['non-ASCII', 'caf\u00e9', 'caf%C3%A9'],
    ['bidi override', 'abc\u202Edef', 'abcdef'],
    ['escape sequence', '\u001b[31mred', '%5B31mred'],
  ])('%s', (_, input, expected) => {
    expect(cleanReportText(input)).toBe(expected);
  });

  it.each([
    ['cut at the cap with an ellipsis', 'a'.repeat(100), 10, 'aaaaaaa...'],
    ['never leaves half an escape', 'aaaaa<<<<<', 9, 'aaaaa...'],
    ['short text untouched', 'abc', 10, 'abc'],
  ])('%s', (_, input, max, expected) => {
    expect(cleanReportText(input, max)).toBe(expected);
  });
});

describe('Function: cleanSubjectText', () => {
  it.each([
    ['web-1', 'web-1'],
    ['w\u00e9b\n1', 'w?b1'],
  ])('%j -> %j', (input, expected) => {
    expect(cleanSubjectText(input)).toBe(expected);
  });
});
