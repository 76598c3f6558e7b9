import { describe, expect, it } from 'vitest';
import { mergedDocument, targetEntries } from '../../src/core/monitorConfig.ts';
import {
  minimalEntry,
  packTargets,
  placeTarget,
  sharedDefaults,
  type TierChoice,
  tierFor,
} from '../../src/core/targetDocuments.ts';

/** A target entry of exactly `chars` characters once in a list (its `name` included), sharing no field with another. */
function entryOf(name: string, chars: number) {
  const url = `http://${name}/`;
  const bare = JSON.stringify({ name, url, labels: { pad: '' } }).length;
  return { name, url, labels: { pad: `${name}${'x'.repeat(chars - bare - name.length)}` } };
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

describe('minimalEntry: a target as an entry of a list with defaults', () => {
  const defaults = { url: 'http://shared/', timeoutMs: 5000, labels: { env: 'prod', team: 'web' } };
  it.each<[string, Record<string, unknown>, unknown, Record<string, unknown> | null]>([
    [
      'the fields and labels equal to the defaults left out',
      { name: 'w', url: 'http://shared/', timeoutMs: 5000, labels: { env: 'prod', team: 'web', role: 'a' } },
      defaults,
      { name: 'w', labels: { role: 'a' } },
    ],
    [
      'a field and a label overriding the defaults kept',
      { name: 'w', url: 'http://w/', timeoutMs: 5000, labels: { env: 'prod', team: 'db' } },
      defaults,
      { name: 'w', url: 'http://w/', labels: { team: 'db' } },
    ],
    [
      'every field the defaults hold: just its name',
      { name: 'w', url: 'http://shared/', timeoutMs: 5000, labels: { env: 'prod', team: 'web' } },
      defaults,
      { name: 'w' },
    ],
    [
      'without a field the defaults would give it: none',
      { name: 'w', url: 'http://shared/', labels: { env: 'prod', team: 'web' } },
      defaults,
      null,
    ],
    [
      'without a label the defaults would give it: none',
      { name: 'w', url: 'http://shared/', timeoutMs: 5000, labels: { env: 'prod' } },
      defaults,
      null,
    ],
    [
      'a list without defaults: the document as it is',
      { name: 'w', url: 'http://w/' },
      undefined,
      { name: 'w', url: 'http://w/' },
    ],
    ['defaults that are not an object: none', { name: 'w', url: 'http://w/' }, 'x', null],
  ])('%s', (_case, document, listDefaults, expected) => {
    expect(minimalEntry(document, listDefaults)).toEqual(expected);
  });
});

describe('sharedDefaults: what every target of a list shares', () => {
  it.each<[string, Array<Record<string, unknown>>, Record<string, unknown>]>([
    [
      'the fields equal in all, and the labels equal in all',
      [
        { name: 'a', url: 'http://h/', timeoutMs: 5000, labels: { env: 'prod', role: 'x' } },
        { name: 'b', url: 'http://h/', timeoutMs: 2000, labels: { env: 'prod', role: 'y' } },
      ],
      { url: 'http://h/', labels: { env: 'prod' } },
    ],
    [
      'a field one of them lacks: not shared',
      [
        { name: 'a', url: 'http://h/', allowLoopback: true },
        { name: 'b', url: 'http://h/' },
      ],
      { url: 'http://h/' },
    ],
    ['one target: nothing (a list of one shares nothing worth a key)', [{ name: 'a', url: 'http://h/' }], {}],
  ])('%s', (_case, documents, expected) => {
    expect(sharedDefaults(documents)).toEqual(expected);
  });
});

describe('list defaults in placing and packing', () => {
  const folder = '/p/targets';
  const defaults = { url: 'http://shared/', labels: { env: 'prod' } };
  const texts = {
    '/p/targets/list-a': JSON.stringify({ defaults: { ...defaults, timeoutMs: 5000 }, targets: [{ name: 'a1' }] }),
    '/p/targets/list-b': JSON.stringify({ defaults, targets: [{ name: 'b1' }] }),
  };

  it.each<[string, Record<string, unknown>, string, string]>([
    [
      'into the first list whose defaults it keeps, written minimal',
      { name: 'new', url: 'http://shared/', timeoutMs: 5000, labels: { env: 'prod', role: 'r' } },
      '/p/targets/list-a',
      '{"defaults":{"url":"http://shared/","labels":{"env":"prod"},"timeoutMs":5000},"targets":[{"name":"a1"},{"name":"new","labels":{"role":"r"}}]}',
    ],
    [
      'past a list whose defaults would give it a timeout it does not have',
      { name: 'new', url: 'http://shared/', labels: { env: 'prod' } },
      '/p/targets/list-b',
      '{"defaults":{"url":"http://shared/","labels":{"env":"prod"}},"targets":[{"name":"b1"},{"name":"new"}]}',
    ],
    [
      'into a new list when every list would change it',
      { name: 'new', url: 'http://other/' },
      '/p/targets/list-0001',
      '{"targets":[{"name":"new","url":"http://other/"}]}',
    ],
  ])('%s', (_case, document, parameter, text) => {
    expect(placeTarget(targetEntries(texts), texts, document, 'standard', folder)).toEqual({
      parameter,
      text,
      existing: parameter !== '/p/targets/list-0001',
    });
  });

  it('keeps an entry without a name (no target, but the user to fix it) in the list it adds to', () => {
    const withUnnamed = {
      '/p/targets/list-c': '{"targets":[{"name":"c1","url":"http://c1/"},{"url":"http://nameless/"}]}',
    };
    expect(
      placeTarget(targetEntries(withUnnamed), withUnnamed, { name: 'new', url: 'http://new/' }, 'standard', folder),
    ).toEqual({
      parameter: '/p/targets/list-c',
      text: '{"targets":[{"name":"c1","url":"http://c1/"},{"url":"http://nameless/"},{"name":"new","url":"http://new/"}]}',
      existing: true,
    });
  });

  it('packs what the targets of each list share into its defaults, each entry minimal, reading back the same targets', () => {
    const documents = ['w0', 'w1', 'w2'].map((name, i) => ({
      name,
      document: { name, url: 'http://h/', timeoutMs: 5000, labels: { env: 'prod', role: `r${i}` } },
    }));
    const packs = packTargets(documents, 'standard', folder, new Set());
    expect(packs).toEqual([
      {
        parameter: '/p/targets/list-0001',
        text: '{"defaults":{"url":"http://h/","timeoutMs":5000,"labels":{"env":"prod"}},"targets":[{"name":"w0","labels":{"role":"r0"}},{"name":"w1","labels":{"role":"r1"}},{"name":"w2","labels":{"role":"r2"}}]}',
        names: ['w0', 'w1', 'w2'],
        defaults: ['url', 'timeoutMs', 'labels.env'],
      },
    ]);
    const read = targetEntries({ [packs[0]?.parameter as string]: packs[0]?.text as string }).map(mergedDocument);
    expect(read).toEqual(documents.map((d) => d.document));
  });

  it('writes a list whole when factoring would make it longer', () => {
    // Two labels "a":"1" (8 characters each with their comma) do not pay for `"defaults":{"labels":{...}},`.
    const documents = ['w0', 'w1'].map((name) => ({
      name,
      document: { name, url: `http://${name}/`, labels: { a: '1', r: name } },
    }));
    expect(packTargets(documents, 'standard', folder, new Set())[0]).toEqual({
      parameter: '/p/targets/list-0001',
      text: '{"targets":[{"name":"w0","url":"http://w0/","labels":{"a":"1","r":"w0"}},{"name":"w1","url":"http://w1/","labels":{"a":"1","r":"w1"}}]}',
      names: ['w0', 'w1'],
      defaults: [],
    });
  });
});
