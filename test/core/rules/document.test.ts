import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseSilencesDocuments, SilencesValidationError } from '../../../src/core/alerts/silences.ts';
import {
  DEFAULT_RULES,
  DEFAULT_RULES_DOCUMENT,
  parseRulesDocuments,
  RulesValidationError,
} from '../../../src/core/rules/document.ts';

const fixture = (name: string) => ({
  source: name,
  text: readFileSync(new URL(`../../fixtures/rules/${name}`, import.meta.url), 'utf8'),
});

/** A rules document of rules on `slots_idle`, each `{ name, ...fields }`, with `top` beside `rules`. */
function groupingDoc(rules: Array<Record<string, unknown>>, top: Record<string, unknown> = {}): string {
  return JSON.stringify({
    ...top,
    rules: rules.map((fields) => ({ metric: 'slots_idle', op: '<', threshold: 1, ...fields })),
  });
}

function problemsOf(docs: Array<{ source: string; text: string }>) {
  try {
    parseRulesDocuments(docs);
  } catch (error) {
    if (error instanceof RulesValidationError) return error.problems;
    throw error;
  }
  throw new Error('expected a RulesValidationError');
}

describe('parseRulesDocuments', () => {
  it('reads the contract example with its defaults filled in', () => {
    // Act
    const rules = parseRulesDocuments([fixture('valid.json')]);

    // Assess
    expect(rules).toEqual([
      {
        name: 'idle-slots-low',
        metric: 'slots_idle',
        op: '<',
        threshold: 5,
        clearThreshold: null,
        forMs: 120_000,
        keepFiringForMs: 0,
        severity: 'critical',
        summary: 'only {{value}} idle workers on {{target}}',
        runbook: 'https://wiki.example/apache-idle',
        minSamples: null,
        targets: null,
        groupBy: ['rule'],
        groupIntervalMs: 300_000,
      },
      {
        name: 'closing-pileup',
        metric: 'slots_closing',
        op: '>=',
        threshold: 20,
        clearThreshold: null,
        forMs: 180_000,
        keepFiringForMs: 0,
        severity: 'warning',
        summary: null,
        runbook: null,
        minSamples: null,
        targets: null,
        groupBy: ['rule'],
        groupIntervalMs: 300_000,
      },
      {
        name: 'ssl-cache-misses',
        metric: 'ssl_cache_miss_ratio',
        op: '>',
        threshold: 0.5,
        clearThreshold: null,
        forMs: 0,
        keepFiringForMs: 0,
        severity: 'warning',
        summary: null,
        runbook: null,
        minSamples: 100,
        targets: null,
        groupBy: ['rule'],
        groupIntervalMs: 300_000,
      },
    ]);
  });

  it('lists every problem of an invalid document, each with source, rule and field', () => {
    // Act
    const problems = problemsOf([fixture('invalid.json')]);

    // Assess
    const at = (rule: string, field: string | null, message: string) => ({
      source: 'invalid.json',
      rule,
      field,
      message,
    });
    expect(problems).toEqual([
      at('#1', 'name', 'expected lower-case letters, digits and -, found "Busy High"'),
      at('closing-pileup', 'metric', 'expected a metric of the catalogue, found "slots_closed"'),
      at('closing-pileup', 'op', 'expected one of < <= > >= == !=, found "=>"'),
      at('closing-pileup', 'threshold', 'expected a number, found "20"'),
      at('closing-pileup', 'for', 'expected a duration such as 30s, 5m, 1h or 1h30m, found "3 minutes"'),
      at(
        'ssl-cache-misses',
        'colour',
        'unknown field, expected one of name, metric, op, threshold, clearThreshold, for, keepFiringFor, severity, summary, runbook, minSamples, targets, groupBy, groupInterval, enabled',
      ),
      at('ssl-cache-misses', 'minSamples', 'expected only on a ratio metric with samples, found it on slots_idle'),
      at('no-threshold', 'threshold', 'expected a number, found nothing'),
      at('no-threshold', 'severity', 'expected critical, warning or info, found "page"'),
      at('no-threshold', 'runbook', 'expected an http(s) URL without spaces, found "javascript:alert(1)"'),
      at('no-threshold', 'targets', 'expected at least one target, found []'),
      at('closing-pileup', 'name', 'expected a unique name, found it already in invalid.json'),
    ]);
  });

  it.each([
    [
      'a name used in two documents',
      [fixture('valid.json'), fixture('other.json')],
      [
        {
          source: 'other.json',
          rule: 'closing-pileup',
          field: 'name',
          message: 'expected a unique name, found it already in valid.json',
        },
      ],
    ],
    [
      'invalid JSON',
      [{ source: 'ssm:/a/rules/x', text: '{"rules": [' }],
      [
        {
          source: 'ssm:/a/rules/x',
          rule: null,
          field: null,
          message: expect.stringMatching(/^expected a JSON document, found invalid JSON: /),
        },
      ],
    ],
    [
      'no rules array and an unknown top-level field',
      [{ source: 'b', text: '{"rule": []}' }],
      [
        {
          source: 'b',
          rule: null,
          field: 'rule',
          message: 'unknown field, expected one of rules, groupBy, groupInterval (did you mean rules?)',
        },
        { source: 'b', rule: null, field: 'rules', message: 'expected an array, found nothing' },
      ],
    ],
    [
      'a document that is an array',
      [{ source: 'c', text: '[]' }],
      [{ source: 'c', rule: null, field: null, message: 'expected an object { "rules": [...] }, found []' }],
    ],
    [
      'a rule that is not an object',
      [{ source: 'd', text: '{"rules": ["busy"]}' }],
      [{ source: 'd', rule: '#1', field: null, message: 'expected a rule object, found "busy"' }],
    ],
    [
      'a bad target glob and a fractional minSamples',
      [
        {
          source: 'e',
          text: '{"rules":[{"name":"r","metric":"slots_busy_ratio","op":">","threshold":1,"minSamples":1.5,"targets":["web 1"]}]}',
        },
      ],
      [
        { source: 'e', rule: 'r', field: 'minSamples', message: 'expected a whole number, found 1.5' },
        {
          source: 'e',
          rule: 'r',
          field: 'targets.0',
          message: 'expected a name or * glob of letters, digits, . _ : - and *, found "web 1"',
        },
      ],
    ],
  ])('rejects %s', (_, docs, expected) => {
    expect(problemsOf(docs)).toEqual(expected);
  });

  it('says in its message how many problems there are, one per line', () => {
    // Act
    const error = (() => {
      try {
        parseRulesDocuments([{ source: 'c', text: '[]' }]);
      } catch (e) {
        return e as Error;
      }
    })();

    // Assess
    expect(error?.name).toBe('RulesValidationError');
    expect(error?.message).toBe(
      'expected valid rules documents, found 1 problem(s):\nc: expected an object { "rules": [...] }, found []',
    );
  });

  it('merges several documents in order, with per-target globs', () => {
    const rules = parseRulesDocuments([{ source: 'a', text: '{"rules":[]}' }, fixture('other.json')]);
    expect(rules.map((r) => [r.name, r.targets])).toEqual([['closing-pileup', ['web-*']]]);
  });
});

describe('parseRulesDocuments (clearThreshold)', () => {
  const doc = (fields: Record<string, unknown>) =>
    JSON.stringify({ rules: [{ name: 'r', metric: 'slots_free_ratio', ...fields }] });

  it.each([
    ['< with the clear number above', { op: '<', threshold: 0.05, clearThreshold: 0.1 }, 0.1],
    [
      '< with the clear number equal (no hysteresis, allowed)',
      { op: '<', threshold: 0.05, clearThreshold: 0.05 },
      0.05,
    ],
    ['<= with the clear number above', { op: '<=', threshold: 0.05, clearThreshold: 0.06 }, 0.06],
    ['> with the clear number below', { op: '>', threshold: 0.5, clearThreshold: 0.3 }, 0.3],
    ['>= with the clear number below', { op: '>=', threshold: 0.5, clearThreshold: 0.4 }, 0.4],
    ['no clearThreshold', { op: '<', threshold: 0.05 }, null],
  ])('reads %s', (_, fields, expected) => {
    // Act
    const [rule] = parseRulesDocuments([{ source: 'h', text: doc(fields) }]);

    // Assess
    expect(rule?.clearThreshold).toBe(expected);
  });

  const problem = (message: string) => ({ source: 'h', rule: 'r', field: 'clearThreshold', message });

  it.each([
    [
      '< with the clear number where the condition holds',
      { op: '<', threshold: 0.05, clearThreshold: 0.01 },
      problem('expected a number on the clearing side of threshold 0.05 (>= 0.05 for op <), found 0.01'),
    ],
    [
      '<= with the clear number equal (the condition holds there)',
      { op: '<=', threshold: 0.05, clearThreshold: 0.05 },
      problem('expected a number on the clearing side of threshold 0.05 (> 0.05 for op <=), found 0.05'),
    ],
    [
      '> with the clear number above',
      { op: '>', threshold: 0.5, clearThreshold: 0.7 },
      problem('expected a number on the clearing side of threshold 0.5 (<= 0.5 for op >), found 0.7'),
    ],
    [
      '>= with the clear number equal',
      { op: '>=', threshold: 0.5, clearThreshold: 0.5 },
      problem('expected a number on the clearing side of threshold 0.5 (< 0.5 for op >=), found 0.5'),
    ],
    [
      'an op without a clearing side',
      { op: '==', threshold: 0, clearThreshold: 1 },
      problem('expected clearThreshold only with op < <= > >=, found it with op =='),
    ],
    ['a string', { op: '<', threshold: 0.05, clearThreshold: '0.1' }, problem('expected a number, found "0.1"')],
  ])('rejects %s', (_, fields, expected) => {
    // Act
    const problems = problemsOf([{ source: 'h', text: doc(fields) }]);

    // Assess
    expect(problems).toEqual([expected]);
  });
});

describe('parseRulesDocuments (grouping)', () => {
  const TEN = [
    'rule',
    'severity',
    'target',
    'labels.a',
    'labels.b',
    'labels.c',
    'labels.d',
    'labels.e',
    'labels.f',
    'labels.g',
  ];

  type Grouping = { name: string; groupBy: string[]; groupIntervalMs: number };
  type GroupingCase = { case: string; texts: string[]; expected: Grouping[] };
  const readsGrouping = ({ texts, expected }: GroupingCase) => {
    // Act
    const rules = parseRulesDocuments(texts.map((text, i) => ({ source: `doc-${i + 1}`, text })));

    // Assess
    expect(rules.map(({ name, groupBy, groupIntervalMs }) => ({ name, groupBy, groupIntervalMs }))).toEqual(expected);
  };

  it.each<GroupingCase>([
    // Neither the rule nor its document says: one page per rule, updates every 5 minutes.
    {
      case: 'the built-in defaults',
      texts: [groupingDoc([{ name: 'r' }])],
      expected: [{ name: 'r', groupBy: ['rule'], groupIntervalMs: 300_000 }],
    },
  ])('reads grouping, nothing said: $case', readsGrouping);

  it.each<GroupingCase>([
    // An empty list pages each alert on its own.
    {
      case: '[] (one page per alert)',
      texts: [groupingDoc([{ name: 'r', groupBy: [] }])],
      expected: [{ name: 'r', groupBy: [], groupIntervalMs: 300_000 }],
    },
    {
      case: 'every field kind, labels.<name> among them, and a compound interval',
      texts: [
        groupingDoc([{ name: 'r', groupBy: ['target', 'labels.cluster', 'severity', 'rule'], groupInterval: '1h30m' }]),
      ],
      expected: [{ name: 'r', groupBy: ['target', 'labels.cluster', 'severity', 'rule'], groupIntervalMs: 5_400_000 }],
    },
    // A label name is any non-empty key, as target labels accept any key.
    {
      case: 'a label name with dots',
      texts: [groupingDoc([{ name: 'r', groupBy: ['labels.team.tier'] }])],
      expected: [{ name: 'r', groupBy: ['labels.team.tier'], groupIntervalMs: 300_000 }],
    },
    {
      case: 'ten fields (the most)',
      texts: [groupingDoc([{ name: 'r', groupBy: TEN }])],
      expected: [{ name: 'r', groupBy: TEN, groupIntervalMs: 300_000 }],
    },
  ])("reads grouping, the rule's own fields: $case", readsGrouping);

  it.each<GroupingCase>([
    {
      case: "the document's defaults, and a rule's own fields winning over them one by one",
      texts: [
        groupingDoc(
          [{ name: 'plain' }, { name: 'own-group-by', groupBy: [] }, { name: 'own-interval', groupInterval: '30s' }],
          { groupBy: ['labels.cluster'], groupInterval: '10m' },
        ),
      ],
      expected: [
        { name: 'plain', groupBy: ['labels.cluster'], groupIntervalMs: 600_000 },
        { name: 'own-group-by', groupBy: [], groupIntervalMs: 600_000 },
        { name: 'own-interval', groupBy: ['labels.cluster'], groupIntervalMs: 30_000 },
      ],
    },
    // Defaults belong to their document: the next document's rules keep the built-in ones.
    {
      case: "one document's defaults, not another's",
      texts: [groupingDoc([{ name: 'a' }], { groupBy: ['target'], groupInterval: '1m' }), groupingDoc([{ name: 'b' }])],
      expected: [
        { name: 'a', groupBy: ['target'], groupIntervalMs: 60_000 },
        { name: 'b', groupBy: ['rule'], groupIntervalMs: 300_000 },
      ],
    },
  ])("reads grouping, a document's defaults: $case", readsGrouping);

  const ruleProblem = (field: string, message: string) => ({ source: 'g', rule: 'r', field, message });
  const documentProblem = (field: string, message: string) => ({ source: 'g', rule: null, field, message });
  const FIELD_HINT = 'expected rule, severity, target or labels.<name>';

  it.each([
    [
      'a field that is not a group field, an empty label name and a number',
      groupingDoc([{ name: 'r', groupBy: ['rules', 'labels.', 3] }]),
      [
        ruleProblem('groupBy.0', `${FIELD_HINT}, found "rules"`),
        ruleProblem('groupBy.1', `${FIELD_HINT}, found "labels."`),
        ruleProblem('groupBy.2', `${FIELD_HINT}, found 3`),
      ],
    ],
    [
      'a string where a list is expected',
      groupingDoc([{ name: 'r', groupBy: 'rule' }]),
      [ruleProblem('groupBy', 'expected an array of rule, severity, target or labels.<name> fields, found "rule"')],
    ],
    [
      'a field listed twice',
      groupingDoc([{ name: 'r', groupBy: ['rule', 'target', 'rule'] }]),
      [ruleProblem('groupBy', 'expected each field at most once, found ["rule","target","rule"]')],
    ],
    [
      'eleven fields',
      groupingDoc([{ name: 'r', groupBy: [...TEN, 'labels.h'] }]),
      [
        ruleProblem(
          'groupBy',
          'expected at most 10 fields, found ["rule","severity","target","labels.a","labels.b","labels...',
        ),
      ],
    ],
    [
      'a zero group interval',
      groupingDoc([{ name: 'r', groupInterval: '0s' }]),
      [ruleProblem('groupInterval', 'expected a duration above 0s such as 30s or 5m, found "0s"')],
    ],
    [
      'a group interval that is not a duration',
      groupingDoc([{ name: 'r', groupInterval: 'abc' }]),
      [ruleProblem('groupInterval', 'expected a duration such as 30s, 5m, 1h or 1h30m, found "abc"')],
    ],
    [
      'a group interval in bare seconds',
      groupingDoc([{ name: 'r', groupInterval: 300 }]),
      [ruleProblem('groupInterval', 'expected a duration such as 30s, 5m, 1h or 1h30m, found 300')],
    ],
    // The document's defaults are checked by the same schemas, located at the document (rule null).
    [
      "bad document defaults, with the rules' own problems",
      groupingDoc([{ name: 'r', groupBy: ['host'] }], { groupBy: ['cluster'], groupInterval: '0s' }),
      [
        documentProblem('groupBy.0', `${FIELD_HINT}, found "cluster"`),
        documentProblem('groupInterval', 'expected a duration above 0s such as 30s or 5m, found "0s"'),
        ruleProblem('groupBy.0', `${FIELD_HINT}, found "host"`),
      ],
    ],
    // Without a rules array the defaults are still checked: one pass lists every problem.
    [
      'bad document defaults and no rules array',
      '{"groupBy": ["rule", "rule"], "groupInterval": "5 minutes"}',
      [
        documentProblem('rules', 'expected an array, found nothing'),
        documentProblem('groupBy', 'expected each field at most once, found ["rule","rule"]'),
        documentProblem('groupInterval', 'expected a duration such as 30s, 5m, 1h or 1h30m, found "5 minutes"'),
      ],
    ],
    [
      "Alertmanager's spelling at the top level (still an unknown field)",
      '{"rules": [], "group_by": ["rule"], "groupWait": "30s"}',
      [
        documentProblem(
          'group_by',
          'unknown field, expected one of rules, groupBy, groupInterval (did you mean groupBy?)',
        ),
        documentProblem('groupWait', 'unknown field, expected one of rules, groupBy, groupInterval'),
      ],
    ],
  ])('rejects %s', (_, text, expected) => {
    expect(problemsOf([{ source: 'g', text }])).toEqual(expected);
  });
});

describe('parseSilencesDocuments (the shared document reader)', () => {
  // The grouping defaults belong to rules documents: a silences document still holds only "silences".
  it.each([
    ['groupBy', '{"silences": [], "groupBy": ["rule"]}'],
    ['groupInterval', '{"silences": [], "groupInterval": "5m"}'],
  ])('rejects %s beside "silences"', (field, text) => {
    // Act
    const problems = (() => {
      try {
        parseSilencesDocuments([{ source: 's', text }]);
      } catch (error) {
        if (error instanceof SilencesValidationError) return error.problems;
        throw error;
      }
      throw new Error('expected a SilencesValidationError');
    })();

    // Assess
    expect(problems).toEqual([{ source: 's', rule: null, field, message: 'unknown field, expected only "silences"' }]);
  });
});

describe('Constant: DEFAULT_RULES', () => {
  it('holds the nine built-in rules, validated from DEFAULT_RULES_DOCUMENT', () => {
    expect(DEFAULT_RULES.map((r) => [r.name, r.metric, r.op, r.threshold, r.forMs, r.severity, r.minSamples])).toEqual([
      ['idle-slots-low', 'slots_free_ratio', '<', 0.05, 120_000, 'critical', null],
      ['closing-pileup', 'connections_closing', '>=', 20, 180_000, 'warning', null],
      ['ssl-cache-misses', 'ssl_cache_miss_ratio', '>', 0.5, 180_000, 'info', 100],
      ['target-down', 'target_up', '==', 0, 0, 'critical', null],
      ['graceful-pileup', 'slots_graceful_ratio', '>', 0.25, 600_000, 'warning', null],
      ['stopping-processes', 'processes_stopping', '>=', 1, 900_000, 'warning', null],
      ['stuck-requests', 'oldest_busy_request_seconds', '>', 300, 60_000, 'warning', null],
      ['client-concentration', 'top_client_busy_slots', '>=', 20, 60_000, 'warning', null],
      ['workers-exhaustion-forecast', 'minutes_to_exhaustion', '<=', 10, 120_000, 'warning', null],
    ]);
    expect(DEFAULT_RULES_DOCUMENT.rules).toHaveLength(9);
  });

  it('is what the schemas make of DEFAULT_RULES_DOCUMENT (built without them, for start-up)', () => {
    const text = JSON.stringify(DEFAULT_RULES_DOCUMENT);
    expect(parseRulesDocuments([{ source: 'built-in defaults', text }])).toEqual(DEFAULT_RULES);
  });
});
