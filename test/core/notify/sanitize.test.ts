import { describe, expect, it } from 'vitest';
import { cleanReportText, cleanSubjectText, redactCredentials } from '../../../src/core/notify/sanitize.ts';

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

describe('Function: redactCredentials', () => {
  it.each([
    ['user and password', 'https://ops:s3cret@web-1/server-status', 'https://ops:***@web-1/server-status'],
    ['token as user', 'http://tok3n@web-1:8080/x', 'http://***@web-1:8080/x'],
    ['inside a sentence', 'GET https://a:b@h/ failed; retry', 'GET https://a:***@h/ failed; retry'],
    ['two URLs', 'http://a:b@h1/ and http://c:d@h2', 'http://a:***@h1/ and http://c:***@h2'],
    ['@ in the path is not userinfo', 'https://web-1/u@x', 'https://web-1/u@x'],
    ['@ in the query is not userinfo', 'https://web-1?to=a@b', 'https://web-1?to=a@b'],
    ['password with @', 'https://u:p@ss@host/', 'https://u:***@host/'],
    ['no URL', 'user:pass@host', 'user:pass@host'],
    ['quoted URL', '"https://u:p@h"', '"https://u:***@h"'],
  ])('%s', (_, input, expected) => {
    expect(redactCredentials(input)).toBe(expected);
  });
});
