import { describe, expect, it } from 'vitest';
import { MIN_TOKEN_PIECE_CHARS, SCRUBBED, scrubSecrets, secretScrubber } from '../../../src/core/text/scrubSecrets.ts';

const OPS = { username: 'ops', password: 's3cret-Pa55' };
// base64('ops:s3cret-Pa55'): 4 bytes of 'ops:', then the password's 11.
const TOKEN = 'b3BzOnMzY3JldC1QYTU1';

describe('scrubSecrets', () => {
  it('spells the token as the fetcher sends it', () => {
    expect(Buffer.from('ops:s3cret-Pa55').toString('base64')).toBe(TOKEN);
  });

  it.each([
    // The token, whole and in pieces.
    ['an echoed Authorization header', `Authorization: Basic ${TOKEN}\r\n`, 'Authorization: Basic ***\r\n'],
    ['the token twice in a row', `${TOKEN}${TOKEN}`, '***'],
    ['the token between words', `auth=${TOKEN}; x`, 'auth=***; x'],
    // 14 characters hold 10 whole bytes: 'ops:' and 6 of the password's 11.
    ['a 14-character prefix (6 of 11 password bytes)', `quote: ${TOKEN.slice(0, 14)}`, 'quote: ***'],
    // 13 characters hold 9 whole bytes: 5 of the password's 11, not more than half.
    ['a 13-character prefix (5 of 11) stays', `quote: ${TOKEN.slice(0, 13)}`, `quote: ${TOKEN.slice(0, 13)}`],
    ['the token from character 7 on (an odd offset)', `...${TOKEN.slice(7)}`, '...***'],
    ['characters 5 to 15 (8 password bytes)', `[${TOKEN.slice(5, 15)}]`, '[***]'],
    ['characters 9 to 17 (5 password bytes) stay', `[${TOKEN.slice(9, 17)}]`, `[${TOKEN.slice(9, 17)}]`],
    // The pair and the password.
    ['user:password: the password goes', 'login ops:s3cret-Pa55 failed', 'login ops:*** failed'],
    ['the password alone', 'password=s3cret-Pa55&x=1', 'password=***&x=1'],
    ['the password twice', 's3cret-Pa55s3cret-Pa55', '***'],
    ['nothing of it', 'Scoreboard: W_K\n', 'Scoreboard: W_K\n'],
    ['the user name alone stays', 'ops: 3 workers', 'ops: 3 workers'],
  ])('%s', (_case, text, expected) => {
    expect(scrubSecrets(text, OPS)).toBe(expected);
  });

  // '$&+,' are kept by the URL parser in a userinfo part, percent-encoded by encodeURIComponent.
  const SPECIAL = { username: 'ops', password: 'a$b&c+d,e@f g/h' };
  it.each([
    ['raw', 'a$b&c+d,e@f g/h'],
    ['encodeURIComponent', 'a%24b%26c%2Bd%2Ce%40f%20g%2Fh'],
    ['as a URL writes its userinfo', 'a$b&c+d,e%40f%20g%2Fh'],
    ['as a form writes it', 'a%24b%26c%2Bd%2Ce%40f+g%2Fh'],
    ['HTML-escaped', 'a$b&amp;c+d,e@f g/h'],
    ['the token', Buffer.from('ops:a$b&c+d,e@f g/h').toString('base64')],
  ])('a password with special characters, %s', (_case, form) => {
    expect(scrubSecrets(`<${form}>`, SPECIAL)).toBe('<***>');
    expect(scrubSecrets(`http://ops:${form}@web-1/ said ${form}.`, SPECIAL)).not.toContain(form);
  });

  it.each([
    ['regex characters', '.*+?^$[]{}()|\\', []],
    ['a quote and a backslash, JSON-escaped', 'a"b\\c-d', ['a\\"b\\\\c-d']],
    ['a quote, HTML-escaped', `x'y"<z>&!`, ['x&#39;y&quot;&lt;z&gt;&amp;!']],
  ])('a password of %s', (_case, password, forms) => {
    for (const form of [password, ...forms])
      expect(scrubSecrets(`(${form})`, { username: 'u', password })).toBe('(***)');
  });

  const UNICODE = { username: 'zoë', password: 'пароль-🔑' };
  it.each([
    ['as a string', 'пароль-🔑'],
    ['as its UTF-8 read as latin1 (a fetched body)', Buffer.from('пароль-🔑').toString('latin1')],
    ['percent-encoded', encodeURIComponent('пароль-🔑')],
    ['the pair, latin1: the password goes', Buffer.from('пароль-🔑').toString('latin1')],
    ['the token', Buffer.from('zoë:пароль-🔑').toString('base64')],
    ['the token from character 5 on', Buffer.from('zoë:пароль-🔑').toString('base64').slice(5)],
  ])('a unicode password, %s', (_case, form) => {
    expect(scrubSecrets(`[${form}]`, UNICODE)).toBe('[***]');
  });

  it.each([
    ['an empty password: the token', { username: 'ops', password: '' }, `Basic ${btoa('ops:')}`, 'Basic ***'],
    ['an empty password: "ops:" stays', { username: 'ops', password: '' }, 'ops: 3', 'ops: 3'],
    ['a 2-character password: the pair', { username: 'ops', password: 'pw' }, 'ops:pw', '***'],
    ['a 2-character password: the token', { username: 'ops', password: 'pw' }, btoa('ops:pw'), '***'],
    ['a 2-character password alone stays', { username: 'ops', password: 'pw' }, 'pw 42', 'pw 42'],
    ['a 2-character password: the pair percent-encoded', { username: 'o p', password: '@!' }, 'o%20p:%40!', '***'],
    [
      'a 2-character password: the pair as UTF-8 in latin1',
      { username: 'zoë', password: 'é' },
      Buffer.from('zoë:é').toString('latin1'),
      '***',
    ],
    ['a 3-character password alone stays', { username: 'ops', password: '123' }, 'Total: 1234', 'Total: 1234'],
    ['a 4-character password alone', { username: 'ops', password: '1234' }, 'Total: 1234', 'Total: ***'],
    ['a lone surrogate', { username: 'ops', password: 'ab\ud800cd' }, 'x ab\ud800cd y', 'x *** y'],
  ])('%s', (_case, credentials, text, expected) => {
    expect(scrubSecrets(text, credentials)).toBe(expected);
  });

  it('returns a text with nothing to scrub as it is, and scrubs many texts with one scrubber', () => {
    const scrub = secretScrubber(OPS);
    const page = 'Scoreboard: W_K\n'.repeat(1000);
    expect(scrub(page)).toBe(page);
    expect([`a ${TOKEN}`, 'b ops:s3cret-Pa55', 'c'].map(scrub)).toEqual(['a ***', 'b ops:***', 'c']);
  });

  /**
   * What a piece of the token gives away, read by decoding it as an attacker would: padded in
   * front to its alignment with two different fillers, so only bytes that both decodings agree on
   * (and that equal the sent bytes) count.
   */
  function passwordBytesRecovered(user: string, password: string, a: number, b: number): number {
    const sent = Buffer.from(`${user}:${password}`);
    const token = sent.toString('base64');
    const decode = (filler: string) => Buffer.from(filler.repeat(a % 4) + token.slice(a, b), 'base64');
    const [one, other] = [decode('A'), decode('/')];
    const first = Math.floor(a / 4) * 3;
    const passwordStart = Buffer.byteLength(`${user}:`);
    let recovered = 0;
    for (let i = 0; i < one.length; i++) {
      const at = first + i;
      if (at >= passwordStart && at < sent.length && one[i] === other[i] && one[i] === sent[at]) recovered++;
    }
    return recovered;
  }

  it.each([
    ['ops', 's3cret-Pa55'],
    ['monitoring-user', 'correct horse battery staple'],
    ['a', 'xy'],
    ['zoë', 'пароль-🔑'],
  ])(
    'scrubs every piece of the token of %s:%s that decodes to more than half of the password, and no other',
    (user, password) => {
      const token = Buffer.from(`${user}:${password}`).toString('base64');
      const passwordBytes = Buffer.byteLength(password);
      const scrub = secretScrubber({ username: user, password });
      const wrong: string[] = [];
      for (let a = 0; a < token.length; a++) {
        for (let b = a + 1; b <= token.length; b++) {
          const piece = token.slice(a, b);
          const whole = a === 0 && b === token.length;
          const givesAway = 2 * passwordBytesRecovered(user, password, a, b) > passwordBytes;
          const expected = whole || (givesAway && piece.length >= MIN_TOKEN_PIECE_CHARS) ? SCRUBBED : piece;
          const got = scrub(piece);
          if (got !== expected) wrong.push(`[${a}, ${b}) ${piece}: ${got}`);
        }
      }
      expect(wrong).toEqual([]);
    },
  );
});
