/**
 * Context for slot rules: who holds the slots in question (clients, vhosts, requests), the oldest
 * requests, and the scoreboard as a small map. Names are kept as data (`cleanReportText` with
 * `use: 'data'`); whoever shows them to people cleans them for a page.
 */
import { SCOREBOARD_MAP_MAX_LINES, SCOREBOARD_MAP_WIDTH, TOP_OFFENDERS } from '../constants.ts';
import { MODE_SET, type Slot } from '../report/types.ts';
import { BUSY_MODES, countsMode } from '../rules/metrics.ts';
import { cleanReportText, TEXT_USES } from '../text/sanitize.ts';

const FREE_MODES = '_.';

interface Count {
  name: string;
  count: number;
}

interface Offenders {
  /** The modes of the counted slots, e.g. `SRWKDCLI` (see `offenderModes`). */
  modes: string;
  /** How many rows of the slot table were counted. */
  slots: number;
  clients: Count[];
  vhosts: Count[];
  requests: Count[];
  /** The longest-running counted requests: `ss` seconds since they started. */
  oldest: Array<{ request: string; client: string; vhost: string; ss: number }>;
}

const asData = (text: string) => cleanReportText(text, { use: TEXT_USES.data });

/**
 * The modes whose slots a page lists for a metric counting `metricModes`. Idle and open
 * positions hold no request (their columns show the last one served), so they are left out; a
 * metric of free positions only (`slots_free`, `slots_idle`: too few free) lists what holds the
 * busy workers instead.
 *
 * @example
 * offenderModes('_.') // 'SRWKDCLI'
 * offenderModes('C')  // 'C'
 */
function offenderModes(metricModes: string): string {
  const held = [...metricModes].filter((m) => !FREE_MODES.includes(m)).join('');
  return held === '' ? BUSY_MODES : held;
}

function top(slots: readonly Slot[], key: 'client' | 'vhost' | 'request', n: number): Count[] {
  const counts = new Map<string, number>();
  for (const s of slots) {
    const name = asData(s[key]);
    if (name !== '') counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, n);
}

/**
 * The top offenders among the slots in `modes` (text cleaned as data); null without a slot table.
 *
 * @example
 * findOffenders(report.slots, 'C')?.clients // [{ name: '10.0.0.7', count: 3 }]
 */
function findOffenders(slots: readonly Slot[] | null, modes: string, n = TOP_OFFENDERS): Offenders | null {
  if (slots === null) return null;
  const counted = slots.filter((s) => countsMode(modes, s.mode));
  const oldest = counted
    .filter((s) => s.request !== '')
    .sort((a, b) => b.ss - a.ss)
    .slice(0, n)
    .map((s) => ({
      request: asData(s.request),
      client: asData(s.client),
      vhost: asData(s.vhost),
      ss: s.ss,
    }));
  return {
    modes,
    slots: counted.length,
    clients: top(counted, 'client', n),
    vhosts: top(counted, 'vhost', n),
    requests: top(counted, 'request', n),
    oldest,
  };
}

/**
 * The scoreboard in lines of 64 positions; the trailing run of open positions (`.`) is counted
 * instead of drawn, and very large scoreboards are cut after 16 lines.
 */
function scoreboardMap(scoreboard: string): string[] {
  const safe = [...scoreboard].map((c) => (MODE_SET.has(c) ? c : '?')).join('');
  const drawn = safe.replace(/\.+$/, '');
  const lines: string[] = [];
  for (let at = 0; at < drawn.length && lines.length < SCOREBOARD_MAP_MAX_LINES; at += SCOREBOARD_MAP_WIDTH) {
    lines.push(drawn.slice(at, at + SCOREBOARD_MAP_WIDTH));
  }
  const shown = lines.reduce((sum, l) => sum + l.length, 0);
  const open = safe.length - drawn.length;
  if (shown < drawn.length) lines.push(`(+${drawn.length - shown} more positions, then ${open} open)`);
  else if (open > 0) lines.push(`(+${open} open positions)`);
  return lines;
}

export type { Count, Offenders };
export { findOffenders, offenderModes, scoreboardMap };
