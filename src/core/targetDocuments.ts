/**
 * Target list documents as the command line fills them: which parameter a new target goes in and
 * at which SSM tier, within the tiers' size limits. A parameter holds one target's document or a
 * list, `{ "targets": [ { "name": ..., "url": ... }, ... ] }` (read by `readTargetParameter`); a
 * list packs a dozen realistic targets into a standard parameter, two dozen into an advanced one.
 */
import { renderTargetList, type TargetEntry } from './monitorConfig.ts';

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

/** A list document as read: its parameter, its entries, its text's length. */
interface ListDocument {
  parameter: string;
  documents: unknown[];
  chars: number;
}

/** The list documents among `entries` (and the texts they were read from), in parameter order. */
function listDocuments(entries: readonly TargetEntry[], texts: Record<string, string>): ListDocument[] {
  const lists = new Map<string, ListDocument>();
  for (const entry of entries) {
    if (entry.index === null) continue;
    const list = lists.get(entry.parameter) ?? {
      parameter: entry.parameter,
      documents: [],
      chars: (texts[entry.parameter] ?? '').length,
    };
    list.documents.push(entry.document);
    lists.set(entry.parameter, list);
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
 * The first list document (in parameter order) with room for `document` under `choice`, else a
 * new one under `folder`; null when the target alone does not fit in the largest `choice` allows.
 *
 * @example
 * placeTarget([], {}, { name: 'web-1', url: 'http://web-1/' }, 'standard', '/p/targets')
 * // { parameter: '/p/targets/list-0001', text: '{"targets":[{"name":"web-1","url":"http://web-1/"}]}', existing: false }
 */
function placeTarget(
  entries: readonly TargetEntry[],
  texts: Record<string, string>,
  document: unknown,
  choice: TierChoice,
  folder: string,
): Placement | null {
  for (const list of listDocuments(entries, texts)) {
    const text = renderTargetList([...list.documents, document]);
    if (text.length <= roomOf(choice, list.chars)) return { parameter: list.parameter, text, existing: true };
  }
  const text = renderTargetList([document]);
  if (text.length > roomOf(choice, 0)) return null;
  const [parameter] = newListNames(folder, new Set(Object.keys(texts)), 1);
  return { parameter: parameter as string, text, existing: false };
}

/**
 * One-target documents packed into new list documents under `folder`, in the order given, each
 * filled to the room `choice` allows: what `targets pack` writes. A target too large for a list of
 * its own is left out (it stays in its parameter).
 */
function packTargets(
  documents: ReadonlyArray<{ name: string; document: unknown }>,
  choice: TierChoice,
  folder: string,
  taken: ReadonlySet<string>,
): Array<{ parameter: string; text: string; names: string[] }> {
  const room = roomOf(choice, 0);
  const packs: Array<{ documents: unknown[]; names: string[] }> = [];
  let current: { documents: unknown[]; names: string[] } | null = null;
  for (const { name, document } of documents) {
    if (renderTargetList([document]).length > room) continue;
    if (current === null || renderTargetList([...current.documents, document]).length > room) {
      current = { documents: [], names: [] };
      packs.push(current);
    }
    current.documents.push(document);
    current.names.push(name);
  }
  const names = newListNames(folder, taken, packs.length);
  return packs.map((pack, i) => ({
    parameter: names[i] as string,
    text: renderTargetList(pack.documents),
    names: pack.names,
  }));
}

export type { ListDocument, ParameterTier, Placement, TierChoice };
export { listDocuments, PARAMETER_TIERS, packTargets, placeTarget, roomOf, TIER_CHOICES, tierFor };
