import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stepAlert } from '../../../src/core/alerts/step.ts';
import { asyncConnectionsLine } from '../../../src/core/notify/asyncConnections.ts';
import { buildNotification } from '../../../src/core/notify/build.ts';
import { parseReport } from '../../../src/core/report/parse.ts';
import type { StatusReport } from '../../../src/core/report/types.ts';
import { DEFAULT_RULES } from '../../../src/core/rules/document.ts';
import type { Rule } from '../../../src/core/rules/types.ts';
import { loadReport } from '../support/reports.ts';

const NOW = new Date('2026-11-23T12:03:00Z');
const eventClosing = (file: string): StatusReport =>
  parseReport(readFileSync(new URL(`../../fixtures/apache-2.4.71/event-closing/${file}`, import.meta.url), 'latin1'));

describe('asyncConnectionsLine', () => {
  it.each([
    [
      'the lingering-close pile-up (event-closing/report.html)',
      eventClosing('report.html'),
      'Async connections (event MPM, in no worker slot): closing 50, keep-alive 2, writing 0, wait-io 0; 54 connections in 2 processes',
    ],
    [
      'the old generation after a graceful restart (event-closing/report.graceful.auto.txt)',
      eventClosing('report.graceful.auto.txt'),
      'Async connections (event MPM, in no worker slot): closing 2, keep-alive 3, writing 0, wait-io 0; 7 connections in 3 processes, 1 of them stopping',
    ],
    [
      'a 2.4.62 page without wait-io (public ?auto)',
      parseReport(
        readFileSync(
          new URL('../../fixtures/public/auto-2.4.62-event-exton-graceful-restart.txt', import.meta.url),
          'latin1',
        ),
      ),
      'Async connections (event MPM, in no worker slot): closing 0, keep-alive 0, writing 20; 20 connections in 6 processes, 3 of them stopping',
    ],
    ['a prefork page', loadReport('prefork-busy/report.html'), null],
  ])('%s', (_name, report, expected) => {
    expect(asyncConnectionsLine(report)).toBe(expected);
  });
});

describe('buildNotification: on an event server', () => {
  it('puts the async connection counts in the page of closing-pileup, before the scoreboard', () => {
    // Prepare
    const rule = DEFAULT_RULES.find((r) => r.name === 'closing-pileup') as Rule;
    const report = eventClosing('report.html');
    const alert = stepAlert(null, { ...rule, forMs: 0 }, 'event-1', { kind: 'value', value: 50, holds: true }, NOW);
    // Act
    const n = buildNotification({
      rule,
      alert,
      reason: 'first',
      target: 'event-1',
      labels: {},
      observation: { kind: 'report', report },
      consecutiveFailures: 0,
      now: NOW,
    });
    // Assess
    const lines = n.message.split('\n');
    const at = lines.indexOf(
      'Async connections (event MPM, in no worker slot): closing 50, keep-alive 2, writing 0, wait-io 0; 54 connections in 2 processes',
    );
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^Scoreboard \(64 positions/);
  });
});
