import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
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

function problemsOf(docs: Array<{ source: string; text: string }>) {
  try {
    parseRulesDocuments(docs);
  } catch (error) {
    if (error instanceof RulesValidationError) return error.problems;
    throw error;
  }
  throw new Error('expected a RulesValidationError');
}

describe('Function: parseRulesDocuments', () => {
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
        forMs: 120_000,
        keepFiringForMs: 0,
        severity: 'critical',
        summary: 'only {{value}} idle workers on {{target}}',
        runbook: 'https://wiki.example/apache-idle',
        minSamples: null,
        targets: null,
      },
      {
        name: 'closing-pileup',
        metric: 'slots_closing',
        op: '>=',
        threshold: 20,
        forMs: 180_000,
        keepFiringForMs: 0,
        severity: 'warning',
        summary: null,
        runbook: null,
        minSamples: null,
        targets: null,
      },
      {
        name: 'ssl-cache-misses',
        metric: 'ssl_cache_miss_ratio',
        op: '>',
        threshold: 0.5,
        forMs: 0,
        keepFiringForMs: 0,
        severity: 'warning',
        summary: null,
        runbook: null,
        minSamples: 100,
        targets: null,
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
        'unknown field, expected one of name, metric, op, threshold, for, keepFiringFor, severity, summary, runbook, minSamples, targets',
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
        { source: 'b', rule: null, field: 'rule', message: 'unknown field, expected only "rules"' },
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

describe('Constant: DEFAULT_RULES', () => {
  it('holds the eight built-in rules, validated from DEFAULT_RULES_DOCUMENT', () => {
    expect(DEFAULT_RULES.map((r) => [r.name, r.metric, r.op, r.threshold, r.forMs, r.severity, r.minSamples])).toEqual([
      ['idle-slots-low', 'slots_free_ratio', '<', 0.05, 120_000, 'critical', null],
      ['closing-pileup', 'connections_closing', '>=', 20, 180_000, 'warning', null],
      ['ssl-cache-misses', 'ssl_cache_miss_ratio', '>', 0.5, 180_000, 'info', 100],
      ['target-down', 'target_up', '==', 0, 0, 'critical', null],
      ['graceful-pileup', 'slots_graceful_ratio', '>', 0.25, 600_000, 'warning', null],
      ['stopping-processes', 'processes_stopping', '>=', 1, 900_000, 'warning', null],
      ['stuck-requests', 'oldest_busy_request_seconds', '>', 300, 60_000, 'warning', null],
      ['client-concentration', 'top_client_busy_slots', '>=', 20, 60_000, 'warning', null],
    ]);
    expect(DEFAULT_RULES_DOCUMENT.rules).toHaveLength(8);
  });
});
