/**
 * The open groups: `meta#groups` lists every group item that may still page (group item key ->
 * group key), so a run finds a group that is due although no target of it changed. A hand-over
 * lists the item once it holds the page; the flush unlists an item before it deletes it.
 */

import { STATE_KEYS } from '../../core/stateKeys.ts';
import type { StateTable } from '../ports.ts';
import { updateMeta } from './conditionalUpdate.ts';

/** The item listing open groups: group item key -> group key. */
const REGISTRY_KEY = STATE_KEYS.openGroups;

type Registry = { open: Record<string, string> };

function register(table: StateTable, itemKey: string, key: string): Promise<number> {
  return updateMeta<Registry>(table, REGISTRY_KEY, (r) =>
    r?.open[itemKey] === undefined ? { open: { ...r?.open, [itemKey]: key } } : undefined,
  );
}

function unregister(table: StateTable, itemKey: string): Promise<number> {
  return updateMeta<Registry>(table, REGISTRY_KEY, (r) => {
    if (r?.open[itemKey] === undefined) return undefined;
    const open = { ...r.open };
    delete open[itemKey];
    return { open };
  });
}

/** The item keys of every open group. */
async function openGroups(table: StateTable): Promise<string[]> {
  const item = await table.getMeta(REGISTRY_KEY);
  return Object.keys((item?.value as Registry | undefined)?.open ?? {});
}

export { openGroups, register, unregister };
