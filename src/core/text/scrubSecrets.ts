/**
 * A fetcher's own credentials scrubbed from whatever it hands on. A server that echoes the request
 * (a debug endpoint, a proxy's or a WAF's error page) echoes `Authorization: Basic <token>`, and
 * the body's start is quoted in a failure detail, then in pages, logs and state. Unlike
 * `redactCredentials`, which finds credentials by their place in a URL, this knows the secret and
 * looks for it in every form it can take in a response:
 *
 * - the Base64 Basic token, whole, and any piece of it that decodes to more than half of the
 *   password's bytes (a prefix, as a quote cut short leaves; or a piece cut at any offset, which
 *   decodes once its alignment is guessed), of at least `MIN_TOKEN_PIECE_CHARS`;
 * - the password as is, as UTF-8 read as latin1 (how the fetcher decodes a body), percent-encoded
 *   (`encodeURIComponent`, the userinfo form the URL parser writes, a form's `+` for a space; upper-case
 *   hex, as all three write it), JSON- and HTML-escaped, when it has at least
 *   `MIN_SCRUBBED_PASSWORD_CHARS` characters (`user:password` then reads `user:***`);
 * - a shorter password only within `user:password`, in the same spellings: alone it would hide
 *   every `pw` or `42` of a page.
 *
 * Each form is found with `indexOf` (the token's pieces through one seed of it, each match
 * extended as far as it follows the token); the spans found are joined and each replaced by `***`.
 * The text may be untrusted: no regex is built from it.
 */

/** Credentials as the fetcher sends them (Basic auth). */
interface BasicCredentials {
  username: string;
  password: string;
}

/** What a scrubbed secret becomes. */
const SCRUBBED = '***';

/** The password alone is scrubbed from this length on (the token and `user:password` always). */
const MIN_SCRUBBED_PASSWORD_CHARS = 4;

/** A piece of the token shorter than this is not scrubbed: six Base64 characters carry 4.5 bytes. */
const MIN_TOKEN_PIECE_CHARS = 6;

/** The UTF-8 bytes of `text` as a latin1 string: how a body holding `text` reads once fetched. */
function utf8AsLatin1(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let out = '';
  for (const byte of bytes) out += String.fromCharCode(byte);
  return out;
}

/** `text` percent-encoded as the URL parser writes a userinfo part (`!$&'()*+,;=~` kept). */
function userinfoEncoded(text: string): string {
  const url = new URL('http://host/');
  url.password = text;
  return url.password;
}

/**
 * Every way a string may be written in a response, in a fixed order (so that a user name's and a
 * password's spellings pair up); `''` where an encoder throws (a lone surrogate has no UTF-8 form).
 * Most are the string itself for a plain password, and count once.
 */
function spellings(text: string): string[] {
  const encoders = [
    (t: string) => t,
    utf8AsLatin1,
    encodeURIComponent,
    userinfoEncoded,
    (t: string) => new URLSearchParams({ t }).toString().slice(2),
    (t: string) => JSON.stringify(t).slice(1, -1),
    (t: string) =>
      t
        .replaceAll('&', '&amp;')
        .replaceAll('<', '&lt;')
        .replaceAll('>', '&gt;')
        .replaceAll('"', '&quot;')
        .replaceAll("'", '&#39;'),
  ];
  return encoders.map((encode) => {
    try {
      return encode(text);
    } catch {
      return '';
    }
  });
}

/** Where the token's bytes lie: the user and colon first, then the password. */
interface TokenLayout {
  token: string;
  /** Bytes of `user:` before the password. */
  passwordStart: number;
  passwordBytes: number;
}

/**
 * Whether the token's characters `[a, b)` give away the password: the whole token, or a piece of
 * at least `MIN_TOKEN_PIECE_CHARS` holding all 8 bits of more than half of the password's bytes.
 * Character i carries bits 6i..6i+5, so bytes `ceil(3a/4)` up to `floor(3b/4)` are whole in it.
 */
function givesAway(layout: TokenLayout, a: number, b: number): boolean {
  if (a === 0 && b === layout.token.length) return true;
  if (layout.passwordBytes === 0 || b - a < MIN_TOKEN_PIECE_CHARS) return false;
  const end = layout.passwordStart + layout.passwordBytes;
  const whole = Math.min(Math.floor((3 * b) / 4), end) - Math.max(Math.ceil((3 * a) / 4), layout.passwordStart);
  return 2 * whole > layout.passwordBytes;
}

/**
 * The one seed of the token: every piece that gives the password away holds more than half of the
 * password's bytes in a row, so it holds the middle one or two (bytes `p - k` to `k - 1` of the
 * password, k = floor(p/2) + 1), and with them the 2 to 4 characters that carry them. Null
 * without a password: then only the whole token is a secret, found as a form.
 */
function seedOf(layout: TokenLayout): { seed: string; offset: number } | null {
  const p = layout.passwordBytes;
  if (p === 0) return null;
  const k = Math.floor(p / 2) + 1;
  const first = layout.passwordStart + p - k;
  const last = layout.passwordStart + k - 1;
  const offset = Math.floor((8 * first) / 6);
  return { seed: layout.token.slice(offset, Math.floor((8 * last + 7) / 6) + 1), offset };
}

/** Spans `[start, end)` of `text` holding a piece of the token that gives the password away. */
function tokenSpans(text: string, layout: TokenLayout, spans: [number, number][]): void {
  const found = seedOf(layout);
  if (found === null) return;
  const { seed, offset } = found;
  const { token } = layout;
  for (let hit = text.indexOf(seed); hit >= 0; ) {
    let before = 0;
    while (before < offset && before < hit && text[hit - before - 1] === token[offset - before - 1]) before++;
    let after = seed.length;
    while (offset + after < token.length && text[hit + after] === token[offset + after]) after++;
    let next = hit + 1;
    if (givesAway(layout, offset - before, offset + after)) {
      spans.push([hit - before, hit + after]);
      next = hit + after;
    }
    hit = text.indexOf(seed, next);
  }
}

/** `text` with every span replaced by `SCRUBBED`, overlapping and touching spans joined. */
function replaceSpans(text: string, spans: [number, number][]): string {
  if (spans.length === 0) return text;
  spans.sort((x, y) => x[0] - y[0]);
  let out = '';
  let copied = 0;
  for (let i = 0; i < spans.length; ) {
    const [start, first] = spans[i++] as [number, number];
    let end = first;
    while (i < spans.length && (spans[i] as [number, number])[0] <= end)
      end = Math.max(end, (spans[i++] as [number, number])[1]);
    out += `${text.slice(copied, start)}${SCRUBBED}`;
    copied = end;
  }
  return out + text.slice(copied);
}

/**
 * A scrubber for one pair of credentials: built once (its forms and its seed), then a few `indexOf`
 * scans per text. A text that holds none of them is returned as is.
 *
 * @example
 * const scrub = secretScrubber({ username: 'ops', password: 's3cret!' });
 * scrub('Authorization: Basic b3BzOnMzY3JldCE=') // 'Authorization: Basic ***'
 */
function secretScrubber(credentials: BasicCredentials): (text: string) => string {
  const { username, password } = credentials;
  const pair = `${username}:${password}`;
  const layout: TokenLayout = {
    token: btoa(utf8AsLatin1(pair)),
    passwordStart: utf8AsLatin1(`${username}:`).length,
    passwordBytes: utf8AsLatin1(password).length,
  };
  // The password's own spellings hold the pair's (`ops:***` is left of it); a short password is
  // scrubbed only as part of the pair. The token is found through its seed, or whole without a password.
  const forms = new Set<string>(password === '' ? [layout.token] : []);
  if (password.length >= MIN_SCRUBBED_PASSWORD_CHARS) for (const form of spellings(password)) forms.add(form);
  else if (password !== '') {
    for (const form of spellings(pair)) forms.add(form);
    const user = spellings(username);
    for (const [i, spelling] of spellings(password).entries()) if (spelling !== '') forms.add(`${user[i]}:${spelling}`);
  }
  forms.delete('');
  return (text: string) => {
    const spans: [number, number][] = [];
    for (const form of forms) {
      for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + form.length))
        spans.push([at, at + form.length]);
    }
    tokenSpans(text, layout, spans);
    return replaceSpans(text, spans);
  };
}

/**
 * `text` with every form of `credentials` replaced by `***` (see the module's comment for the
 * forms). Build `secretScrubber(credentials)` once to scrub many texts.
 *
 * @example
 * scrubSecrets('echo: Basic b3BzOnMzY3JldCE=, user ops:s3cret!', { username: 'ops', password: 's3cret!' })
 * // 'echo: Basic ***, user ops:***'
 */
function scrubSecrets(text: string, credentials: BasicCredentials): string {
  return secretScrubber(credentials)(text);
}

export type { BasicCredentials };
export { MIN_SCRUBBED_PASSWORD_CHARS, MIN_TOKEN_PIECE_CHARS, SCRUBBED, scrubSecrets, secretScrubber };
