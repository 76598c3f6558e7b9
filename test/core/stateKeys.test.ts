import { describe, expect, it } from 'vitest';
import { STATE_KEYS } from '../../src/core/stateKeys.ts';

describe('STATE_KEYS', () => {
  it.each<[string, string, string]>([
    ['a target', STATE_KEYS.target('web-1'), 'target#web-1'],
    ['the configuration alert', STATE_KEYS.configAlert, 'config#alert'],
    ['the configuration pointer (meta)', STATE_KEYS.lastValidConfig, 'last-valid-config'],
    ['a configuration chunk (meta)', STATE_KEYS.configChunk('abc.3', 0), 'config#abc.3#0'],
    ['the open groups (meta)', STATE_KEYS.openGroups, 'groups'],
    [
      'a shard checked to the end (meta)',
      STATE_KEYS.shardDone('2026-11-22T12:00:00.000Z', 'run-1', 3),
      'shard-done#2026-11-22T12:00:00.000Z#run-1#3',
    ],
    ['the order PagerDuty accepted', STATE_KEYS.pagerDutyOrder('group-ab12'), 'pagerduty-order#group-ab12'],
    [
      'the alerts of a group with an incident of their own',
      STATE_KEYS.pagerDutyOwn('group-ab12'),
      'pagerduty-own#group-ab12',
    ],
    ['a pacing window', STATE_KEYS.pagerDutyPace('k1', 1764000000000), 'pagerduty-pace#k1#1764000000000'],
    ['a routing key reported', STATE_KEYS.pagerDutyKeyProblem('k1'), 'pagerduty-key#k1'],
  ])('%s: %s', (_, key, expected) => {
    expect(key).toBe(expected);
  });

  it('names a group item by a digest of its key, the same for the same key', () => {
    const key = '{"rule":"idle-slots-low"}';
    expect(STATE_KEYS.group(key)).toMatch(/^group#[0-9a-f]+$/);
    expect(STATE_KEYS.group(key)).toBe(STATE_KEYS.group(key));
    expect(STATE_KEYS.group(key)).not.toBe(STATE_KEYS.group('{"rule":"other"}'));
  });

  it.each<[string, number, string]>([
    ['the first item (0 or absent)', 0, ''],
    ['its first continuation', 1, '-1'],
    ['its nineteenth', 19, '-19'],
  ])("names a group's %s by the key's digest and its number", (_, continuation, suffix) => {
    const key = '{"rule":"idle-slots-low"}';
    expect(STATE_KEYS.group(key, continuation)).toBe(`${STATE_KEYS.group(key)}${suffix}`);
  });
});
