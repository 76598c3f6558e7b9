import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { plainText, renderSummary } from '../../src/cli/summary.ts';
import { parseReport } from '../../src/core/report/parse.ts';

describe('renderSummary', () => {
  it('renders a 20,000,000-position scoreboard without a recursion limit, the map cut at 16,384 positions', () => {
    // Prepare: a real ?auto report, its scoreboard and counts replaced by a 20 MB one (one busy in ten),
    // as a 20 MB Scoreboard line parses to; the parser's own time on such a line is not this test's.
    const small = parseReport('Total Accesses: 1\nBusyWorkers: 1\nIdleWorkers: 9\nScoreboard: _________W\n');
    const scoreboard = '_________W'.repeat(2_000_000);
    const report = { ...small, scoreboard, counts: { ...small.counts, _: 18_000_000, W: 2_000_000 } };
    // Act
    const out = plainText(renderSummary(report));
    // Assess
    expect(out).toContain('Scoreboard (20000000 positions)');
    expect(out).toContain('\n  16320  _________W_________W');
    expect(out).toContain('\n  ... 19983616 more positions (the counts below include them; --json has all)\n');
    expect(out).toContain('\n  W  2000000   10.0%  sending reply\n');
    expect(out.split('\n')).toHaveLength(272);
  });

  it('draws every position of a scoreboard that fits, with no cut line', () => {
    const report = parseReport(`Scoreboard: ${'_'.repeat(16_384)}\n`);
    const out = plainText(renderSummary(report));
    expect(out).toContain('\n  16320  ____');
    expect(out).not.toContain('more positions');
  });

  it("shows the event MPM's connection figures and process table; a prefork report has neither", () => {
    // Prepare: the real event-busy capture (3 processes, 52 connections) and a prefork one
    const read = (name: string) =>
      parseReport(readFileSync(new URL(`../fixtures/apache-2.4.71/${name}`, import.meta.url), 'latin1'));

    // Act
    const event = plainText(renderSummary(read('event-busy/report.late.html')));
    const prefork = plainText(renderSummary(read('prefork-busy/report.html')));

    // Assess
    expect(event).toContain(
      [
        'Connections (event MPM, held by the listener in no worker slot)',
        '  total 52; async: closing 4, keep-alive 0, writing 0, wait-io 0',
        '  processes 3, stopping 0',
        '',
        'Processes (3)',
        '  slot    pid  stopping  conns  accepting  busy  graceful  idle  wait-io  writing  keep-alive  closing',
        '     0  18693        no     21        yes    18         0     7        0        0           0        1',
        '     1  18699        no     31        yes    13         0    12        0        0           0        3',
        '     2  18911        no      0        yes    17         0     8        0        0           0        0',
      ].join('\n'),
    );
    expect(prefork).not.toContain('Connections (event MPM');
    expect(prefork).not.toContain('Processes (');
  });
});
