/**
 * The nearest of some known names to what a user typed, for "did you mean ...?": an unknown
 * option, a rule or target a silence would match nothing of, a mistyped schema field.
 */

/** Edit distance (insert, delete, substitute, swap of neighbours), one row at a time. */
function distance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, (before[j - 2] as number) + 1);
      row.push(d);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length] as number;
}

/**
 * The known names close enough to `typed` to be what was meant, nearest first (at most `max`):
 * within a third of the longer name's length (at least 2 edits), or starting with it, or
 * differing only in case.
 *
 * @example
 * nearestNames('--timout', ['--timeout', '--target']) // ['--timeout']
 * nearestNames('timeout', ['timeoutMs', 'maxBytes'])  // ['timeoutMs']
 */
function nearestNames(typed: string, known: readonly string[], max = 3): string[] {
  const lower = typed.toLowerCase();
  const scored: Array<[string, number]> = [];
  for (const name of known) {
    const d = distance(lower, name.toLowerCase());
    const close = d <= Math.max(2, Math.floor(Math.max(name.length, typed.length) / 3));
    const prefix = typed.length >= 3 && (name.startsWith(typed) || typed.startsWith(name));
    if (close || prefix) scored.push([name, d]);
  }
  return scored
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
    .slice(0, max)
    .map(([name]) => name);
}

/** ` (did you mean x?)`, ` (did you mean x or y?)`, or '' when nothing is close. */
function didYouMean(typed: string, known: readonly string[]): string {
  const names = nearestNames(typed, known);
  if (names.length === 0) return '';
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  return ` (did you mean ${list}?)`;
}

export { didYouMean, distance, nearestNames };
