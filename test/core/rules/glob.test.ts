import { describe, expect, it } from 'vitest';
import { anyGlobMatch, globMatch } from '../../../src/core/rules/glob.ts';

describe('globMatch', () => {
  it.each([
    ['*', 'web-1', true],
    ['web-1', 'web-1', true],
    ['web-1', 'web-10', false],
    ['web-*', 'web-10', true],
    ['web-*', 'db-1', false],
    ['*-1', 'web-1', true],
    ['w*b*1', 'web-1', true],
    ['w*b*1', 'wb1', true],
    ['web-*-1', 'web-1', false],
    ['a*a', 'a', false],
    ['web.*', 'webx1', false],
  ])('%s matches %s: %s', (pattern, name, expected) => {
    expect(globMatch(pattern, name)).toBe(expected);
  });

  it.each([
    [null, true],
    [['db-*', 'web-?'], false],
    [['db-*', 'web-*'], true],
  ])('anyGlobMatch(%j, "web-2") is %s', (patterns, expected) => {
    expect(anyGlobMatch(patterns, 'web-2')).toBe(expected);
  });
});
