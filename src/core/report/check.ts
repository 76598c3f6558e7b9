/**
 * `checkReport`: the last step of every parse, whatever the form. A report is written by a server
 * that anyone can talk to, and its numbers end up in alert state and pages, so what cannot be true
 * is taken out here, each time with a warning:
 * - a number that is not finite or is negative (`Total Accesses: 1e+999`, `-5`) becomes `null`;
 *   where the contract has no `null` for it, its unit goes instead (a slot row; the SSL/TLS cache
 *   block, as when one of its lines is missing);
 * - a slot printed twice (prefork: same Srv) is kept once; rows beyond the scoreboard's positions
 *   are dropped, so the table never holds more slots than the scoreboard has positions;
 * - the warnings themselves are capped.
 */
import { positionOf } from './common.ts';
import { slotsPending } from './lazySlots.ts';
import type { Slot, SslCache, StatusReport } from './types.ts';

/** Warnings kept per report; the rest are counted in a last one. */
const MAX_WARNINGS = 100;
/** Examples named by a warning that sums up many rows. */
const MAX_EXAMPLES = 3;

/** A slot's numbers that may be `null` in the contract, and those that may not (the row goes). */
const NULLABLE_SLOT_NUMBERS = ['pid', 'cpu', 'durMs'] as const;
const REQUIRED_SLOT_NUMBERS = ['ss', 'reqMs', 'connKB', 'childMB', 'slotMB'] as const;

function isGood(value: number): boolean {
  return Number.isFinite(value) && value >= 0;
}

function expected(path: string, value: number): string {
  return `${path} is ${String(value)}, expected a finite number >= 0`;
}

/** Rows (or values) taken out for one reason: how many, and the first few for the warning. */
class DroppedRows {
  count = 0;
  readonly examples: string[] = [];

  /** Count one; only the first few are described (a table may repeat 400,000 rows). */
  add(index: number, slot: Slot, detail = ''): void {
    if (this.count++ < MAX_EXAMPLES) this.examples.push(`row ${index + 1}, Srv ${JSON.stringify(slot.srv)}${detail}`);
  }

  /** `"; 2 more"`-style summary pushed as one warning, or nothing when no row was dropped. */
  report(what: string, action: string, warnings: string[]): void {
    if (this.count === 0) return;
    const more = this.count > this.examples.length ? `, and ${this.count - this.examples.length} more` : '';
    warnings.push(`${this.count} ${what} (${this.examples.join('; ')}${more}); ${action}`);
  }
}

/**
 * Every number field of `record` (header values, event MPM connection totals, a process row) that
 * is not a finite number >= 0 becomes `null`. Those fields are `number | null` in the contract.
 */
function nullBadNumbers(record: object, path: string, warnings: string[]): void {
  const fields = record as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'number' && !isGood(value)) {
      fields[key] = null;
      warnings.push(`${expected(`${path}.${key}`, value)}; reported as null`);
    }
  }
}

/** The cache block with its impossible numbers out: `replaced` may be `null`, the others may not. */
function checkSslCache(cache: SslCache, warnings: string[]): SslCache | null {
  const bad = (Object.keys(cache) as Array<keyof SslCache>).filter((key) => {
    const value = cache[key];
    return typeof value === 'number' && !isGood(value);
  });
  if (bad.length === 0) return cache;
  if (bad.length === 1 && bad[0] === 'replaced') {
    warnings.push(`${expected('sslCache.replaced', cache.replaced as number)}; reported as null`);
    return { ...cache, replaced: null };
  }
  const found = bad.map((key) => expected(`sslCache.${key}`, cache[key] as number)).join(', ');
  warnings.push(`${found}; the SSL/TLS session cache block is not reported`);
  return null;
}

/** A slot's numbers: a `Slot`, or a row's numbers read before its slot is built. */
type SlotNumbers = Pick<Slot, 'pid' | 'acc' | 'cpu' | 'ss' | 'reqMs' | 'durMs' | 'connKB' | 'childMB' | 'slotMB'>;

/** Whether every number of the slot is finite and >= 0 (the usual case, checked without loops). */
function allGood(s: SlotNumbers): boolean {
  return (
    isGood(s.ss) &&
    isGood(s.reqMs) &&
    isGood(s.connKB) &&
    isGood(s.childMB) &&
    isGood(s.slotMB) &&
    isGood(s.acc[0]) &&
    isGood(s.acc[1]) &&
    isGood(s.acc[2]) &&
    (s.pid === null || isGood(s.pid)) &&
    (s.cpu === null || isGood(s.cpu)) &&
    (s.durMs === null || isGood(s.durMs))
  );
}

/** Why a slot cannot be kept (a required number is impossible), or null; nullable ones are nulled. */
function checkSlotNumbers(slot: Slot, index: number, nulled: DroppedRows): string | null {
  if (allGood(slot)) return null;
  for (const key of REQUIRED_SLOT_NUMBERS) if (!isGood(slot[key])) return expected(key, slot[key]);
  for (let i = 0; i < 3; i++) if (!isGood(slot.acc[i] as number)) return expected(`acc[${i}]`, slot.acc[i] as number);
  for (const key of NULLABLE_SLOT_NUMBERS) {
    const value = slot[key];
    if (value !== null && !isGood(value)) {
      slot[key] = null;
      nulled.add(index, slot, `: ${expected(key, value)}`);
    }
  }
  return null;
}

/**
 * Slots with impossible numbers dropped, each slot once, none beyond the scoreboard. Prefork's Srv
 * is the scoreboard position: a second row for a position is the same slot printed twice, and a
 * position past the scoreboard's end is none of its slots. Threaded MPMs print one Srv for all
 * threads of a process (no thread number), so there a slot cannot be told from its neighbour:
 * rows past the scoreboard's length are dropped. Either way the table ends up no longer than the
 * scoreboard (real tables are: never-used idle slots have no row).
 */
function checkSlots(slots: readonly Slot[], report: StatusReport, warnings: string[]): Slot[] {
  const positions = report.scoreboard.length;
  const prefork = report.server.mpm === 'prefork';
  const badNumbers = new DroppedRows();
  const nulled = new DroppedRows();
  const repeated = new DroppedRows();
  const beyond = new DroppedRows();
  const seenPositions = new Uint8Array(prefork ? positions : 0);
  const kept: Slot[] = [];
  for (let index = 0; index < slots.length; index++) {
    const slot = slots[index] as Slot;
    const problem = checkSlotNumbers(slot, index, nulled);
    const position = prefork ? positionOf(slot.srv) : null;
    if (problem !== null) badNumbers.add(index, slot, `: ${problem}`);
    else if (position !== null && position >= positions) beyond.add(index, slot);
    else if (position !== null && seenPositions[position] === 1) repeated.add(index, slot);
    else if (kept.length >= positions) beyond.add(index, slot);
    else {
      if (position !== null) seenPositions[position] = 1;
      kept.push(slot);
    }
  }
  nulled.report('slot values are impossible', 'reported as null', warnings);
  badNumbers.report('slot rows have an impossible number', 'those rows are skipped', warnings);
  repeated.report(
    'slot rows repeat a scoreboard position (Srv) already printed',
    'the first printing of each slot is kept',
    warnings,
  );
  beyond.report(
    `slot rows lie beyond the scoreboard's ${positions} positions`,
    'dropped, so the table counts no more slots than the scoreboard has',
    warnings,
  );
  return kept;
}

/**
 * Whether `checkSlots` and `checkModesAgainstScoreboard` keep `count` rows of possible numbers as
 * they are, without a warning: no more rows than positions, and under prefork each row's position
 * (`positions`, -1: none read) a distinct one on the scoreboard whose character is its mode code
 * (`modes`). Pending rows are left pending only then (`lazySlots.ts`); others are built and checked.
 */
function fitsScoreboard(
  count: number,
  positions: ArrayLike<number>,
  modes: ArrayLike<number>,
  scoreboard: string,
  prefork: boolean,
): boolean {
  if (count > scoreboard.length) return false;
  if (!prefork) return true;
  const seen = new Uint8Array(scoreboard.length);
  for (let row = 0; row < count; row++) {
    const position = positions[row] as number;
    if (position < 0 || position >= scoreboard.length || seen[position] === 1) return false;
    seen[position] = 1;
    if (scoreboard.charCodeAt(position) !== modes[row]) return false;
  }
  return true;
}

/**
 * One copy of each warning (a slot printed 3,000 times disagrees with the scoreboard 3,000 times),
 * then the first `MAX_WARNINGS - 1` and a last one counting the rest.
 */
function capWarnings(warnings: string[]): void {
  const distinct = [...new Set(warnings)];
  if (distinct.length < warnings.length) {
    const repeats = warnings.length - distinct.length;
    warnings.length = 0;
    for (const warning of distinct) warnings.push(warning);
    warnings.push(`${repeats} repeated warnings not shown again`);
  }
  if (warnings.length <= MAX_WARNINGS) return;
  const dropped = warnings.length - (MAX_WARNINGS - 1);
  warnings.length = MAX_WARNINGS - 1;
  warnings.push(`${dropped} more warnings not shown`);
}

/**
 * Take out of a parsed report what cannot be true (see the file comment), adding warnings. Mutates
 * and returns `report`.
 *
 * @example
 * checkReport(parseAuto('Total Accesses: 1e+999\nScoreboard: _W\n')).server.totalAccesses // null
 */
function checkReport(report: StatusReport): StatusReport {
  const { warnings } = report;
  nullBadNumbers(report.server, 'server', warnings);
  // The event MPM's connection totals and process rows (contract: every number may be null).
  const extra = report as unknown as { connections?: object | null; processes?: object[] | null };
  if (extra.connections) nullBadNumbers(extra.connections, 'connections', warnings);
  for (const [i, process] of (extra.processes ?? []).entries()) nullBadNumbers(process, `processes[${i}]`, warnings);
  if (report.sslCache !== null) report.sslCache = checkSslCache(report.sslCache, warnings);
  // Pending slots passed these checks in the parse (`fitsScoreboard`): reading them would build them.
  if (!slotsPending(report) && report.slots !== null) report.slots = checkSlots(report.slots, report, warnings);
  capWarnings(warnings);
  return report;
}

export { allGood, checkReport, fitsScoreboard, MAX_WARNINGS };
