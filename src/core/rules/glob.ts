/**
 * Name globs of rules and silences: `*` matches any run of characters, everything else is literal.
 */

/** Whether `name` matches `pattern` (`web-*`, `*`, or an exact name). */
function globMatch(pattern: string, name: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === name;
  const first = parts[0] as string;
  const last = parts[parts.length - 1] as string;
  if (!name.startsWith(first) || name.length < first.length + last.length || !name.endsWith(last)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = name.indexOf(middle, at);
    if (found === -1 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

/** Whether any of `patterns` matches `name`; null patterns match everything. */
function anyGlobMatch(patterns: readonly string[] | null, name: string): boolean {
  return patterns === null || patterns.some((p) => globMatch(p, name));
}

export { anyGlobMatch, globMatch };
