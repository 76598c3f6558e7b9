import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cleanConfigText,
  cleanJsonForPeople,
  cleanReportText,
  cleanSubjectText,
  cleanTerminalText,
  redactCredentials,
  urlHasCredentials,
} from '../../../src/core/text/sanitize.ts';

const page = (text: string, max?: number) => cleanReportText(text, { max, use: 'page' });
const data = (text: string, max?: number) => cleanReportText(text, { max, use: 'data' });

describe('cleanReportText: for a page', () => {
  it.each([
    // Readable text stays as it is.
    ['plain words', 'GET /index HTTP/1.1', 'GET /index HTTP/1.1'],
    ['an address and a version', '10.0.0.7 HTTP/1.1', '10.0.0.7 HTTP/1.1'],
    ['a query', '/s?a=1&b=2', '/s?a=1&b=2'],
    // Links: schemes defanged, host-like dots bracketed (a fake acknowledge link in a request line).
    [
      'a URL in a request line',
      'GET https://evil.example/oncall/ack?incident=1 HTTP/1.1',
      'GET hxxps://evil[.]example/oncall/ack?incident=1 HTTP/1.1',
    ],
    ['http in capitals', 'HTTP://EVIL.example', 'hxxp://EVIL[.]example'],
    ['another scheme', 'ftp://files.example/x', 'ftp[:]//files[.]example/x'],
    ['a scheme-less authority', '://evil', '[:]//evil'],
    ['a bare domain', 'see www.evil.example now', 'see www[.]evil[.]example now'],
    ['a vhost with a port', 'www.example.test:18120', 'www[.]example[.]test:18120'],
    ['a file name', '/page20k.html', '/page20k[.]html'],
    ['a dotted word with _', '1_.2', '1%5F[.]2'],
    // Markup: Markdown, Slack mrkdwn, HTML.
    ['emphasis and strike', '_italic_ ~strike~ *bold*', '%5Fitalic%5F %7Estrike%7E %2Abold%2A'],
    ['code', '`x` ```y```', '%60x%60 %60%60%60y%60%60%60'],
    ['a Markdown link', '[click](https://evil.example)', '%5Bclick%5D%28hxxps://evil[.]example%29'],
    ['a Slack link', '<https://evil.example|ack>', '%3Chxxps://evil[.]example%7Cack%3E'],
    ['mentions', '<!channel> @here #ops', '%3C%21channel%3E %40here %23ops'],
    ['HTML', '<script>alert(1)</script>', '%3Cscript%3Ealert%281%29%3C/script%3E'],
    // Invisible and foreign characters.
    ['a forged line', 'GET /x HTTP/1.1\r\n[FIRING critical] fake', 'GET /x HTTP/1.1%5BFIRING critical%5D fake'],
    ['an ANSI escape', '\u001b[31mred', '%5B31mred'],
    ['a bidi override', 'abc\u202Edef', 'abcdef'],
    ['a zero-width space inside a domain', 'ev\u200bil.example', 'evil[.]example'],
    ['a homoglyph domain', '\u0440\u0430ypal.com', '%D1%80%D0%B0ypal[.]com'],
    ['a full-width dot', 'evil\uff0eexample', 'evil%EF%BC%8Eexample'],
    ['non-ASCII', 'caf\u00e9', 'caf%C3%A9'],
  ])('%s', (_, input, expected) => {
    expect(page(input)).toBe(expected);
  });

  it.each([
    ['cut at the cap with an ellipsis', 'a'.repeat(100), 10, 'aaaaaaa...'],
    ['never leaves half an escape', 'aaaaa<<<<<', 9, 'aaaaa...'],
    ['never leaves half a bracket', 'evil.example', 8, 'evil...'],
    ['short text untouched', 'abc', 10, 'abc'],
  ])('%s', (_, input, max, expected) => {
    expect(page(input, max)).toBe(expected);
  });
});

describe('cleanReportText: as data', () => {
  it.each([
    ['a URL kept for machines', 'GET https://evil.example/_x_ HTTP/1.1', 'GET https://evil.example/_x_ HTTP/1.1'],
    ['line breaks and bidi stripped', 'GET /caf\u00e9\r\n\u202e', 'GET /caf\u00e9'],
    ['credentials redacted', 'https://ops:s3cret@h.example/', 'https://ops:***@h.example/'],
    ['tag characters (hidden text) stripped', 'ok\u{E0041}\u{E0042}!', 'ok!'],
    ['variation selectors stripped', 'ok\u2764\ufe0f\u{E0100}\u{E01EF}!', 'ok\u2764!'],
    ['the Arabic letter mark (bidi) and Hangul fillers stripped', 'a\u061cb\u3164c\uffa0d\u115f\u1160e', 'abcde'],
  ])('%s', (_, input, expected) => {
    expect(data(input)).toBe(expected);
  });

  it('cuts between characters, never inside a surrogate pair', () => {
    expect(data('\u{1F600}'.repeat(50), 10)).toBe(`${'\u{1F600}'.repeat(3)}...`);
  });
});

/** Runs of host characters in `text` that a client could read as a domain: dotted, ending in a label with a letter. */
function bareDomains(text: string): string[] {
  return text.split(/[^A-Za-z0-9.-]+/).filter((w) => {
    const labels = w.split('.').filter((l) => l !== '');
    return w.includes('.') && labels.length >= 2 && /[A-Za-z]/.test(labels.at(-1) ?? '');
  });
}

// Printable ASCII, without what any client reads as markup or a mention (`[` `]` only in `[.]`, `[:]`).
const MARKUP = /[<>()`*_~|{}\\"@!#]/;

describe('cleanReportText: properties', () => {
  const anyText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    // Dense in what matters: schemes, dots, markup, controls, bidi, homoglyphs.
    fc
      .array(
        fc.constantFrom(
          'https://',
          'http://',
          'HtTpS://',
          '://',
          'evil',
          'example',
          '.',
          '_',
          '~',
          '*',
          '`',
          '[',
          ']',
          '(',
          ')',
          '<',
          '>',
          '|',
          '@',
          '!',
          '#',
          ' ',
          '\r\n',
          '\u001b[1m',
          '\u202e',
          '\u200b',
          '\u0430',
          '\uff0e',
          '1',
          'u:p@',
          '\u{E0041}',
        ),
        { maxLength: 60 },
      )
      .map((parts) => parts.join('')),
  );

  it('a page shows printable ASCII only, without links, bare domains or markup, within the cap', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 4, max: 200 }), (text, max) => {
        const out = page(text, max);
        expect(out.length).toBeLessThanOrEqual(max);
        expect(out).toMatch(/^[\x20-\x7e]*$/);
        expect(out.toLowerCase()).not.toMatch(/https?:\/\//);
        expect(out.replaceAll('[.]', ' ').replaceAll('[:]', ' ')).not.toMatch(/[[\]]/);
        expect(out).not.toMatch(MARKUP);
        expect(bareDomains(out)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('data keeps the text itself, without invisible characters, within the cap', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 4, max: 200 }), (text, max) => {
        const out = data(text, max);
        expect(out.length).toBeLessThanOrEqual(max);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting they are gone
        expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/);
        expect(out).not.toMatch(/[\u{E0000}-\u{E01EF}]/u);
      }),
      { numRuns: 500 },
    );
  });

  it('plain words and numbers read the same on a page', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9 /?=&-]{0,80}$/), (text) => {
        expect(page(text)).toBe(text);
      }),
    );
  });
});

describe('cleanSubjectText', () => {
  it.each([
    ['web-1', 'web-1'],
    ['w\u00e9b\n1', 'w?b1'],
  ])('%j -> %j', (input, expected) => {
    expect(cleanSubjectText(input)).toBe(expected);
  });
});

describe('cleanConfigText', () => {
  it.each([
    ['a line break becomes a space', 'a\nb', 10, 'a b'],
    ['a hidden character becomes a space', 'a\u061cb\u3164c', 10, 'a b c'],
    ['capped', 'x'.repeat(20), 10, 'xxxxxxx...'],
  ])('%s', (_, input, max, expected) => {
    expect(cleanConfigText(input, max)).toBe(expected);
  });
});

describe('cleanJsonForPeople', () => {
  const REPORT_TEXT = { offenders: 80, down: 300 };

  it.each([
    // Report text, at any depth, cleaned for a page.
    [
      'a Slack mention in a failure detail',
      { down: { detail: '<!channel> now' } },
      { down: { detail: '%3C%21channel%3E now' } },
    ],
    [
      'a Slack link in a client name',
      { offenders: { clients: [{ name: '<https://evil.example|click>', count: 3 }] } },
      { offenders: { clients: [{ name: '%3Chxxps://evil[.]example%7Cclick%3E', count: 3 }] } },
    ],
    [
      'a Markdown link in a request, in an alert of a list',
      { alerts: [{ offenders: { oldest: [{ request: 'GET [x](https://evil.example)', ss: 4 }] } }] },
      { alerts: [{ offenders: { oldest: [{ request: 'GET %5Bx%5D%28hxxps://evil[.]example%29', ss: 4 }] } }] },
    ],
    [
      'bidi and zero-width characters',
      { down: { detail: 'abc\u202Edef\u200Bghi' } },
      { down: { detail: 'abcdefghi' } },
    ],
    [
      'each field at its own cap',
      { offenders: { modes: 'x'.repeat(100) } },
      { offenders: { modes: `${'x'.repeat(77)}...` } },
    ],
    [
      'numbers, booleans and null kept',
      { down: { n: 2, ok: false, none: null } },
      { down: { n: 2, ok: false, none: null } },
    ],
    // Every other string as data: exact but for invisible characters and credentials.
    [
      'times, fingerprints, targets and labels kept',
      { firedAt: '2026-11-22T12:00:00.000Z', target: 'web-1.example', labels: { team: 'web_ops' } },
      { firedAt: '2026-11-22T12:00:00.000Z', target: 'web-1.example', labels: { team: 'web_ops' } },
    ],
    [
      'invisible characters and URL credentials removed outside report text',
      { target: 'web\u202E-1', runbook: 'https://ops:pw@wiki.example/x' },
      { target: 'web-1', runbook: 'https://ops:***@wiki.example/x' },
    ],
    ['a long value outside report text not capped again', { summary: 'y'.repeat(900) }, { summary: 'y'.repeat(900) }],
    ['a key named like an inherited property', { constructor: 'a.b' }, { constructor: 'a.b' }],
  ])('%s', (_, input, expected) => {
    // Act
    const cleaned = cleanJsonForPeople(input, REPORT_TEXT);

    // Assess
    expect(cleaned).toEqual(expected);
  });

  it('leaves its input as it was', () => {
    // Prepare
    const input = { down: { detail: '<!channel>' } };

    // Act
    cleanJsonForPeople(input, REPORT_TEXT);

    // Assess
    expect(input).toEqual({ down: { detail: '<!channel>' } });
  });
});

describe('redactCredentials', () => {
  it.each([
    ['user and password', 'https://ops:s3cret@web-1/server-status', 'https://ops:***@web-1/server-status'],
    ['token as user', 'http://tok3n@web-1:8080/x', 'http://***@web-1:8080/x'],
    ['inside a sentence', 'GET https://a:b@h/ failed; retry', 'GET https://a:***@h/ failed; retry'],
    ['two URLs', 'http://a:b@h1/ and http://c:d@h2', 'http://a:***@h1/ and http://c:***@h2'],
    ['@ in the path is not userinfo', 'https://web-1/u@x', 'https://web-1/u@x'],
    ['@ in the query is not userinfo', 'https://web-1?to=a@b', 'https://web-1?to=a@b'],
    ['password with @', 'https://u:p@ss@host/', 'https://u:***@host/'],
    ['port after the userinfo', 'https://tok@host:8443/', 'https://***@host:8443/'],
    ['no URL', 'user:pass@host', 'user:pass@host'],
    ['quoted URL', '"https://u:p@h"', '"https://u:***@h"'],
  ])('%s', (_, input, expected) => {
    expect(redactCredentials(input)).toBe(expected);
  });

  it.each([
    // Passwords holding what a hand-written URL scanner would stop at, all valid in a URL.
    ['a quote', "https://u:p'x@h/ z", 'https://u:***@h/ z'],
    ['a double quote', 'https://u:p"x@h/', 'https://u:***@h/'],
    ['a space', 'https://u:p w@h/ z', 'https://u:***@h/ z'],
    ['a slash and a hash (does not parse: the fallback)', 'https://u:a/b#c@web-1/ x', 'https://u:***@web-1/ x'],
    ['a question mark', 'http://u:p?q@h/s failed', 'http://u:***@h/s failed'],
    ['digits then a slash (parses as a port)', 'https://u:12/x@h/', 'https://u:***@h/'],
    ['the https:/ typo', 'https:/ops:pw@web-1/s', 'https:/ops:***@web-1/s'],
    ['no scheme', '//u:p@h/', '//u:***@h/'],
    ['a leading slash (parses as an empty port)', 'https://u:/x@h/', 'https://u:***@h/'],
    ['a leading backslash', 'https://u:\\ x@h/', 'https://u:***@h/'],
    ['a hash (fallback)', 'http://ops:a#b@h/', 'http://ops:***@h/'],
    ['stops at the line end', 'http://u:p@h/\nnext http://x/y@z', 'http://u:***@h/\nnext http://x/y@z'],
  ])('a password with %s', (_, input, expected) => {
    expect(redactCredentials(input)).toBe(expected);
  });

  it('never shows a password of any printable characters, whatever surrounds it', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.stringMatching(/^[A-Za-z0-9]{1,12}$/),
        fc.stringMatching(/^[ -~]{8,24}$/).filter((p) => !p.includes('@') && p.trim() === p),
        fc.string({ maxLength: 40 }).map((s) => s.replace(/[\n\r]/g, '')),
        fc.constantFrom('https://', 'http://', 'https:/', '//'),
        (before, user, password, after, scheme) => {
          const clean = before.replace(/[\n\r]/g, '');
          const out = redactCredentials(`${clean} ${scheme}${user}:${password}@web-1.example/status ${after}`);
          // The fallback hides up to the line's last @: the host shows unless `after` holds one.
          if (!after.includes('@')) expect(out).toContain('@web-1.example/status');
          expect(out.includes(password) && !`${clean}${after}${user}`.includes(password)).toBe(false);
        },
      ),
    );
  });
});

describe('urlHasCredentials', () => {
  it.each([
    ['a plain URL', 'https://web-1/server-status?auto', false],
    ['a port', 'http://web-1:8080/server-status', false],
    ['user and password', 'https://ops:pw@web-1/server-status', true],
    ['a token', 'https://tok@web-1/', true],
    ['the https:/ typo', 'https:/ops:pw@web-1/', true],
    ['a password with a slash', 'https://ops:a/b@web-1/', true],
    ['an @ in the query (could be read as one)', 'https://web-1/s?x=a@b', true],
    ['no URL at all', 'ops:pw@web-1', false],
  ])('%s: %s', (_, url, expected) => {
    expect(urlHasCredentials(url)).toBe(expected);
  });
});

describe('cleanTerminalText', () => {
  it.each([
    ['plain text', 'Apache/2.4.71 (Unix)\tok\n', 'Apache/2.4.71 (Unix)\tok\n'],
    ['a window title (OSC, BEL)', 'Apache/2.4.71 \u001b]0;pwned\u0007(Unix)', 'Apache/2.4.71 (Unix)'],
    ['an OSC 8 hyperlink', '\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\', 'click'],
    ['a colour (SGR)', '\u001b[31;1mred\u001b[0m', 'red'],
    ['clear screen', 'a\u001b[2J\u001b[Hb', 'ab'],
    ['a private CSI', 'a\u001b[?1049hb', 'ab'],
    ['a charset escape with an intermediate', 'a\u001b(Bb', 'ab'],
    ['a single-character escape', 'a\u001bcb', 'ab'],
    ['C1 CSI', 'a\u009b31mb', 'ab'],
    ['C1 OSC ended by ST', 'a\u009d0;x\u009cb', 'ab'],
    ['a DCS string', 'a\u001bPq#0;1\u001b\\b', 'ab'],
    ['an unterminated OSC hides only its line', 'a\u001b]0;x\nb', 'a\nb'],
    ['carriage return, backspace, bell', 'a\rb\bc\u0007d', 'abcd'],
    ['DEL and other C1', 'a\u007fb\u0085c', 'abc'],
    ['bidi overrides and isolates', 'abc\u202edef\u2066g\u2069\u061c', 'abcdefg'],
    ['LRM and RLM', 'a\u200eb\u200fc', 'abc'],
    ['zero-width characters', 'ev\u200bi\u200cl\u200d\u2060\ufeff.example', 'evil.example'],
    ['tag characters', 'ok\u{E0041}\u{E0042}\u{E007F}', 'ok'],
    ['variation selectors (hidden text)', 'ok\u2764\ufe0f\u{E0100}\u{E01EF}', 'ok\u2764'],
    ['Hangul fillers', 'a\u3164b\uffa0c\u115f\u1160d', 'abcd'],
    ['line separators', 'a\u2028b\u2029c', 'abc'],
    ['non-ASCII letters are kept', 'caf\u00e9 \u4e2d', 'caf\u00e9 \u4e2d'],
    ['an emoji is kept', 'x \u{1F600}', 'x \u{1F600}'],
  ])('%s', (_, input, expected) => {
    expect(cleanTerminalText(input)).toBe(expected);
  });

  it('leaves nothing a terminal acts on, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const out = cleanTerminalText(text);
        for (const ch of out) {
          const c = ch.codePointAt(0) as number;
          const control = (c < 0x20 && c !== 0x09 && c !== 0x0a) || (c >= 0x7f && c <= 0x9f);
          const hidden =
            (c >= 0x200b && c <= 0x200f) ||
            (c >= 0x202a && c <= 0x202e) ||
            (c >= 0x2066 && c <= 0x2069) ||
            (c >= 0xfe00 && c <= 0xfe0f);
          expect([ch, control || hidden || (c >= 0xe0000 && c <= 0xe01ef)]).toEqual([ch, false]);
        }
        expect(cleanTerminalText(out)).toBe(out);
      }),
    );
  });
});
