/**
 * A report whose slots are built on first read. A steady run reads a thousand 1,024-slot pages a
 * minute and needs four figures from their slots, never the slots themselves: the parse records
 * the slot table's rows and checks them (every warning is known when it returns), and
 * `report.slots` is an own enumerable accessor that builds the slots once and returns them after.
 * `JSON.stringify`, `structuredClone`, spread and `toEqual` all read it, so they see the report an
 * eager parse gives. Meanwhile the metrics read what they need through `slotBriefOf`.
 */
import type { Slot, StatusReport } from './types.ts';

/** What the metrics read of each slot, by index. */
interface SlotBrief {
  readonly count: number;
  /** The slot's mode as its character's code (`M`): no one-character string per slot. */
  modeCode(i: number): number;
  ss(i: number): number;
  client(i: number): string;
  vhost(i: number): string;
  /**
   * The client as `ipv4Key` reads it where that needs no string (pending rows: straight from the
   * page); -1 otherwise, and then `client(i)` tells.
   */
  clientAddress(i: number): number;
}

/** A parse's recorded rows: their brief, and their slots (built anew at each call). */
interface PendingSlots extends SlotBrief {
  build(): Slot[];
}

/** Reports whose slots were not read yet, and their rows. */
const pending = new WeakMap<StatusReport, PendingSlots>();

/**
 * `report` with its `slots` replaced by an accessor building them from `rows` on first read (a
 * write replaces them as for a plain field). The fields keep their order: JSON is byte for byte
 * the eager report's.
 */
function withLazySlots(report: StatusReport, rows: PendingSlots): StatusReport {
  let slots: Slot[] | null = null;
  let built = false;
  const settle = (value: Slot[] | null): void => {
    slots = value;
    built = true;
    pending.delete(lazy);
  };
  const lazy: StatusReport = {
    format: report.format,
    server: report.server,
    scoreboard: report.scoreboard,
    counts: report.counts,
    get slots(): Slot[] | null {
      if (!built) settle(rows.build());
      return slots;
    },
    set slots(value: Slot[] | null) {
      settle(value);
    },
    legend: report.legend,
    sslCache: report.sslCache,
    connections: report.connections,
    processes: report.processes,
    warnings: report.warnings,
  };
  pending.set(lazy, rows);
  return lazy;
}

/** Whether the report's slots are still to be built (their rows passed every check of the parse). */
function slotsPending(report: StatusReport): boolean {
  return pending.has(report);
}

/**
 * The report's slots as the metrics read them, without building them when they are still
 * pending; null when the report has no slot table.
 */
function slotBriefOf(report: StatusReport): SlotBrief | null {
  const rows = pending.get(report);
  if (rows !== undefined) return rows;
  const slots = report.slots;
  if (slots === null) return null;
  const at = (i: number) => slots[i] as Slot;
  return {
    count: slots.length,
    modeCode: (i) => at(i).mode.charCodeAt(0),
    ss: (i) => at(i).ss,
    client: (i) => at(i).client,
    vhost: (i) => at(i).vhost,
    clientAddress: () => -1,
  };
}

export type { PendingSlots, SlotBrief };
export { slotBriefOf, slotsPending, withLazySlots };
