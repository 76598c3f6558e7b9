import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findSilence, parseSilencesDocuments, SilencesValidationError } from '../../../src/core/alerts/silences.ts';

const fixture = (name: string) => ({
  source: name,
  text: readFileSync(new URL(`../../fixtures/rules/${name}`, import.meta.url), 'utf8'),
});

describe('parseSilencesDocuments', () => {
  it('reads matchers with * defaults and normalises until to UTC', () => {
    expect(parseSilencesDocuments([fixture('silences.json')])).toEqual([
      {
        source: 'silences.json',
        target: 'web-*',
        rule: 'busy-high',
        startsAt: null,
        until: '2026-11-22T14:00:00.000Z',
        comment: 'kernel upgrade on web-1..web-9',
      },
      {
        source: 'silences.json',
        target: '*',
        rule: '*',
        startsAt: null,
        until: '2026-11-22T14:00:00.000Z',
        comment: null,
      },
    ]);
  });

  it('lists every problem, each naming the silence and field', () => {
    let problems: unknown;
    try {
      parseSilencesDocuments([fixture('silences-invalid.json')]);
    } catch (error) {
      expect(error).toBeInstanceOf(SilencesValidationError);
      problems = (error as SilencesValidationError).problems;
    }
    const at = (rule: string, field: string | null, message: string) => ({
      source: 'silences-invalid.json',
      rule,
      field,
      message,
    });
    expect(problems).toEqual([
      at('#1', 'target', 'expected a name or * glob of letters, digits, . _ : - and *, found "web 1"'),
      at('#1', 'until', 'expected an ISO-8601 time with a zone, e.g. 2026-11-22T14:00:00Z, found "tomorrow"'),
      at('#2', 'until', 'expected an ISO-8601 time with a zone, e.g. 2026-11-22T14:00:00Z, found nothing'),
      at('#3', null, 'expected a silence object, found "all"'),
    ]);
  });
});

describe('findSilence', () => {
  const silences = parseSilencesDocuments([fixture('silences.json')]);

  it.each([
    ['web-3', 'busy-high', '2026-11-22T13:59:59Z', 'busy-high'],
    ['db-1', 'busy-high', '2026-11-22T13:59:59Z', '*'],
    ['db-1', 'busy-high', '2026-11-22T14:00:00Z', null],
    ['web-3', 'closing-pileup', '2026-11-22T14:00:00Z', null],
  ])('%s / %s at %s: %s', (target, rule, now, expected) => {
    expect(findSilence(silences, target, rule, new Date(now))?.rule ?? null).toBe(expected);
  });
});

describe('findSilence with startsAt (a scheduled maintenance window)', () => {
  const window = parseSilencesDocuments([
    {
      source: 'maint',
      text: JSON.stringify({
        silences: [
          {
            target: 'web-1',
            startsAt: '2026-11-22T13:00:00+01:00',
            until: '2026-11-22T13:00:00Z',
            comment: 'kernel upgrade',
          },
        ],
      }),
    },
  ]);

  it('normalises startsAt to UTC', () => {
    expect(window.map((s) => [s.startsAt, s.until])).toEqual([
      ['2026-11-22T12:00:00.000Z', '2026-11-22T13:00:00.000Z'],
    ]);
  });

  it.each([
    // before the window: not silenced
    ['2026-11-22T11:59:59Z', false],
    // from startsAt on (inclusive)
    ['2026-11-22T12:00:00Z', true],
    ['2026-11-22T12:59:59Z', true],
    // until is exclusive
    ['2026-11-22T13:00:00Z', false],
  ])('at %s silenced: %s', (now, expected) => {
    expect(findSilence(window, 'web-1', 'idle-slots-low', new Date(now)) !== undefined).toBe(expected);
  });

  it('rejects a window that ends before it starts, and a startsAt that is not a time', () => {
    const doc = {
      silences: [
        { startsAt: '2026-11-22T14:00:00Z', until: '2026-11-22T13:00:00Z' },
        { startsAt: 'now', until: '2026-11-22T13:00:00Z' },
      ],
    };
    expect(() => parseSilencesDocuments([{ source: 'm', text: JSON.stringify(doc) }])).toThrow(
      new SilencesValidationError([
        {
          source: 'm',
          rule: '#1',
          field: 'startsAt',
          message: 'expected startsAt before until (2026-11-22T13:00:00.000Z), found 2026-11-22T14:00:00.000Z',
        },
        {
          source: 'm',
          rule: '#2',
          field: 'startsAt',
          message: 'expected an ISO-8601 time with a zone, e.g. 2026-11-22T14:00:00Z, found "now"',
        },
      ]),
    );
  });
});
