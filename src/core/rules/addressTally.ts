/**
 * How many busy slots each client address holds, for `top_client_*`: a thousand busy slots per
 * page each add one, and an open-addressing table of 32-bit keys does that in a tenth of a
 * `Map`'s time (no entry object, no rehash: its size is set from the most keys it will see).
 * Clients choose their addresses, so addresses made to collide could make each add a walk of the
 * table: past a linear budget of probes the counts move to a `Map` and go on there.
 */

/** Probes per add, on average, before the table gives way to a `Map`: a half-empty table needs 1-2. */
const PROBES_PER_ADD = 8;
/** Fibonacci hashing: the key times 2^32 / golden ratio, its top bits the slot. */
const GOLDEN = 0x9e3779b9;

class AddressTally {
  /** Per table slot: the key (the address's 32 bits), and its count (0: empty). */
  private readonly keys: Int32Array;
  private readonly counts: Int32Array;
  private readonly shift: number;
  private readonly budget: number;
  private probes = 0;
  /** The counts once the table gave way (null before). */
  private spilled: Map<number, number> | null = null;

  /** Room for `adds` adds, each a distinct address at most: the table stays at most half full. */
  constructor(adds: number) {
    let bits = 4;
    while (1 << bits < adds * 2) bits++;
    this.keys = new Int32Array(1 << bits);
    this.counts = new Int32Array(1 << bits);
    this.shift = 32 - bits;
    this.budget = PROBES_PER_ADD * (adds + 1);
  }

  /** Whether the counts moved to a `Map` (the probes ran past their budget). */
  get gaveWay(): boolean {
    return this.spilled !== null;
  }

  /** Count one more slot of `address` (0 to 2^32 - 1); its count so far. */
  add(address: number): number {
    return this.spilled === null ? this.probe(address | 0) : this.addToMap(address);
  }

  private probe(key: number): number {
    const { keys, counts } = this;
    const mask = keys.length - 1;
    for (let at = Math.imul(key, GOLDEN) >>> this.shift; ; at = (at + 1) & mask) {
      if (++this.probes > this.budget) return this.spill(key);
      const count = counts[at] as number;
      if (count === 0) {
        keys[at] = key;
        counts[at] = 1;
        return 1;
      }
      if (keys[at] === key) {
        counts[at] = count + 1;
        return count + 1;
      }
    }
  }

  private spill(key: number): number {
    const spilled = new Map<number, number>();
    for (let at = 0; at < this.keys.length; at++) {
      const count = this.counts[at] as number;
      if (count > 0) spilled.set((this.keys[at] as number) >>> 0, count);
    }
    this.spilled = spilled;
    return this.addToMap(key >>> 0);
  }

  private addToMap(address: number): number {
    const spilled = this.spilled as Map<number, number>;
    const count = (spilled.get(address) ?? 0) + 1;
    spilled.set(address, count);
    return count;
  }
}

export { AddressTally };
