/**
 * The event MPM's per-process table in a text dump: lynx at 80 columns flows it (cells joined by
 * single spaces, the Sum row's empty accepting cell gone), wider dumps align it, a browser copy
 * separates cells with tabs. Either way a row is a run of units in the header's order.
 */
import { isProcessTableHeader, type ProcessTable, ProcessTableReader } from './eventProcesses.ts';
import { unitsOf } from './textTable.ts';

/** Header units, with the group header `Async connections` (two words in a dump) as one unit. */
function headerUnits(line: string): string[] {
  const units = unitsOf(line);
  const joined: string[] = [];
  for (let i = 0; i < units.length; i++) {
    if (units[i] === 'Async' && units[i + 1] === 'connections') {
      joined.push('Async connections');
      i++;
    } else joined.push(units[i] as string);
  }
  return joined;
}

/** Row units; a Stopping cell of several words (`yes (old gen)`) is one unit again. */
function rowUnits(line: string): string[] {
  if (line.includes('\t')) return unitsOf(line);
  const units: string[] = [];
  let open = false; // inside a parenthesised remark
  for (const unit of unitsOf(line)) {
    if (open || (unit.startsWith('(') && units.length > 0)) {
      units[units.length - 1] += ` ${unit}`;
      open = !unit.endsWith(')');
    } else units.push(unit);
  }
  return units;
}

/**
 * The process table among `lines[0, end)` (the lines before the scoreboard), or `null` when there
 * is none. Rows run from the two header lines to the first blank line or `isEnd` line.
 */
function readProcessTableText(
  lines: readonly string[],
  end: number,
  isEnd: (line: string) => boolean,
  warnings: string[],
): ProcessTable | null {
  for (let i = 0; i < end; i++) {
    const top = headerUnits(lines[i] as string);
    if (!isProcessTableHeader(top)) continue;
    const reader = new ProcessTableReader(warnings);
    reader.addRow(top, true);
    if (i + 1 < end) reader.addRow(unitsOf(lines[i + 1] as string), true);
    for (let k = i + 2; k < end; k++) {
      const line = lines[k] as string;
      if (line.trim() === '' || isEnd(line)) break;
      reader.addRow(rowUnits(line), false);
    }
    return reader.finish();
  }
  return null;
}

export { readProcessTableText };
