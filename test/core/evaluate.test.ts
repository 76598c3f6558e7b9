import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/core/alerts/fingerprint.ts';
import { parseSilencesDocuments, type Silence } from '../../src/core/alerts/silences.ts';
import type { EvaluateOptions, TargetState } from '../../src/core/alerts/types.ts';
import { evaluateRemovedTarget, evaluateTarget } from '../../src/core/evaluate.ts';
import { NOT_COUNTED } from '../../src/core/rules/compute.ts';
import { DEFAULT_RULES, parseRulesDocuments } from '../../src/core/rules/document.ts';
import type { Observation, Rule } from '../../src/core/rules/types.ts';
import { messageFields } from '../support/messages.ts';
import { loadReport } from './support/reports.ts';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const minute = (m: number) => new Date(T0 + m * 60_000);
const iso = (m: number) => minute(m).toISOString();

const BASE = loadReport('prefork-busy/report.html');

/** `C` = closing slots in the report; `down` = the fetch failed; `auto` = a report without a slot table. */
type Input = number | 'down' | 'auto';

function observe(input: Input): Observation {
  if (input === 'down')
    return { kind: 'down', reason: 'timeout', detail: 'no answer from http://web-1/server-status in 10 s' };
  if (input === 'auto') return { kind: 'report', report: { ...BASE, slots: null } };
  return { kind: 'report', report: { ...BASE, counts: { ...BASE.counts, C: input } } };
}

function rules(...defs: object[]): Rule[] {
  return parseRulesDocuments([{ source: 'test', text: JSON.stringify({ rules: defs }) }]);
}

const closing = (extra: object = {}) => ({
  name: 'closing',
  metric: 'slots_closing',
  op: '>=',
  threshold: 20,
  ...extra,
});

/**
 * Runs `steps` (minute, input) in order, carrying the state; returns per step the state of `watch`
 * (`-` when the target has no record of it) and the notifications as `reason rule`.
 */
function run(
  steps: Array<[number, Input]>,
  ruleSet: Rule[],
  watch: string,
  silences: Silence[] = [],
  options: Partial<EvaluateOptions> = {},
) {
  let previous: TargetState | null = null;
  return steps.map(([m, input]) => {
    const result = evaluateTarget({
      target: 'web-1',
      observation: observe(input),
      rules: ruleSet,
      silences,
      previous,
      now: minute(m),
      options,
    });
    previous = result.state;
    const alert = result.state.alerts[fingerprint('web-1', watch)];
    return [m, alert?.state ?? '-', result.notifications.map((n) => `${n.reason} ${n.rule}`)];
  });
}

describe('evaluateTarget: the alert lifecycle stepped in time', () => {
  type LifecycleCase = { case: string; rules: Rule[]; steps: Array<[number, Input]>; expected: unknown[] };
  const stepsThrough = ({ rules: ruleSet, steps, expected }: LifecycleCase) => {
    expect(run(steps, ruleSet, ruleSet[0]?.name as string)).toEqual(expected);
  };

  it.each<LifecycleCase>([
    {
      case: 'pending for 2m, fires once, repeats after 4h, resolves',
      rules: rules(closing({ for: '2m' })),
      steps: [
        [0, 23],
        [1, 25],
        [2, 23],
        [3, 30],
        [241, 23],
        [242, 23],
        [243, 3],
        [244, 3],
      ],
      expected: [
        [0, 'pending', []],
        [1, 'pending', []],
        [2, 'firing', ['first closing']],
        [3, 'firing', []],
        [241, 'firing', []],
        [242, 'firing', ['repeat closing']],
        [243, 'inactive', ['resolved closing']],
        [244, 'inactive', []],
      ],
    },
    {
      case: 'for 0s fires on the first evaluation',
      rules: rules(closing()),
      steps: [
        [0, 20],
        [1, 19],
      ],
      expected: [
        [0, 'firing', ['first closing']],
        [1, 'inactive', ['resolved closing']],
      ],
    },
  ])("fires once the condition has held for the rule's for duration: $case", stepsThrough);

  it.each<LifecycleCase>([
    {
      case: 'a pending alert that clears never pages; pending restarts from its new activeAt',
      rules: rules(closing({ for: '2m' })),
      steps: [
        [0, 23],
        [1, 3],
        [2, 23],
        [3, 23],
        [4, 23],
      ],
      expected: [
        [0, 'pending', []],
        [1, '-', []],
        [2, 'pending', []],
        [3, 'pending', []],
        [4, 'firing', ['first closing']],
      ],
    },
    {
      case: 'flapping around the threshold with for 2m never pages',
      rules: rules(closing({ for: '2m' })),
      steps: [
        [0, 23],
        [1, 3],
        [2, 23],
        [3, 3],
        [4, 23],
        [5, 3],
      ],
      expected: [
        [0, 'pending', []],
        [1, '-', []],
        [2, 'pending', []],
        [3, '-', []],
        [4, 'pending', []],
        [5, '-', []],
      ],
    },
  ])('a pending alert that clears never pages: $case', stepsThrough);

  it.each<LifecycleCase>([
    {
      case: 'flapping while firing with keepFiringFor 5m pages once, resolves 5m after it last held',
      rules: rules(closing({ keepFiringFor: '5m' })),
      steps: [
        [0, 23],
        [1, 3],
        [2, 23],
        [3, 3],
        [4, 3],
        [7, 3],
        [8, 3],
        [9, 3],
      ],
      expected: [
        [0, 'firing', ['first closing']],
        [1, 'firing', []],
        [2, 'firing', []],
        [3, 'firing', []],
        [4, 'firing', []],
        [7, 'firing', []],
        [8, 'inactive', ['resolved closing']],
        [9, 'inactive', []],
      ],
    },
    {
      case: 'a metric the report cannot give keeps the alert as it is (no spurious resolve)',
      rules: rules({ name: 'hog', metric: 'top_client_busy_slots', op: '>=', threshold: 20 }),
      steps: [
        [0, 3],
        [1, 'auto'],
        [2, 'auto'],
        [3, 3],
      ],
      expected: [
        [0, 'firing', ['first hog']],
        [1, 'firing', []],
        [2, 'firing', []],
        [3, 'firing', []],
      ],
    },
  ])('a firing alert stays firing while nothing says it is over: $case', stepsThrough);

  it('keeps a resolved alert for resolvedRetentionMs plus its group interval, then forgets it', () => {
    // (15 minutes, and 5 for its group: the resolve may still wait there; a new episode joins it)
    const steps: Array<[number, Input]> = [
      [0, 23],
      [1, 3],
      [20, 3],
      [21, 3],
    ];
    expect(run(steps, rules(closing()), 'closing')).toEqual([
      [0, 'firing', ['first closing']],
      [1, 'inactive', ['resolved closing']],
      [20, 'inactive', []],
      [21, '-', []],
    ]);
  });

  it('keeps an ungrouped resolved alert for resolvedRetentionMs only', () => {
    const steps: Array<[number, Input]> = [
      [0, 23],
      [1, 3],
      [15, 3],
      [16, 3],
    ];
    expect(run(steps, rules(closing({ groupBy: [] })), 'closing')).toEqual([
      [0, 'firing', ['first closing']],
      [1, 'inactive', ['resolved closing']],
      [15, 'inactive', []],
      [16, '-', []],
    ]);
  });

  it("a new episode stays in its alert's group while the record is kept, though groupBy changed", () => {
    const step = (c: number, ruleSet: Rule[], previous: TargetState | null, m: number) =>
      evaluateTarget({
        target: 'web-1',
        observation: observe(c),
        rules: ruleSet,
        silences: [],
        previous,
        now: minute(m),
      });
    const fired = step(23, rules(closing()), null, 0);
    const resolved = step(3, rules(closing()), fired.state, 1);
    const regrouped = rules(closing({ groupBy: ['target'] }));
    const again = step(23, regrouped, resolved.state, 2);
    expect(again.notifications.map((n) => n.group?.key)).toEqual(['{"rule":"closing"}']);
    // Once the record is gone (15 + 5 minutes after the resolve), the new groupBy applies.
    const quiet = step(3, regrouped, step(3, regrouped, again.state, 3).state, 24);
    expect(Object.keys(quiet.state.alerts)).toEqual([]);
    const later = step(23, regrouped, quiet.state, 30);
    expect(later.notifications.map((n) => n.group?.key)).toEqual(['{"target":"web-1"}']);
  });

  it('counts the repeat interval from options', () => {
    const steps: Array<[number, Input]> = [
      [0, 23],
      [29, 23],
      [30, 23],
      [60, 23],
    ];
    expect(run(steps, rules(closing()), 'closing', [], { repeatIntervalMs: 30 * 60_000 })).toEqual([
      [0, 'firing', ['first closing']],
      [29, 'firing', []],
      [30, 'firing', ['repeat closing']],
      [60, 'firing', ['repeat closing']],
    ]);
  });
});

describe('evaluateTarget: clearThreshold', () => {
  it('pages once and resolves once for closing slots swinging around the threshold', () => {
    // Act: >= 20 fires; it resolves only at or below 10
    const steps = run(
      [
        [0, 23],
        [1, 15],
        [2, 21],
        [3, 12],
        [4, 25],
        [5, 11],
        [6, 10],
        [7, 14],
      ],
      rules(closing({ clearThreshold: 10 })),
      'closing',
    );

    // Assess
    expect(steps).toEqual([
      [0, 'firing', ['first closing']],
      [1, 'firing', []],
      [2, 'firing', []],
      [3, 'firing', []],
      [4, 'firing', []],
      [5, 'firing', []],
      [6, 'inactive', ['resolved closing']],
      [7, 'inactive', []],
    ]);
  });
});

describe('evaluateTarget: silences', () => {
  const silence = (until: number, rule = 'closing') =>
    parseSilencesDocuments([
      { source: 's', text: JSON.stringify({ silences: [{ target: 'web-*', rule, until: iso(until) }] }) },
    ]);

  type SilenceCase = { case: string; silences: Silence[]; steps: Array<[number, Input]>; expected: unknown[] };

  it.each<SilenceCase>([
    {
      case: 'a firing alert held back by a silence is sent when the silence ends',
      silences: silence(5),
      steps: [
        [0, 23],
        [3, 23],
        [5, 23],
        [6, 23],
      ],
      expected: [
        [0, 'firing', []],
        [3, 'firing', []],
        [5, 'firing', ['first closing']],
        [6, 'firing', []],
      ],
    },
    {
      case: 'an episode that starts and ends inside a silence is never sent',
      silences: silence(5),
      steps: [
        [0, 23],
        [2, 3],
        [5, 3],
        [6, 23],
      ],
      expected: [
        [0, 'firing', []],
        [2, 'inactive', []],
        [5, 'inactive', []],
        [6, 'firing', ['first closing']],
      ],
    },
  ])('a matching silence holds pages back: $case', ({ silences, steps, expected }) => {
    expect(run(steps, rules(closing()), 'closing', silences)).toEqual(expected);
  });

  it.each<SilenceCase>([
    {
      case: 'a silence for another rule changes nothing',
      silences: silence(5, 'busy-*'),
      steps: [
        [0, 23],
        [1, 3],
      ],
      expected: [
        [0, 'firing', ['first closing']],
        [1, 'inactive', ['resolved closing']],
      ],
    },
  ])('a silence that does not match pages as usual: $case', ({ silences, steps, expected }) => {
    expect(run(steps, rules(closing()), 'closing', silences)).toEqual(expected);
  });

  it('the page a silence held back names it: its comment and when it ended', () => {
    // Prepare: a silence until minute 5 with a comment, over an alert firing from minute 0
    const held = parseSilencesDocuments([
      {
        source: 'maint.json',
        text: JSON.stringify({ silences: [{ rule: 'closing', until: iso(5), comment: 'kernel upgrade on web-1' }] }),
      },
    ]);
    let previous: TargetState | null = null;
    const pages = [0, 3, 5, 6].map((m) => {
      const result = evaluateTarget({
        target: 'web-1',
        observation: observe(23),
        rules: rules(closing()),
        silences: held,
        previous,
        now: minute(m),
      });
      previous = result.state;
      return {
        held: result.state.alerts[fingerprint('web-1', 'closing')]?.heldBy ?? null,
        pages: result.notifications,
      };
    });

    // Assess: held at 0 and 3, paged at 5 naming the silence, then nothing more
    expect(pages.map((p) => p.pages.length)).toEqual([0, 0, 1, 0]);
    expect(pages[0]?.held).toEqual({ source: 'maint.json', comment: 'kernel upgrade on web-1', until: iso(5) });
    expect(pages[2]?.held).toBeNull();
    expect(Object.keys((previous as TargetState | null)?.alerts[fingerprint('web-1', 'closing')] ?? {})).not.toContain(
      'heldBy',
    );
    const page = pages[2]?.pages[0];
    expect(page?.message.split('\n')).toContain(
      `Held back by a silence ("kernel upgrade on web-1", maint.json) that ended at ${iso(5)}: that is why this page arrives now`,
    );
    expect(messageFields(page?.payload).silence).toEqual({
      comment: 'kernel upgrade on web-1',
      source: 'maint.json',
      endedAt: iso(5),
    });
  });

  it('a silence lifted early: the page says when it was lifted', () => {
    // Prepare: silenced until minute 30, the silence removed at minute 4
    const held = parseSilencesDocuments([
      { source: 'maint.json', text: JSON.stringify({ silences: [{ rule: 'closing', until: iso(30) }] }) },
    ]);
    const ruleSet = rules(closing());
    const first = evaluateTarget({
      target: 'web-1',
      observation: observe(23),
      rules: ruleSet,
      silences: held,
      previous: null,
      now: minute(0),
    });
    const lifted = evaluateTarget({
      target: 'web-1',
      observation: observe(23),
      rules: ruleSet,
      silences: [],
      previous: first.state,
      now: minute(4),
    });

    // Assess
    expect(lifted.notifications[0]?.message.split('\n')).toContain(
      `Held back by a silence (no comment, maint.json) that was lifted at ${iso(4)} (set until ${iso(30)}): that is why this page arrives now`,
    );
  });

  it('an episode that ends under the silence forgets it: the next one pages plainly', () => {
    // Act: held at 0, clears at 2 under the silence, fires again at 6 after it
    const held = silence(5);
    const ruleSet = rules(closing());
    let previous: TargetState | null = null;
    const results = (
      [
        [0, 23],
        [2, 3],
        [6, 23],
      ] as Array<[number, Input]>
    ).map(([m, input]) => {
      const result = evaluateTarget({
        target: 'web-1',
        observation: observe(input),
        rules: ruleSet,
        silences: held,
        previous,
        now: minute(m),
      });
      previous = result.state;
      return result;
    });

    // Assess
    const page = results[2]?.notifications[0];
    expect(page?.reason).toBe('first');
    expect(page?.message).not.toContain('Held back by a silence');
    expect(messageFields(page?.payload).silence).toBeNull();
  });

  it('sends the resolve of a page that went out before the silence, during the silence (the contract)', () => {
    // Prepare: paged at 0; a silence arrives at 1 and lasts until 4; the problem clears at 2.
    const ruleSet = rules(closing());
    const step = (m: number, input: Input, previous: TargetState | null, silences: Silence[]) =>
      evaluateTarget({
        target: 'web-1',
        observation: observe(input),
        rules: ruleSet,
        silences,
        previous,
        now: minute(m),
      });
    const s0 = step(0, 23, null, []);
    const s2 = step(2, 3, s0.state, silence(4));
    const s3 = step(3, 3, s2.state, silence(4));
    const s4 = step(4, 3, s3.state, silence(4));

    // Assess
    expect([s0, s2, s3, s4].map((s) => s.notifications.map((n) => `${n.reason} ${n.status}`))).toEqual([
      ['first firing'],
      ['resolved resolved'],
      [],
      [],
    ]);
  });
});

describe('evaluateTarget: alerts whose rule left the configuration', () => {
  const silence = (until: number) =>
    parseSilencesDocuments([
      { source: 's', text: JSON.stringify({ silences: [{ target: 'web-*', until: iso(until) }] }) },
    ]);
  const firingState = (ruleSet: Rule[], sent = true): TargetState => {
    const s = evaluateTarget({
      target: 'web-1',
      observation: observe(23),
      rules: ruleSet,
      silences: sent ? [] : silence(60),
      previous: null,
      now: minute(0),
    }).state;
    return s;
  };
  type LeftCase = { case: string; before: Rule[]; after: Rule[]; subject: string };
  const resolvedWithCause = ({ before, after, subject }: LeftCase) => {
    const result = evaluateTarget({
      target: 'web-1',
      observation: observe(23),
      rules: after,
      silences: silence(60), // the resolve of a page that went out is sent even under a silence
      previous: firingState(before),
      now: minute(1),
    });
    expect(result.notifications.map((n) => n.subject)).toEqual([subject]);
    expect(result.notifications[0]?.payload).toMatchObject({
      status: 'resolved',
      cause: subject.slice(subject.indexOf('(') + 1, -1),
    });
    // Grouped by rule (the default): the record stays, resolved, so a return finds its group.
    expect(result.state.alerts[fingerprint('web-1', 'closing')]).toMatchObject({
      state: 'inactive',
      resolvedAt: iso(1),
      lastSentAt: iso(1),
      lastSentStatus: 'resolved',
      group: '{"rule":"closing"}',
    });
  };

  it.each<LeftCase>([
    {
      case: 'removed',
      before: rules(closing()),
      after: rules({ ...closing(), name: 'other' }),
      subject: '[RESOLVED warning] web-1: closing (rule removed)',
    },
    {
      case: 'renamed (a removal plus a new rule)',
      before: rules(closing()),
      after: rules(closing({ name: 'closing-renamed', threshold: 99 })),
      subject: '[RESOLVED warning] web-1: closing (rule removed)',
    },
  ])(
    'a rule gone from the rules, $case: resolved with a page saying why; kept resolved while its group may hold the page',
    resolvedWithCause,
  );

  it.each<LeftCase>([
    {
      case: 'narrowed so it no longer matches',
      before: rules(closing()),
      after: rules(closing({ targets: ['db-*'] })),
      subject: '[RESOLVED warning] web-1: closing (rule no longer applies to this target)',
    },
  ])(
    'a rule still there but not for this target, $case: resolved with a page saying why; kept resolved while its group may hold the page',
    resolvedWithCause,
  );

  it.each<[string, object, number, string | undefined]>([
    ['grouped, within the longest group interval plus the retention (5m + 15m)', {}, 20, 'inactive'],
    ['grouped, past it', {}, 21, undefined],
    ['one page per alert (groupBy []): dropped at once', { groupBy: [] }, 1, undefined],
  ])('the record of a removed rule: %s', (_, grouping, at, kept) => {
    let previous: TargetState | null = firingState(rules(closing(grouping)));
    for (const m of [1, at]) {
      previous = evaluateTarget({
        target: 'web-1',
        observation: observe(23),
        rules: rules({ ...closing(grouping), name: 'other' }),
        silences: [],
        previous,
        now: minute(m),
      }).state;
    }
    expect(previous?.alerts[fingerprint('web-1', 'closing')]?.state).toBe(kept);
  });

  it('a rule narrowed away and back within its group interval: the new episode pages through the old group', () => {
    const narrowed = evaluateTarget({
      target: 'web-1',
      observation: observe(23),
      rules: rules(closing({ targets: ['db-*'] })),
      silences: [],
      previous: firingState(rules(closing())),
      now: minute(1),
    });
    const back = evaluateTarget({
      target: 'web-1',
      observation: observe(23),
      rules: rules(closing({ groupBy: [] })), // and regrouped: one page per alert
      silences: [],
      previous: narrowed.state,
      now: minute(2),
    });
    expect(back.notifications.map((n) => [n.subject, n.group?.key])).toEqual([
      ['[FIRING warning] web-1: closing (23 >= 20)', '{"rule":"closing"}'],
    ]);
  });

  it('a rule removed before its firing page went out (silenced) is dropped without a page', () => {
    const result = evaluateTarget({
      target: 'web-1',
      observation: observe(23),
      rules: rules({ ...closing(), name: 'other', threshold: 99 }),
      silences: [],
      previous: firingState(rules(closing()), false),
      now: minute(1),
    });
    expect(result.notifications).toEqual([]);
    expect(result.state.alerts).toEqual({}); // nothing active, nothing owed
  });

  it('the built-in target-down replaced by a rule on target_up is resolved', () => {
    let previous: TargetState | null = null;
    for (const m of [0, 1]) {
      previous = evaluateTarget({
        target: 'web-1',
        observation: observe('down'),
        rules: rules(closing()),
        silences: [],
        previous,
        now: minute(m),
      }).state;
    }
    const result = evaluateTarget({
      target: 'web-1',
      observation: observe('down'),
      rules: rules(closing(), { name: 'web-up', metric: 'target_up', op: '==', threshold: 0, severity: 'critical' }),
      silences: [],
      previous,
      now: minute(2),
    });
    expect(result.notifications.map((n) => n.subject)).toEqual([
      '[RESOLVED critical] web-1: target-down (rule removed)',
      '[FIRING critical] web-1: web-up (timeout)',
    ]);
  });

  it('a removed target: one resolve per alert whose firing page went out; the grouped records kept', () => {
    const ruleSet = rules(closing(), { ...closing(), name: 'closing-2', threshold: 1, groupBy: [] });
    const { notifications, state } = evaluateRemovedTarget(firingState(ruleSet), ruleSet, minute(5));
    expect(notifications.map((n) => n.subject)).toEqual([
      '[RESOLVED warning] web-1: closing (target removed from configuration)',
      '[RESOLVED warning] web-1: closing-2 (target removed from configuration)',
    ]);
    expect(Object.values(state?.alerts ?? {}).map((a) => [a.rule, a.state, a.lastSentStatus])).toEqual([
      ['closing', 'inactive', 'resolved'],
    ]);
    expect(state).toMatchObject({ counters: null, consecutiveFailures: 0 });
  });

  it('a removed target with nothing grouped left: no state (its item is deleted)', () => {
    const ruleSet = rules(closing({ groupBy: [] }));
    const { notifications, state } = evaluateRemovedTarget(firingState(ruleSet), ruleSet, minute(5));
    expect(notifications).toHaveLength(1);
    expect(state).toBeNull();
  });

  it('counters that are not finite are kept as null', () => {
    const report = { ...BASE, server: { ...BASE.server, totalAccesses: Number.POSITIVE_INFINITY } };
    const result = evaluateTarget({
      target: 'web-1',
      observation: { kind: 'report', report },
      rules: rules(closing()),
      silences: [],
      previous: null,
      now: minute(0),
    });
    expect(result.state.counters?.totalAccesses).toBeNull();
  });
});

describe('evaluateTarget: target down', () => {
  const ruleSet = rules(closing(), {
    name: 'target-down',
    metric: 'target_up',
    op: '==',
    threshold: 0,
    severity: 'critical',
  });

  it('pages once after downAfterFailures failures, holds the other alerts, resolves on recovery', () => {
    const steps: Array<[number, Input]> = [
      [0, 23],
      [1, 'down'],
      [2, 'down'],
      [3, 'down'],
      [4, 3],
    ];
    const down = run(steps, ruleSet, 'target-down');
    const other = run(steps, ruleSet, 'closing');
    expect(down).toEqual([
      [0, '-', ['first closing']],
      [1, '-', []],
      [2, 'firing', ['first target-down']],
      [3, 'firing', []],
      [4, 'inactive', ['resolved closing', 'resolved target-down']],
    ]);
    expect(other.map(([m, s]) => [m, s])).toEqual([
      [0, 'firing'],
      [1, 'firing'],
      [2, 'firing'],
      [3, 'firing'],
      [4, 'inactive'],
    ]);
  });

  it.each([
    [
      1,
      'down',
      1,
      [
        { rule: 'closing', reason: 'target is down (timeout); the report is needed' },
        { rule: 'target-down', reason: 'failure 1 of 2 before the target counts as down' },
      ],
    ],
    [2, 'down', 2, [{ rule: 'closing', reason: 'target is down (timeout); the report is needed' }]],
    [3, 23, 0, []],
  ] as Array<[number, Input, number, unknown[]]>)(
    'step %i (%s): %i consecutive failures, unevaluated %j',
    (m, input, failures, unevaluated) => {
      let previous: TargetState | null = null;
      let result = null;
      for (const [at, obs] of [
        [1, 'down'],
        [2, 'down'],
        [3, 23],
      ] as Array<[number, Input]>) {
        if (at > m) break;
        result = evaluateTarget({
          target: 'web-1',
          observation: observe(at === m ? input : obs),
          rules: ruleSet,
          silences: [],
          previous,
          now: minute(at),
        });
        previous = result.state;
      }
      expect(result?.state.consecutiveFailures).toBe(failures);
      expect(result?.unevaluated).toEqual(unevaluated);
    },
  );

  it('says which failure it was, and keeps the counters of the last good report', () => {
    // Prepare
    const first = evaluateTarget({
      target: 'web-1',
      observation: observe(3),
      rules: ruleSet,
      silences: [],
      previous: null,
      now: minute(0),
    });
    const second = evaluateTarget({
      target: 'web-1',
      observation: observe('down'),
      rules: ruleSet,
      silences: [],
      previous: first.state,
      now: minute(1),
    });

    // Act
    const third = evaluateTarget({
      target: 'web-1',
      labels: { env: 'prod' },
      observation: observe('down'),
      rules: ruleSet,
      silences: [],
      previous: second.state,
      now: minute(2),
      options: { downAfterFailures: 2 },
    });

    // Assess
    expect(third.state.counters).toEqual({
      totalAccesses: 149651,
      totalKBytes: 4613734,
      uptimeSeconds: 4,
      sslRetrieveHits: 8,
      sslRetrieveMisses: 0,
    });
    expect(third.notifications).toHaveLength(1);
    const page = third.notifications[0];
    expect(page?.subject).toBe('[FIRING critical] web-1: target-down (timeout)');
    expect(page?.labels).toEqual({ env: 'prod' });
    expect(page?.message).toContain(
      'Failure: timeout: no answer from hxxp://web-1/server-status in 10 s\nConsecutive failures: 2',
    );
    expect(messageFields(page?.payload).down).toEqual({
      reason: 'timeout',
      detail: 'no answer from http://web-1/server-status in 10 s',
      consecutiveFailures: 2,
    });
  });

  it('adds the built-in target-down rule when no rule watches target_up', () => {
    const steps: Array<[number, Input]> = [
      [0, 'down'],
      [1, 'down'],
    ];
    expect(run(steps, rules(closing()), 'target-down')).toEqual([
      [0, '-', []],
      [1, 'firing', ['first target-down']],
    ]);
  });
});

describe('evaluateTarget: results', () => {
  it('records what it returns as sent, lists active alerts, and skips rules for other targets', () => {
    // Act
    const result = evaluateTarget({
      target: 'web-1',
      observation: observe(23),
      rules: rules(closing(), { ...closing(), name: 'db-only', targets: ['db-*'] }),
      silences: [],
      previous: null,
      now: minute(0),
    });

    // Assess
    const fp = fingerprint('web-1', 'closing');
    expect(result.alerts).toEqual([
      {
        fingerprint: fp,
        rule: 'closing',
        metric: 'slots_closing',
        op: '>=',
        state: 'firing',
        value: 23,
        threshold: 20,
        severity: 'warning',
        activeAt: iso(0),
        firedAt: iso(0),
        keepFiringSince: null,
        resolvesAt: null,
      },
    ]);
    expect(result.state.alerts[fp]).toMatchObject({ lastSentAt: iso(0), lastSentStatus: 'firing' });
    expect(Object.values(result.state.alerts).map((a) => a.rule)).toEqual(['closing']);
    expect(result.state.evaluatedAt).toBe(iso(0));
    expect(fp).toMatch(/^[0-9a-f]{16}$/);
    expect(fingerprint('web-1', 'closing')).toBe(fp);
    expect(fingerprint('web-2', 'closing')).not.toBe(fp);
  });
});

describe('evaluateTarget: clients and vhosts counted only where a rule reads them', () => {
  const topVhost = { name: 'one-vhost', metric: 'top_vhost_busy_ratio', op: '>', threshold: 0.9 };
  const counted = (slots: number) => ({ ok: true, value: slots, samples: null });
  const notCounted = { ok: false, reason: NOT_COUNTED };
  it.each([
    ['the default rules, counting what they read', DEFAULT_RULES, true, counted(28), notCounted],
    ['a rule on the top vhost only', rules(topVhost), true, notCounted, counted(10)],
    ['a vhost rule for other targets only', rules({ ...topVhost, targets: ['db-*'] }), true, notCounted, notCounted],
    ['the default rules, every metric (the CLI)', DEFAULT_RULES, false, counted(28), counted(10)],
  ])('%s', (_name, ruleSet, countOnlyWhatRulesRead, client, vhost) => {
    const { metrics } = evaluateTarget({
      target: 'web-1',
      observation: observe(0),
      rules: [...ruleSet],
      silences: [],
      previous: null,
      now: minute(0),
      countOnlyWhatRulesRead,
    });
    expect(metrics.get('top_client_busy_slots')).toEqual(client);
    expect(metrics.get('top_vhost_busy_slots')).toEqual(vhost);
    // The other metrics whatever the rules read (observe(0) leaves the capture's 3 C slots out of its counts).
    expect(metrics.get('slots_busy')).toEqual(counted(25));
  });
});

describe('evaluateTarget: kept firing (keepFiringFor)', () => {
  it.each([
    ['condition holds: nothing kept', [[0, 25]], { keepFiringSince: null, resolvesAt: null }],
    [
      'cleared at 2m: resolves at 7m unless it returns',
      [
        [0, 25],
        [2, 0],
      ],
      { keepFiringSince: iso(2), resolvesAt: iso(7) },
    ],
    [
      'cleared at 2m, still clear at 4m: the same end',
      [
        [0, 25],
        [2, 0],
        [4, 0],
      ],
      { keepFiringSince: iso(2), resolvesAt: iso(7) },
    ],
    [
      'cleared then returned: nothing kept',
      [
        [0, 25],
        [2, 0],
        [3, 25],
      ],
      { keepFiringSince: null, resolvesAt: null },
    ],
  ] as Array<[string, Array<[number, number]>, object]>)('%s', (_, steps, expected) => {
    // Prepare
    let previous: TargetState | null = null;
    let views: ReturnType<typeof evaluateTarget>['alerts'] = [];
    // Act
    for (const [m, closingSlots] of steps) {
      const result = evaluateTarget({
        target: 'web-1',
        observation: observe(closingSlots),
        rules: rules(closing({ keepFiringFor: '5m' })),
        silences: [],
        previous,
        now: minute(m),
      });
      previous = result.state;
      views = result.alerts;
    }
    // Assess
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject({ state: 'firing', ...expected });
  });
});

describe('evaluateTarget: the exhaustion forecast and a saturated target', () => {
  const FORECAST = 'workers-exhaustion-forecast';
  /** The prefork-busy capture with `free` open positions (and no idle worker): slots_free = free. */
  const withFree = (free: number): Observation => ({
    kind: 'report',
    report: { ...BASE, counts: { ...BASE.counts, _: 0, '.': free } },
  });
  const TIMED_OUT: Observation = { kind: 'down', reason: 'timeout', detail: 'timed out after 10000 ms waiting for' };

  function steps(inputs: Array<[number, Observation]>, ruleSet: Rule[] = DEFAULT_RULES) {
    let previous: TargetState | null = null;
    return inputs.map(([m, observation]) => {
      const result = evaluateTarget({
        target: 'web-1',
        observation,
        rules: ruleSet,
        silences: [],
        previous,
        now: minute(m),
      });
      previous = result.state;
      return result;
    });
  }

  it('forecasts from the samples it carries, fires after 2 minutes and shows them in the page', () => {
    // Act: free slots fall 20 a minute
    const results = steps([
      [0, withFree(100)],
      [1, withFree(80)],
      [2, withFree(60)],
      [3, withFree(40)],
      [4, withFree(20)],
    ]);

    // Assess
    expect(results.map((r) => r.metrics.get('minutes_to_exhaustion'))).toEqual([
      { ok: false, reason: '1 free-slot samples over 0 s in the last 10 minutes, fewer than 3 over 2 minutes' },
      { ok: false, reason: '2 free-slot samples over 60 s in the last 10 minutes, fewer than 3 over 2 minutes' },
      { ok: true, value: 3, samples: 3 },
      { ok: true, value: 2, samples: 4 },
      { ok: true, value: 1, samples: 5 },
    ]);
    expect(results.map((r) => r.alerts.find((a) => a.rule === FORECAST)?.state ?? '-')).toEqual([
      '-',
      '-',
      'pending',
      'pending',
      'firing',
    ]);
    const last = results[4];
    expect(last?.state.samples).toEqual([100, 80, 60, 40, 20].map((free, m) => ({ at: iso(m), free })));
    expect(last?.state.lastReport).toEqual({ at: iso(4), busy: 236, total: 256, minutesToExhaustion: 1 });
    const page = last?.notifications.find((n) => n.rule === FORECAST);
    expect(page?.subject).toBe('[FIRING warning] web-1: workers-exhaustion-forecast (1 <= 10)');
    expect(page?.message.split('\n').slice(0, 12)).toEqual([
      'FIRING warning: workers-exhaustion-forecast on web-1',
      'at the current trend no slot of web-1 is free in 1 minutes',
      'Condition: minutes_to_exhaustion <= 10 (value 1), held for 2m or more',
      `Active since ${iso(2)}, firing since ${iso(4)}`,
      `At the current trend the free slots run out at ${iso(5)} (in 1 minutes)`,
      'Free slots at each evaluation (the least-squares line goes through these):',
      `  ${iso(0)}    100`,
      `  ${iso(1)}     80`,
      `  ${iso(2)}     60`,
      `  ${iso(3)}     40`,
      `  ${iso(4)}     20`,
      'Top clients among the 28 busy slots (S R W K D C L I):',
    ]);
    expect(messageFields(page?.payload).forecast).toEqual({
      minutesToExhaustion: 1,
      exhaustedAt: iso(5),
      samples: [100, 80, 60, 40, 20].map((free, m) => ({ at: iso(m), free })),
    });
  });

  it('resolves the forecast once the free slots stop falling', () => {
    // Act
    const results = steps([
      [0, withFree(100)],
      [1, withFree(80)],
      [2, withFree(60)],
      [3, withFree(40)],
      [4, withFree(20)],
      [5, withFree(240)],
    ]);

    // Assess
    const last = results[5];
    expect(last?.metrics.get('minutes_to_exhaustion')).toEqual({
      ok: false,
      reason: 'the free slots are not falling',
      unbounded: true,
    });
    expect(last?.notifications.map((n) => n.subject)).toEqual([
      '[RESOLVED warning] web-1: workers-exhaustion-forecast (now n/a)',
    ]);
  });

  it('a flat load keeps no forecast for 20 minutes', () => {
    // Act
    const results = steps(
      Array.from({ length: 20 }, (_, m): [number, Observation] => [m, withFree(m % 2 === 0 ? 60 : 40)]),
    );

    // Assess: the line through 60, 40, 60, ... is flat or, on an odd count, falls 60+ minutes out
    expect(results.flatMap((r) => r.notifications.filter((n) => n.rule === FORECAST))).toEqual([]);
    expect(results.flatMap((r) => r.alerts.filter((a) => a.rule === FORECAST))).toEqual([]);
  });

  it('pages a timeout after a nearly full report "likely saturated" on that first failure, in subject, text and JSON', () => {
    // Act: 20 of 256 free (7.8 %), then two timeouts
    const results = steps([
      [0, withFree(60)],
      [4, withFree(20)],
      [5, TIMED_OUT],
      [6, TIMED_OUT],
    ]);

    // Assess: the page goes out on the first timeout, not the second
    expect(results.map((r) => r.notifications.filter((n) => n.rule === 'target-down').length)).toEqual([0, 0, 1, 0]);
    const page = results[2]?.notifications.find((n) => n.rule === 'target-down');
    expect(page?.subject).toBe('[FIRING critical] web-1: target-down (saturated)');
    expect(page?.message.split('\n').slice(-4)).toEqual([
      `Failure: timeout, likely saturated: 236/256 slots busy at ${iso(4)}`,
      'The server was (nearly) full when last seen: the status page most likely waits for a free worker like every other request.',
      'Fetch: timed out after 10000 ms waiting for',
      'Consecutive failures: 1',
    ]);
    expect(messageFields(page?.payload).failure).toEqual({
      reason: 'timeout',
      likelySaturated: true,
      lastSeen: { busy: 236, total: 256, at: iso(4) },
    });
    // The samples and the last report outlive the outage, unchanged.
    expect(results[3]?.state.lastReport).toEqual(results[1]?.state.lastReport);
  });

  it('calls a timeout after a roomy report a timeout, and waits for the second failure', () => {
    // Act: 60 of 256 free (23 %), no forecast
    const results = steps([
      [4, withFree(60)],
      [5, TIMED_OUT],
      [6, TIMED_OUT],
    ]);

    // Assess
    expect(results.map((r) => r.notifications.filter((n) => n.rule === 'target-down').length)).toEqual([0, 0, 1]);
    const page = results[2]?.notifications.find((n) => n.rule === 'target-down');
    expect(page?.subject).toBe('[FIRING critical] web-1: target-down (timeout)');
    expect(messageFields(page?.payload).failure).toEqual({ reason: 'timeout', likelySaturated: false, lastSeen: null });
  });
});
