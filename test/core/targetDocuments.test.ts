import { describe, expect, it } from 'vitest';
import { targetEntries } from '../../src/core/monitorConfig.ts';
import { packTargets, placeTarget, type TierChoice, tierFor } from '../../src/core/targetDocuments.ts';

/** A target entry of exactly `chars` characters once in a list (its `name` included). */
function entryOf(name: string, chars: number) {
  const bare = JSON.stringify({ name, url: 'http://h/', labels: { pad: '' } }).length;
  return { name, url: 'http://h/', labels: { pad: 'x'.repeat(chars - bare) } };
}
/** A list document of `entries`, `{"targets":[...]}` (14 characters around them, a comma between). */
const listText = (...entries: unknown[]) => JSON.stringify({ targets: entries });

describe('tierFor', () => {
  it.each<[number, TierChoice, 'Standard' | 'Advanced' | null, 'Standard' | 'Advanced']>([
    // [characters, choice, the parameter's tier now, the tier written]
    [4096, 'standard', null, 'Standard'],
    [4096, 'auto', 'Standard', 'Standard'],
    [4097, 'auto', 'Standard', 'Advanced'],
    [100, 'advanced', null, 'Advanced'],
    [100, 'standard', 'Advanced', 'Advanced'],
    [100, 'auto', 'Advanced', 'Advanced'],
  ])('%i characters, %s, now %s: %s', (chars, choice, current, expected) => {
    expect(tierFor(chars, choice, current)).toBe(expected);
  });
});

describe('placeTarget', () => {
  const folder = '/p/targets';
  // Two lists: list-a with 4,000 characters, list-b with 1,000.
  const texts = {
    '/p/targets/list-a': listText(entryOf('a1', 3986)),
    '/p/targets/list-b': listText(entryOf('b1', 986)),
    '/p/targets/web-1': '{"url":"http://web-1/"}',
  };
  const entries = targetEntries(texts);

  it.each<[string, number, TierChoice, string | null, boolean]>([
    // [case, the new entry's characters, choice, the parameter it goes in, existing]
    ['fits the first list on standard (4,000 + 1 + 95)', 95, 'standard', '/p/targets/list-a', true],
    ['one character more: the next list with room', 96, 'standard', '/p/targets/list-b', true],
    ['too large for any list on standard: a new list', 3200, 'standard', '/p/targets/list-0001', false],
    ['on auto the first list has room to 8 KB', 3200, 'auto', '/p/targets/list-a', true],
    ['alone larger than a standard list: none on standard', 4084, 'standard', null, false],
    [
      'alone larger than a standard list: the first list on advanced (8 KB)',
      4084,
      'advanced',
      '/p/targets/list-a',
      true,
    ],
  ])('%s', (_case, chars, choice, parameter, existing) => {
    const placed = placeTarget(entries, texts, entryOf('new', chars), choice, folder);
    expect(placed === null ? null : [placed.parameter, placed.existing]).toEqual(
      parameter === null ? null : [parameter, existing],
    );
    if (placed !== null) expect(JSON.parse(placed.text).targets.at(-1).name).toBe('new');
  });

  it('names a new list after the first free list-NNNN', () => {
    const taken = { '/p/targets/list-0001': listText(entryOf('x', 4000)) };
    expect(placeTarget(targetEntries(taken), taken, entryOf('new', 200), 'standard', folder)?.parameter).toBe(
      '/p/targets/list-0002',
    );
  });
});

describe('packTargets', () => {
  it('fills each list to the room of the tier, in order, leaving out a target too large for one (on standard)', () => {
    const documents = [
      ...Array.from({ length: 5 }, (_, i) => ({ name: `w${i}`, document: entryOf(`w${i}`, 1000) })),
      { name: 'huge', document: entryOf('huge', 5000) },
    ];
    expect(
      packTargets(documents, 'standard', '/p/targets', new Set()).map((p) => [p.parameter, p.names, p.text.length]),
    ).toEqual([
      ['/p/targets/list-0001', ['w0', 'w1', 'w2', 'w3'], 4017],
      ['/p/targets/list-0002', ['w4'], 1014],
    ]);
    expect(
      packTargets(documents, 'advanced', '/p/targets', new Set(['/p/targets/list-0001'])).map((p) => [
        p.parameter,
        p.names,
      ]),
    ).toEqual([
      ['/p/targets/list-0002', ['w0', 'w1', 'w2', 'w3', 'w4']],
      ['/p/targets/list-0003', ['huge']],
    ]);
  });
});
