/**
 * Property-based tests of `parseReport`: generated reports (real 2.4.71 rows, any size, any mix of
 * modes) rendered as the HTML page, the `?auto` page and lynx dumps at 200 and 80 columns parse back
 * to what generated them; any other input gives a report or `NotAStatusReportError`, nothing else.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NotAStatusReportError } from '../../../src/core/errors.ts';
import { parseReport } from '../../../src/core/report/parse.ts';
import {
  MODE_CHARS,
  REPORT_FORMATS,
  type Slot,
  type SslCache,
  type StatusReport,
} from '../../../src/core/report/types.ts';
import { expectedReport, modelOf, placeSlot, type ReportModel, realRows } from '../../support/generate.ts';
import { renderAuto, renderHtml } from '../../support/generatePages.ts';
import { renderLynx } from '../../support/generateText.ts';

const FIXTURES = new URL('../../fixtures/apache-2.4.71/', import.meta.url);
const NUM_RUNS = 40;

/** Numbers of one slot, in the units mod_status prints them to (hundredths, tenths, integers). */
const slotNumbersArb = fc.record({
  acc: fc.tuple(fc.nat(99), fc.nat(99999), fc.nat(9999999)),
  cpu100: fc.nat(99999),
  ss: fc.nat(99999),
  reqMs: fc.nat(999999),
  durMs: fc.nat(9999999),
  conn10: fc.nat(99999),
  child100: fc.nat(9999999),
  slot100: fc.nat(9999999),
});

const slotSpecArb = fc.record({
  template: fc.nat(),
  mode: fc.constantFrom(...MODE_CHARS),
  numbers: fc.option(slotNumbersArb, { freq: 2 }),
});

const cacheArb: fc.Arbitrary<SslCache> = fc.record({
  type: fc.constant('SHMCB'),
  sharedMemoryBytes: fc.nat(99999999),
  currentEntries: fc.nat(99999),
  subcaches: fc.integer({ min: 1, max: 256 }),
  indexesPerSubcache: fc.integer({ min: 1, max: 999 }),
  indexUsagePercent: fc.nat(100),
  cacheUsagePercent: fc.nat(100),
  stored: fc.nat(),
  replaced: fc.nat(),
  expired: fc.nat(),
  discarded: fc.nat(),
  retrieveHits: fc.nat(),
  retrieveMisses: fc.nat(),
  removeHits: fc.nat(),
  removeMisses: fc.nat(),
});

type SlotSpec = typeof slotSpecArb extends fc.Arbitrary<infer T> ? T : never;

function buildSlot(spec: SlotSpec, index: number, mpm: string, threads: number): Slot {
  const rows = realRows();
  const slot = placeSlot(rows[spec.template % rows.length] as Slot, index, spec.mode, mpm, threads);
  const n = spec.numbers;
  if (n === null) return slot;
  return {
    ...slot,
    acc: [n.acc[0], n.acc[1], n.acc[2]],
    cpu: n.cpu100 / 100,
    ss: n.ss,
    reqMs: n.reqMs,
    durMs: n.durMs,
    connKB: n.conn10 / 10,
    childMB: n.child100 / 100,
    slotMB: n.slot100 / 100,
  };
}

/** Mostly small reports, sometimes a few hundred slots. */
const modelArb: fc.Arbitrary<ReportModel> = fc
  .record({
    mpm: fc.constantFrom('prefork', 'worker', 'event'),
    threads: fc.constantFrom(25, 64),
    specs: fc.oneof(
      { weight: 4, arbitrary: fc.array(slotSpecArb, { maxLength: 40 }) },
      { weight: 1, arbitrary: fc.array(slotSpecArb, { minLength: 100, maxLength: 400 }) },
    ),
    trailingDots: fc.nat(300),
    sslCache: fc.option(cacheArb),
    socache: fc.option(cacheArb, { freq: 3 }),
    host: fc.constantFrom('127.0.0.1', 'localhost', 'www.example.test', '::1'),
    version: fc.constantFrom(
      'Apache/2.4.71 (Debian) OpenSSL/3.0.19',
      'Apache/2.4.71 (Unix) OpenSSL/3.0.19 mod_fcgid/2.3.9 mod_wsgi/5.0.0 Python/3.12',
    ),
    uptime: fc.nat(400 * 86400),
    workers: fc.tuple(fc.nat(20000), fc.nat(20000), fc.nat(20000)),
  })
  .map((p) => {
    const slots = p.specs.map((spec, i) => buildSlot(spec, i, p.mpm, p.threads));
    const model = modelOf(slots, {
      mpm: p.mpm,
      trailingDots: slots.length === 0 ? p.trailingDots + 1 : p.trailingDots,
      sslCache: p.sslCache,
    });
    const [busy, idle, graceful] = p.workers;
    return {
      ...model,
      host: p.host,
      socache: p.socache,
      server: {
        ...model.server,
        version: p.version,
        uptimeSeconds: p.uptime,
        busyWorkers: busy,
        idleWorkers: idle,
        gracefulWorkers: graceful,
      },
    };
  });

const FORMS = [
  ['the HTML page', 'html', renderHtml],
  ['the ?auto page', 'auto', renderAuto],
  ['lynx -dump -width=200', 'text', (m: ReportModel) => renderLynx(m, 200)],
  ['lynx -dump (80 columns)', 'text', (m: ReportModel) => renderLynx(m, 80)],
] as const;

describe('parseReport: generated reports parse back to what generated them', () => {
  for (const [name, format, render] of FORMS) {
    it(`reads ${name}: scoreboard, counts, every slot field, server fields, sslCache`, () => {
      fc.assert(
        fc.property(modelArb, (model) => {
          // Prepare
          const text = render(model);
          // Act
          const report = parseReport(text);
          // Assess
          expect(report).toEqual(expectedReport(model, format));
        }),
        { numRuns: NUM_RUNS },
      );
    });
  }
});

/** A report has the contract's shape and its counts add up to its scoreboard. */
function assertWellFormed(report: StatusReport): void {
  expect(REPORT_FORMATS).toContain(report.format);
  expect(Object.keys(report.counts).sort()).toEqual([...MODE_CHARS].sort());
  const counted = Object.values(report.counts).reduce((a, b) => a + b, 0);
  const known = [...report.scoreboard].filter((c) => (MODE_CHARS as readonly string[]).includes(c)).length;
  expect(counted).toBe(known);
  expect(Array.isArray(report.warnings)).toBe(true);
}

/** Parse `text` (detected, then forced into each form): a report or the typed error, never another throw. */
function parsesOrRejects(text: string): void {
  for (const format of [undefined, ...REPORT_FORMATS]) {
    let report: StatusReport | null = null;
    try {
      report = parseReport(text, format === undefined ? {} : { format });
    } catch (error) {
      if (!(error instanceof NotAStatusReportError)) throw error;
    }
    if (report !== null) assertWellFormed(report);
  }
}

// Pieces of real reports, so random input reaches past format detection.
const FRAGMENTS = [
  '<title>Apache Status</title>',
  '<pre>',
  '</pre>',
  '<table border="0">',
  '</table>',
  '<tr>',
  '</tr>',
  '<th>Srv</th><th>PID</th><th>Acc</th><th>M</th>',
  '<td>',
  '</td>',
  '<b>',
  '<dt>',
  '</dt>',
  '<hr>',
  '<h2>Server Details</h2>',
  'SSL/TLS Session Cache Status:',
  'mod_cache_socache Status:',
  'cache type: <b>SHMCB</b>,',
  'Scoreboard: ',
  'Scoreboard Key:',
  'TLSSessionCacheStatus',
  'CacheType: SHMCB',
  '   Srv PID Acc M CPU SS Req Dur Conn Child Slot Client Protocol VHost',
  '   Request',
  '   0-0 16985 0/118/118 W 0.00 4 0 6 0.0 6.35 6.35 127.0.0.1 http/1.1',
  'Server Version: Apache/2.4.71',
  'Server uptime:  4 seconds',
  '28 requests currently being processed, 0 workers gracefully restarting, 5 idle workers',
  'WKW_W_CK',
  '....',
  '_',
  '\n',
  '\r',
  '\t',
  ' ',
  '&amp;',
  '&#x110000;',
  '&#99999999999;',
  ': ',
  '1.5e+6',
  '3.e+5',
  '-',
  '/',
];

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('latin1');
}

const REAL_REPORTS = [
  'prefork-busy/report.html',
  'prefork-busy/report.notable.html',
  'event-busy/report.html',
  'event-busy/report.auto.txt',
  'event-busy/report.lynx80.txt',
  'prefork-busy/report.lynx.txt',
  'noextended/report.html',
  'noextended/report.lynx80.txt',
].map((path) => readFileSync(new URL(path, FIXTURES), 'latin1'));

describe('parseReport: any other input gives a report or NotAStatusReportError, never another exception', () => {
  it('arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 400 }), parsesOrRejects), { numRuns: 300 });
  });

  it('arbitrary bytes decoded as latin1', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }).map(latin1), parsesOrRejects), { numRuns: 300 });
  });

  it('random sequences of report fragments', () => {
    const arb = fc
      .array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 8 })), { maxLength: 60 })
      .map((parts) => parts.join(''));
    fc.assert(fc.property(arb, parsesOrRejects), { numRuns: 300 });
  });

  it('real captures truncated at a random point', () => {
    const arb = fc.tuple(fc.constantFrom(...REAL_REPORTS), fc.double({ min: 0, max: 1, noNaN: true }));
    fc.assert(
      fc.property(arb, ([text, at]) => parsesOrRejects(text.slice(0, Math.floor(text.length * at)))),
      { numRuns: 120 },
    );
  });

  it('real captures with random bytes spliced in', () => {
    const arb = fc.tuple(
      fc.constantFrom(...REAL_REPORTS),
      fc.array(
        fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(40), fc.uint8Array({ maxLength: 24 }).map(latin1)),
        { minLength: 1, maxLength: 6 },
      ),
    );
    fc.assert(
      fc.property(arb, ([text, splices]) => {
        let mutated = text;
        for (const [at, removed, inserted] of splices) {
          const i = Math.floor(mutated.length * at);
          mutated = mutated.slice(0, i) + inserted + mutated.slice(i + removed);
        }
        parsesOrRejects(mutated);
      }),
      { numRuns: 120 },
    );
  });

  it('a capture cut inside its scoreboard is rejected, not half-read', () => {
    // Prepare
    const html = REAL_REPORTS[0] as string;
    const cut = html.slice(0, html.indexOf('</pre>') - 10);
    // Act
    const act = () => parseReport(cut);
    // Assess
    expect(act).toThrow(NotAStatusReportError);
  });
});
