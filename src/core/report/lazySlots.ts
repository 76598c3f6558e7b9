/**
 * A report whose slots are built on first read. A steady run reads a thousand 1,024-slot pages a
 * minute and needs four figures from their slots, never the slots themselves: the parse records
 * the slot table's rows and checks them (every warning is known when it returns), and
 * `report.slots` is an own enumerable accessor that builds the slots once and returns them after.
 * `JSON.stringify`, `structuredClone`, spread and `toEqual` all read it, so they see the report an
 * eager parse gives. Meanwhile the metrics read what they need through `slotBriefOf`. Both
 * parsers' tables use it (`html/slotTable/pending.ts`, `slotColumns.ts` for the text dump).
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
 * The base of private-field stamping: its constructor returns the object it is given, so a
 * subclass's private fields are installed on that object (here, a plain report) instead of on a
 * new instance. Only `PendingOf` extends it, and only `withLazySlots` constructs one.
 */
class Given {
  constructor(object: object) {
    // biome-ignore lint/correctness/noConstructorReturn: private-field stamping, see `PendingOf`
    return object;
  }
}

/**
 * The pending state of a lazy report (its rows until the slots are read, then its slots), kept in
 * private fields stamped onto the report itself: `new PendingOf(report, rows)` adds them and
 * returns the report (`Given`). Private fields are the one place for per-report state that keeps
 * every promise the report makes and dies young with it; each other place broke one, measured:
 * - a `WeakMap` from report to rows: V8's scavenger keeps a `WeakMap`'s entries, so every parse's
 *   rows were copied to the old generation and found dead only by a full collection (a loop of
 *   400,000 short-lived entries ran 4x slower with the map; scavenges promoted everything);
 * - a getter closure per report: its accessor pair is allocated in the old generation and holds
 *   the closure (so the shared accessor `SLOTS_PROPERTY` below is the same two functions for all);
 * - a symbol-keyed property, even non-enumerable: `Reflect.ownKeys` shows it, and the report must
 *   show the eager report's keys and no more (test/core/report/lazySlots.test.ts);
 * - an instance of a class: its prototype is not `Object.prototype`, so `isDeepStrictEqual` with
 *   the eager report fails.
 */
class PendingOf extends Given {
  #rows: PendingSlots | undefined;
  #slots: Slot[] | null = null;

  constructor(report: StatusReport, rows: PendingSlots) {
    super(report);
    this.#rows = rows;
  }

  /** The rows of `report` while its slots are not read (built or replaced) yet. */
  static rowsOf(report: object): PendingSlots | undefined {
    return #rows in report ? report.#rows : undefined;
  }

  static read(report: object): Slot[] | null {
    const pending = report as PendingOf;
    const rows = pending.#rows;
    if (rows !== undefined) PendingOf.write(report, rows.build());
    return pending.#slots;
  }

  static write(report: object, slots: Slot[] | null): void {
    const pending = report as PendingOf;
    pending.#slots = slots;
    pending.#rows = undefined;
  }
}

/** `slots` of every lazy report: built once on first read; a write replaces them as for a plain field. */
const SLOTS_PROPERTY: PropertyDescriptor = {
  get(this: StatusReport): Slot[] | null {
    return PendingOf.read(this);
  },
  set(this: StatusReport, slots: Slot[] | null): void {
    PendingOf.write(this, slots);
  },
  enumerable: true,
  configurable: true,
};

/**
 * `report`'s fields in a plain object whose `slots` are built from `rows` on first read. The
 * fields keep their order (`slots` is made an accessor in its place): JSON is byte for byte the
 * eager report's, and the object is as plain as an eager report (`isDeepStrictEqual` holds).
 */
function withLazySlots(report: StatusReport, rows: PendingSlots): StatusReport {
  const lazy: StatusReport = { ...report, slots: null };
  Object.defineProperty(lazy, 'slots', SLOTS_PROPERTY);
  new PendingOf(lazy, rows);
  return lazy;
}

/** Whether the report's slots are still to be built (their rows passed every check of the parse). */
function slotsPending(report: StatusReport): boolean {
  return PendingOf.rowsOf(report) !== undefined;
}

/**
 * The report's slots as the metrics read them, without building them when they are still
 * pending; null when the report has no slot table.
 */
function slotBriefOf(report: StatusReport): SlotBrief | null {
  const rows = PendingOf.rowsOf(report);
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
