/**
 * Hostile inputs for the parser: real 2.4.71 captures of every form, the places in each where an
 * attacker's payload does the most harm, and the worst cases found for each reader (payloads that
 * made a backtracking regex or a search per character quadratic). Shared by
 * test/core/report/hostile.property.test.ts (growth check) and bench/worstCase.ts (figures).
 */
import { readFileSync } from 'node:fs';

const FIXTURES = new URL('../fixtures/apache-2.4.71/', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, FIXTURES), 'latin1');

/** Real captures, and the places in each where a payload does the most harm. */
const BASES = {
  html: {
    text: read('prefork-busy/report.html'),
    anchors: ['<dt>Server uptime:', '<td nowrap>', '<pre>', 'SSL/TLS Session Cache Status:', '<body>'],
  },
  eventHtml: { text: read('event-busy/report.html'), anchors: ['<table rules="all"', '<tr><td><b>', '</pre>'] },
  notableHtml: {
    text: read('prefork-busy/report.notable.html'),
    anchors: ['<h2>Server Details</h2>', '<i>', '{', '[<b>', '(16989): '],
  },
  auto: {
    text: read('prefork-busy/report.auto.txt'),
    anchors: ['Scoreboard: ', 'Total Accesses: ', 'CacheType: ', 'TLSSessionCacheStatus\n'],
  },
  lynx80: {
    text: read('prefork-busy/report.lynx80.txt'),
    anchors: [
      'Scoreboard Key:',
      '   Srv PID',
      'Child Server number',
      'SSL/TLS Session Cache Status:',
      'Total accesses: ',
    ],
  },
  lynx200: { text: read('prefork-busy/report.lynx.txt'), anchors: ['   0-0  ', 'Scoreboard Key:', 'Srv  Child'] },
  notableText: {
    text: read('prefork-busy/report.notable.lynx.txt'),
    anchors: ['Server Details', '{GET', 'Server 4-0 '],
  },
} as const;
type BaseName = keyof typeof BASES;

const NOTABLE_HEAD_HTML = '<b>Server 0-0</b> (1): 0|1|1 [Ready] u0 s0 cu0 cs0 1 1 1(0 B|0 B|0 B) <i>';
const NOTABLE_HEAD_TEXT = 'Server 0-0 (1): 0|1|1 [Ready] u0 s0 cu0 cs0 1 1 1(0 B|0 B|0 B) ';

/** `base` with `payload` inserted right after the `anchor`-th place of interest (or at the end). */
function splice(base: BaseName, anchor: number, payload: string): string {
  const { text, anchors } = BASES[base];
  const at = anchor < anchors.length ? text.indexOf(anchors[anchor] as string) : -1;
  const index = at < 0 ? text.length : at + (anchors[anchor] as string).length;
  return text.slice(0, index) + payload + text.slice(index);
}

/** The worst cases found for each reader: [name, base, anchor, payload of about `n` characters]. */
const WORST_CASES: ReadonlyArray<readonly [string, BaseName, number, (n: number) => string]> = [
  [
    '?notable HTML: spaces inside <i>...{ (17 s at 160 KB before)',
    'notableHtml',
    0,
    (n) => `${NOTABLE_HEAD_HTML}${' '.repeat(n)}</i>`,
  ],
  ['?notable HTML: unclosed entry starts', 'notableHtml', 0, (n) => '<b>Server 1</b> ('.repeat(n / 17)],
  [
    '?notable text dump: spaces after an entry head',
    'notableText',
    0,
    (n) => `\n${NOTABLE_HEAD_TEXT}${' '.repeat(n)}x\n`,
  ],
  ['HTML: "<" run in a header <dt>', 'html', 0, (n) => '< '.repeat(n / 2)],
  ['HTML: unclosed <td in the slot table', 'html', 1, (n) => '<td'.repeat(n / 3)],
  ['HTML: tables nested n deep', 'html', 4, (n) => '<table><tr><td>'.repeat(n / 15)],
  [
    'HTML: a slot row repeated',
    'eventHtml',
    1,
    (n) => '<tr><td><b>0-0</b></td><td>1</td><td>0/0/0</td><td>W</td></tr>'.repeat(n / 60),
  ],
  ['HTML: a digit run ending in a letter in the uptime', 'html', 0, (n) => `${'9'.repeat(n)}x`],
  ['HTML: "&" run in a request cell', 'html', 1, (n) => '&a'.repeat(n / 2)],
  ['HTML: unclosed comment', 'html', 4, (n) => `<!--${' '.repeat(n)}`],
  ['?auto: one huge scoreboard line', 'auto', 0, (n) => 'W'.repeat(n)],
  ['?auto: a digit run ending in a letter', 'auto', 1, (n) => `${'1'.repeat(n)}x`],
  ['?auto: Cache lines repeated', 'auto', 3, (n) => 'CacheRetrieveHitCount: 1\n'.repeat(n / 25)],
  ['text: a legend line with a long blank run', 'lynx80', 2, (n) => `\n   PID a${' '.repeat(n)}b\n`],
  [
    'text: a slot row repeated',
    'lynx200',
    0,
    (n) => '16985 0/118/118 W 0.00 4 0 6 0.0 6.35 6.35 127.0.0.1 http/1.1\n   0-0  '.repeat(n / 70),
  ],
  ['text: one huge line of words after the table header', 'lynx80', 1, (n) => `\n   ${'Request '.repeat(n / 8)}\n`],
  ['text: blank lines', 'lynx80', 0, (n) => '\n'.repeat(n)],
  [
    'text: SSL/TLS headings repeated (100 s at 16,000 before)',
    'lynx80',
    0,
    (n) => '\nSSL/TLS Session Cache Status:'.repeat(n / 30),
  ],
];

export type { BaseName };
export { BASES, NOTABLE_HEAD_HTML, NOTABLE_HEAD_TEXT, splice, WORST_CASES };
