/** Milliseconds from `since` (an ISO time) to `now`; 0 when there is no `since`. */
function elapsedMs(now: Date, since: string | null | undefined): number {
  return since == null ? 0 : now.getTime() - Date.parse(since);
}

/**
 * When an alert kept firing since `keepFiringSince` resolves unless its condition returns (ISO);
 * null when it is not being kept firing.
 *
 * @example
 * resolvesAt('2026-11-22T12:10:00.000Z', 300_000); // '2026-11-22T12:15:00.000Z'
 */
function resolvesAt(keepFiringSince: string | null | undefined, keepFiringForMs: number): string | null {
  return keepFiringSince == null ? null : new Date(Date.parse(keepFiringSince) + keepFiringForMs).toISOString();
}

export { elapsedMs, resolvesAt };
