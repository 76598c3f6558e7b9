import { describe, expect, it } from 'vitest';
import { plainText, renderSummary } from '../../src/cli/summary.ts';
import { parseReport } from '../../src/core/report/parse.ts';

describe('Function: renderSummary', () => {
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
});
