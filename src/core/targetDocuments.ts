/**
 * Target list documents as the command line fills them: which parameter a new target goes in and
 * at which SSM tier, within the tiers' size limits. A parameter holds one target's document or a
 * list, `{ "defaults": { ... }, "targets": [ { "name": ..., "url": ... }, ... ] }` (read by
 * `readTargetParameter`, each entry merged with the defaults). Packing factors what a list's
 * targets share into its `defaults` and writes each entry minimal against them.
 */
import { canonical, mergedDocument, renderTargetList, type TargetEntry } from './monitorConfig.ts';

/** SSM's parameter tiers and the longest value each holds (characters, as SSM counts them). */
const PARAMETER_TIERS = {
  Standard: { maxChars: 4096 },
  Advanced: { maxChars: 8192 },
} as const;

type ParameterTier = keyof typeof PARAMETER_TIERS;

/**
 * How `targets add --tier` chooses: `standard` fills lists to 4 KB (free; a list already
 * advanced is filled to 8 KB); `advanced` fills them to 8 KB and writes every list it creates or
 * changes as Advanced ($0.05 a parameter a month); `auto` fills them to 8 KB, Standard while a list
 * fits in 4 KB and Advanced once it grows past (SSM's Intelligent-Tiering, decided here).
 */
const TIER_CHOICES = { standard: 'standard', advanced: 'advanced', auto: 'auto' } as const;

type TierChoice = (typeof TIER_CHOICES)[keyof typeof TIER_CHOICES];

/** A list document as read: its parameter, its entries, its `defaults` (undefined: none), its text's length. */
interface ListDocument {
  parameter: string;
  documents: unknown[];
  defaults: unknown;
  chars: number;
}

/** The list documents among `entries` (and the texts they were read from), in parameter order. */
function listDocuments(entries: readonly TargetEntry[], texts: Record<string, string>): ListDocument[] {
  const lists = new Map<string, ListDocument>();
  for (const entry of entries) {
    if (entry.index === null || lists.has(entry.parameter)) continue;
    const text = texts[entry.parameter] ?? '';
    // Why from the text, not the entries: an entry without a name is no target, but it is the
    // user's to fix, and a list rewritten to add a target must keep it.
    const { targets } = JSON.parse(text) as { targets: unknown[] };
    lists.set(entry.parameter, {
      parameter: entry.parameter,
      documents: [...targets],
      defaults: entry.defaults,
      chars: text.length,
    });
  }
  return [...lists.values()];
}

/** The longest a list may grow to under `choice`; a list already past 4 KB is advanced whatever the choice. */
function roomOf(choice: TierChoice, chars: number): number {
  return choice === TIER_CHOICES.standard && chars <= PARAMETER_TIERS.Standard.maxChars
    ? PARAMETER_TIERS.Standard.maxChars
    : PARAMETER_TIERS.Advanced.maxChars;
}

/**
 * The tier a document of `chars` characters is written with under `choice`, its parameter now
 * at `current` (null: new). SSM never downgrades Advanced, so an advanced parameter stays so.
 */
function tierFor(chars: number, choice: TierChoice, current: ParameterTier | null): ParameterTier {
  if (current === 'Advanced' || choice === TIER_CHOICES.advanced) return 'Advanced';
  return chars <= PARAMETER_TIERS.Standard.maxChars ? 'Standard' : 'Advanced';
}

type Fields = Record<string, unknown>;

const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `document` (a target with its `name`) as an entry of a list with `defaults`: without the fields
 * and labels equal to the defaults. Null when it cannot be one: the defaults would give it a field
 * or a label it does not have (an entry can override a default, never remove it).
 *
 * @example
 * minimalEntry({ name: 'web-1', url: 'http://web-1/', timeoutMs: 5000 }, { timeoutMs: 5000 })
 * // { name: 'web-1', url: 'http://web-1/' }
 * minimalEntry({ name: 'web-1', url: 'http://web-1/' }, { timeoutMs: 5000 }) // null
 */
function minimalEntry(document: Fields, defaults: unknown): Fields | null {
  if (!isFields(defaults)) return defaults === undefined ? document : null;
  const entry = withoutDefaults(document, defaults);
  return canonical(mergedDocument({ document: entry, defaults })) === canonical(document) ? entry : null;
}

/** `document` without the fields and labels equal to `defaults` (whatever the defaults would add). */
function withoutDefaults(document: Fields, defaults: Fields): Fields {
  const entry: Fields = {};
  for (const [field, value] of Object.entries(document)) {
    const shared = defaults[field];
    if (field === 'labels' && isFields(value) && isFields(shared)) {
      const own = Object.entries(value).filter(([k, v]) => !(Object.hasOwn(shared, k) && shared[k] === v));
      if (own.length > 0) entry.labels = Object.fromEntries(own);
    } else if (field === 'name' || !Object.hasOwn(defaults, field) || canonical(shared) !== canonical(value))
      entry[field] = value;
  }
  return entry;
}

/**
 * What every one of `documents` (two or more) shares, as a list's `defaults`: each field but
 * `name` they all hold with one value, and the labels they all hold with one value.
 */
function sharedDefaults(documents: readonly Fields[]): Fields {
  const [first, ...rest] = documents;
  if (first === undefined || rest.length === 0) return {};
  const defaults: Fields = {};
  for (const [field, value] of Object.entries(first)) {
    if (field === 'name') continue;
    if (field === 'labels' && isFields(value)) {
      const labels = Object.fromEntries(
        Object.entries(value).filter(([k, v]) => rest.every((d) => isFields(d.labels) && d.labels[k] === v)),
      );
      if (Object.keys(labels).length > 0) defaults.labels = labels;
    } else if (rest.every((d) => Object.hasOwn(d, field) && canonical(d[field]) === canonical(value)))
      defaults[field] = value;
  }
  return defaults;
}

/**
 * A packed list's text: what its targets share as `defaults` and each entry minimal against them,
 * or the entries whole when that is no longer (nothing shared, or too little to pay for the key).
 */
function renderPacked(documents: readonly Fields[]): { text: string; defaults: Fields } {
  const plain = renderTargetList(documents);
  const defaults = sharedDefaults(documents);
  if (Object.keys(defaults).length === 0) return { text: plain, defaults };
  // Shared by every one of them: each entry merges back to its document.
  const entries = documents.map((d) => withoutDefaults(d, defaults));
  const factored = renderTargetList(entries, defaults);
  return factored.length < plain.length ? { text: factored, defaults } : { text: plain, defaults: {} };
}

/** A list's `defaults` in words: `url, timeoutMs, labels.env` (empty: none). */
function defaultsFields(defaults: Fields): string[] {
  return Object.entries(defaults).flatMap(([field, value]) =>
    field === 'labels' && isFields(value) ? Object.keys(value).map((k) => `labels.${k}`) : [field],
  );
}

/** `<folder>/list-0001`, `list-0002`, ...: the first `count` names not in `taken`. */
function newListNames(folder: string, taken: ReadonlySet<string>, count: number): string[] {
  const names: string[] = [];
  for (let n = 1; names.length < count; n++) {
    const name = `${folder}/list-${String(n).padStart(4, '0')}`;
    if (!taken.has(name)) names.push(name);
  }
  return names;
}

/** Where a new target goes: the list document and its text once the target is in it. */
interface Placement {
  parameter: string;
  text: string;
  /** Whether the parameter exists (false: a new list document). */
  existing: boolean;
}

/**
 * The first list document (in parameter order) with room for `document` under `choice`, written
 * minimal against its defaults (a list whose defaults would change the target is passed over),
 * else a new one under `folder`; null when the target alone does not fit in the largest `choice`
 * allows.
 *
 * @example
 * placeTarget([], {}, { name: 'web-1', url: 'http://web-1/' }, 'standard', '/p/targets')
 * // { parameter: '/p/targets/list-0001', text: '{"targets":[{"name":"web-1","url":"http://web-1/"}]}', existing: false }
 */
function placeTarget(
  entries: readonly TargetEntry[],
  texts: Record<string, string>,
  document: Fields,
  choice: TierChoice,
  folder: string,
): Placement | null {
  for (const list of listDocuments(entries, texts)) {
    const entry = minimalEntry(document, list.defaults);
    if (entry === null) continue;
    const text = renderTargetList([...list.documents, entry], list.defaults);
    if (text.length <= roomOf(choice, list.chars)) return { parameter: list.parameter, text, existing: true };
  }
  const text = renderTargetList([document]);
  if (text.length > roomOf(choice, 0)) return null;
  const [parameter] = newListNames(folder, new Set(Object.keys(texts)), 1);
  return { parameter: parameter as string, text, existing: false };
}

/**
 * One-target documents (each with its `name`) packed into new list documents under `folder`, in
 * the order given, each filled to the room `choice` allows, what its targets share factored into
 * its `defaults`: what `targets pack` writes. A target too large for a list of its own is left
 * out (it stays in its parameter).
 */
function packTargets(
  documents: ReadonlyArray<{ name: string; document: Fields }>,
  choice: TierChoice,
  folder: string,
  taken: ReadonlySet<string>,
): Array<{ parameter: string; text: string; names: string[]; defaults: string[] }> {
  const room = roomOf(choice, 0);
  type Pack = { documents: Fields[]; names: string[]; text: string; defaults: Fields };
  const packs: Pack[] = [];
  let current: Pack | null = null;
  for (const { name, document } of documents) {
    const alone = renderPacked([document]);
    if (alone.text.length > room) continue;
    const grown = current === null ? null : renderPacked([...current.documents, document]);
    if (current === null || grown === null || grown.text.length > room) {
      current = { documents: [document], names: [name], ...alone };
      packs.push(current);
      continue;
    }
    current.documents.push(document);
    current.names.push(name);
    current.text = grown.text;
    current.defaults = grown.defaults;
  }
  const names = newListNames(folder, taken, packs.length);
  return packs.map((pack, i) => ({
    parameter: names[i] as string,
    text: pack.text,
    names: pack.names,
    defaults: defaultsFields(pack.defaults),
  }));
}

export type { ListDocument, ParameterTier, Placement, TierChoice };
export {
  listDocuments,
  minimalEntry,
  PARAMETER_TIERS,
  packTargets,
  placeTarget,
  roomOf,
  sharedDefaults,
  TIER_CHOICES,
  tierFor,
};
