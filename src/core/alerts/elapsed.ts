/** Milliseconds from `since` (an ISO time) to `now`; 0 when there is no `since`. */
function elapsedMs(now: Date, since: string | null | undefined): number {
  return since == null ? 0 : now.getTime() - Date.parse(since);
}

export { elapsedMs };
