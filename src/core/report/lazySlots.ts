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

/**
 * A report whose slots are built on first read: its fields in the contract's order, `slots` an own
 * enumerable accessor. The accessor's getter and setter are the same two functions for every
 * report and the rows are a private field: a getter closure per report (kept by the accessor pair
 * V8 allocates in the old generation) or a `WeakMap` entry (kept by the young-generation
 * collection) held every parse's rows past its young generation, to be copied there and found
 * dead only by a full collection.
 */
class LazyReport implements StatusReport {
  format: StatusReport['format'];
  server: StatusReport['server'];
  scoreboard: string;
  counts: StatusReport['counts'];
  slots!: Slot[] | null; // made an accessor (SLOTS_PROPERTY) in place: the field order stays
  legend: StatusReport['legend'];
  sslCache: StatusReport['sslCache'];
  connections: StatusReport['connections'];
  processes: StatusReport['processes'];
  warnings: string[];
  #rows: PendingSlots | undefined;
  #slots: Slot[] | null = null;

  constructor(report: StatusReport, rows: PendingSlots) {
    this.format = report.format;
    this.server = report.server;
    this.scoreboard = report.scoreboard;
    this.counts = report.counts;
    Object.defineProperty(this, 'slots', SLOTS_PROPERTY);
    this.legend = report.legend;
    this.sslCache = report.sslCache;
    this.connections = report.connections;
    this.processes = report.processes;
    this.warnings = report.warnings;
    this.#rows = rows;
  }

  /** The rows of `report` while its slots are not read (built or replaced) yet. */
  static rowsOf(report: StatusReport): PendingSlots | undefined {
    return #rows in report ? report.#rows : undefined;
  }

  static read(report: LazyReport): Slot[] | null {
    const rows = report.#rows;
    if (rows !== undefined) LazyReport.write(report, rows.build());
    return report.#slots;
  }

  static write(report: LazyReport, slots: Slot[] | null): void {
    report.#slots = slots;
    report.#rows = undefined;
  }
}

/** `slots` of every lazy report: built once on first read; a write replaces them as for a plain field. */
const SLOTS_PROPERTY: PropertyDescriptor = {
  get(this: LazyReport): Slot[] | null {
    return LazyReport.read(this);
  },
  set(this: LazyReport, slots: Slot[] | null): void {
    LazyReport.write(this, slots);
  },
  enumerable: true,
  configurable: true,
};

/**
 * `report` with its `slots` built from `rows` on first read. The fields keep their order: JSON is
 * byte for byte the eager report's.
 */
function withLazySlots(report: StatusReport, rows: PendingSlots): StatusReport {
  return new LazyReport(report, rows);
}

/** Whether the report's slots are still to be built (their rows passed every check of the parse). */
function slotsPending(report: StatusReport): boolean {
  return LazyReport.rowsOf(report) !== undefined;
}

/**
 * The report's slots as the metrics read them, without building them when they are still
 * pending; null when the report has no slot table.
 */
function slotBriefOf(report: StatusReport): SlotBrief | null {
  const rows = LazyReport.rowsOf(report);
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
