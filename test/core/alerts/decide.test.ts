import { describe, expect, it } from 'vitest';
import { decideNotification } from '../../../src/core/alerts/decide.ts';
import type { AlertRecord } from '../../../src/core/alerts/types.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const HOUR = 60;
const REPEAT_MS = 4 * 3_600_000;

const record = (over: Partial<AlertRecord>): AlertRecord => ({
  fingerprint: 'f',
  target: 'web-1',
  rule: 'closing-pileup',
  severity: 'warning',
  state: 'inactive',
  activeAt: null,
  firedAt: null,
  resolvedAt: null,
  lastSentAt: null,
  lastSentStatus: null,
  value: 23,
  threshold: 20,
  ...over,
});

const firing = (firedAt: number, over: Partial<AlertRecord> = {}) =>
  record({ state: 'firing', activeAt: at(firedAt - 2), firedAt: at(firedAt), ...over });

describe('decideNotification', () => {
  it.each([
    // intent: a new firing alert pages once
    ['first: newly firing, nothing sent', null, firing(2), 2, 'first'],
    ['first: firing after a silence, never sent', firing(2), firing(2), 30, 'first'],
    [
      // the first page's resolve never went out: that page still stands, a second would be a duplicate
      'none: a new episode after an unsent resolution continues the open incident',
      firing(2, { lastSentAt: at(2), lastSentStatus: 'firing' }),
      firing(50),
      50,
      'none',
    ],
    [
      'first: firing again after a sent resolution',
      record({ lastSentAt: at(10), lastSentStatus: 'resolved' }),
      firing(20),
      20,
      'first',
    ],
    // intent: a still-firing alert is not re-sent every cycle
    ['none: sent a minute ago', firing(2, { lastSentAt: at(2), lastSentStatus: 'firing' }), firing(2), 3, 'none'],
    [
      'none: just under the repeat interval',
      firing(2, { lastSentAt: at(2), lastSentStatus: 'firing' }),
      firing(2),
      2 + 4 * HOUR - 1,
      'none',
    ],
    [
      'repeat: exactly the repeat interval later',
      firing(2, { lastSentAt: at(2), lastSentStatus: 'firing' }),
      firing(2),
      2 + 4 * HOUR,
      'repeat',
    ],
    [
      'repeat: long overdue',
      firing(2, { lastSentAt: at(2), lastSentStatus: 'firing' }),
      firing(2),
      2 + 9 * HOUR,
      'repeat',
    ],
    // intent: pending never pages
    ['none: pending', null, record({ state: 'pending', activeAt: at(0) }), 1, 'none'],
    // intent: a resolution is sent only when a firing page went out
    [
      'resolved: was firing and sent',
      firing(2, { lastSentAt: at(2), lastSentStatus: 'firing' }),
      record({ resolvedAt: at(9), lastSentAt: at(2), lastSentStatus: 'firing' }),
      9,
      'resolved',
    ],
    [
      'resolved: owed since a silence, now pending again',
      record({ resolvedAt: at(9), lastSentAt: at(2), lastSentStatus: 'firing' }),
      record({ state: 'pending', activeAt: at(12), resolvedAt: at(9) }),
      12,
      'resolved',
    ],
    ['none: resolved but the firing was never sent', firing(2), record({ resolvedAt: at(9) }), 9, 'none'],
    [
      'none: resolution already sent',
      record({ resolvedAt: at(9), lastSentAt: at(9), lastSentStatus: 'resolved' }),
      record({ resolvedAt: at(9) }),
      10,
      'none',
    ],
    ['none: inactive, never active', null, record({}), 0, 'none'],
  ] as Array<[string, AlertRecord | null, AlertRecord, number, string]>)('%s', (_, prev, next, minute, expected) => {
    expect(decideNotification(prev, next, new Date(T0 + minute * 60_000), REPEAT_MS)).toBe(expected);
  });
});
