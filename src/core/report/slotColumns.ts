/**
 * A text dump's slot rows kept by column until someone reads the slots (`withLazySlots`): their
 * numbers in one `Float64Array`, their modes as character codes, their texts in arrays. A
 * 20,000-slot dump made 20,000 slot objects (470 bytes each, with their acc arrays and boxed
 * numbers) that all outlived the young generation during the parse, and copying them was a
 * quarter of its time; these columns are a fraction of that, and the numbers are not copied at
 * all. `build` makes the slots the eager parse made, field for field.
 */
import { allGood, fitsScoreboard } from './check.ts';
import { isRequestTruncated, positionOf } from './common.ts';
import type { PendingSlots } from './lazySlots.ts';
import type { Slot } from './types.ts';

/** Per row in `numbers`: pid, acc (3), cpu, ss, reqMs, durMs, connKB, childMB, slotMB; NaN for null. */
const NUMBERS = 11;
/** The most rows made room for before any is read. */
const FIRST_ROOM = 4096;
const At = { pid: 0, acc: 1, cpu: 4, ss: 5, reqMs: 6, durMs: 7, connKB: 8, childMB: 9, slotMB: 10 } as const;

/** A row's fields as the reader found them: a `Slot` without `requestTruncated` (it follows from `request`). */
type SlotDraft = Omit<Slot, 'requestTruncated'>;

/** A draft to refill row after row. */
function emptyDraft(): SlotDraft {
  return {
    srv: '',
    pid: null,
    acc: [0, 0, 0],
    mode: '_',
    cpu: null,
    ss: 0,
    reqMs: 0,
    durMs: null,
    connKB: 0,
    childMB: 0,
    slotMB: 0,
    client: '',
    protocol: null,
    vhost: '',
    request: '',
  };
}

const orNaN = (value: number | null): number => value ?? Number.NaN;
const orNull = (value: number): number | null => (Number.isNaN(value) ? null : value);

class SlotColumns implements PendingSlots {
  count = 0;
  /** False once a row holds an impossible number (the report check would null it or drop its row). */
  numbersGood = true;
  private numbers: Float64Array;
  private modes: Uint16Array;
  private positions: Int32Array;
  private readonly srvs: string[] = [];
  private readonly clients: string[] = [];
  private readonly protocols: (string | null)[] = [];
  private readonly vhosts: string[] = [];
  private readonly requests: string[] = [];

  /**
   * Room for `rows` rows at once (the scoreboard's positions: a table that fits has no more), so
   * a 1,024-slot table takes one allocation, not five that double up to it; at most
   * `FIRST_ROOM` (a hostile scoreboard of millions of positions over a dump of millions of lines
   * would otherwise allocate for rows that never come), doubled as rows come.
   */
  constructor(rows: number) {
    const capacity = Math.min(Math.max(rows, 16), FIRST_ROOM);
    this.numbers = new Float64Array(capacity * NUMBERS);
    this.modes = new Uint16Array(capacity);
    this.positions = new Int32Array(capacity);
  }

  /** Keep one row (its mode one character, as the reader checked). */
  add(row: SlotDraft): void {
    const i = this.count++;
    if (i === this.modes.length) this.grow();
    const at = i * NUMBERS;
    const numbers = this.numbers;
    numbers[at + At.pid] = orNaN(row.pid);
    numbers[at + At.acc] = row.acc[0];
    numbers[at + At.acc + 1] = row.acc[1];
    numbers[at + At.acc + 2] = row.acc[2];
    numbers[at + At.cpu] = orNaN(row.cpu);
    numbers[at + At.ss] = row.ss;
    numbers[at + At.reqMs] = row.reqMs;
    numbers[at + At.durMs] = orNaN(row.durMs);
    numbers[at + At.connKB] = row.connKB;
    numbers[at + At.childMB] = row.childMB;
    numbers[at + At.slotMB] = row.slotMB;
    this.modes[i] = row.mode.charCodeAt(0);
    this.positions[i] = positionOf(row.srv) ?? -1;
    this.srvs.push(row.srv);
    this.clients.push(row.client);
    this.protocols.push(row.protocol);
    this.vhosts.push(row.vhost);
    this.requests.push(row.request);
    if (this.numbersGood && !allGood(row)) this.numbersGood = false;
  }

  private grow(): void {
    const numbers = new Float64Array(this.numbers.length * 2);
    numbers.set(this.numbers);
    this.numbers = numbers;
    const modes = new Uint16Array(this.modes.length * 2);
    modes.set(this.modes);
    this.modes = modes;
    const positions = new Int32Array(this.positions.length * 2);
    positions.set(this.positions);
    this.positions = positions;
  }

  /** Whether the report check and the M-against-scoreboard check keep every row as it is (`fitsScoreboard`). */
  fitsScoreboard(scoreboard: string, prefork: boolean): boolean {
    return this.numbersGood && fitsScoreboard(this.count, this.positions, this.modes, scoreboard, prefork);
  }

  modeCode(i: number): number {
    return this.modes[i] as number;
  }

  ss(i: number): number {
    return this.numbers[i * NUMBERS + At.ss] as number;
  }

  client(i: number): string {
    return this.clients[i] as string;
  }

  vhost(i: number): string {
    return this.vhosts[i] as string;
  }

  clientAddress(): number {
    return -1; // `client(i)` is a string already
  }

  /** Every row as the slot the eager parse made of it (the same field order: JSON is the same). */
  build(): Slot[] {
    const slots: Slot[] = [];
    const n = this.numbers;
    for (let i = 0, at = 0; i < this.count; i++, at += NUMBERS) {
      const request = this.requests[i] as string;
      slots.push({
        srv: this.srvs[i] as string,
        pid: orNull(n[at + At.pid] as number),
        acc: [n[at + At.acc] as number, n[at + At.acc + 1] as number, n[at + At.acc + 2] as number],
        mode: String.fromCharCode(this.modes[i] as number),
        cpu: orNull(n[at + At.cpu] as number),
        ss: n[at + At.ss] as number,
        reqMs: n[at + At.reqMs] as number,
        durMs: orNull(n[at + At.durMs] as number),
        connKB: n[at + At.connKB] as number,
        childMB: n[at + At.childMB] as number,
        slotMB: n[at + At.slotMB] as number,
        client: this.clients[i] as string,
        protocol: this.protocols[i] as string | null,
        vhost: this.vhosts[i] as string,
        request,
        requestTruncated: isRequestTruncated(request),
      });
    }
    return slots;
  }
}

export type { SlotDraft };
export { emptyDraft, SlotColumns };
