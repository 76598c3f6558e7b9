/**
 * Pieces every input form shares: mode counts, APR numbers, the header sentences of the HTML page
 * (also found, as plain lines, in text dumps), the SSL/TLS session cache prose, request truncation
 * and the scoreboard/column-M cross-check.
 */
import { MODE_CHARS, type ModeCounts, type ServerInfo, type Slot, type SslCache } from './types.ts';

function emptyServer(): ServerInfo {
  return {
    version: null,
    mpm: null,
    currentTime: null,
    restartTime: null,
    uptimeSeconds: null,
    totalAccesses: null,
    totalKBytes: null,
    busyWorkers: null,
    idleWorkers: null,
    gracefulWorkers: null,
    processes: null,
    stoppingProcesses: null,
  };
}

/** How many distinct unknown scoreboard characters a warning lists. */
const MAX_UNKNOWN_SHOWN = 32;

/** For each character code below 128, its index in `MODE_CHARS`, or -1: a scoreboard may be 20 MB. */
const MODE_INDEX = new Int8Array(128).fill(-1);
MODE_CHARS.forEach((c, i) => {
  MODE_INDEX[c.charCodeAt(0)] = i;
});

/** The index in `MODE_CHARS` of the character code `code`, or -1 when it is no mode character. */
function modeIndexOf(code: number): number {
  return code < 128 ? (MODE_INDEX[code] as number) : -1;
}

/** Count each of the 11 mode characters; characters outside them are reported in `warnings`. */
function countModes(scoreboard: string, warnings: string[]): ModeCounts {
  const countAtModeIndex = new Array<number>(MODE_CHARS.length).fill(0);
  // A set, not a string searched per character: a hostile scoreboard may hold thousands of distinct ones.
  const unknown = new Set<string>();
  for (let i = 0; i < scoreboard.length; i++) {
    const k = modeIndexOf(scoreboard.charCodeAt(i));
    if (k >= 0) countAtModeIndex[k] = (countAtModeIndex[k] as number) + 1;
    else unknown.add(scoreboard[i] as string);
  }
  const counts = Object.fromEntries(MODE_CHARS.map((c, k) => [c, countAtModeIndex[k]])) as ModeCounts;
  if (unknown.size > 0) {
    const shown = [...unknown].slice(0, MAX_UNKNOWN_SHOWN).join('');
    const more = unknown.size > MAX_UNKNOWN_SHOWN ? ` and ${unknown.size - MAX_UNKNOWN_SHOWN} more` : '';
    warnings.push(`scoreboard has characters outside the 11 modes: ${JSON.stringify(shown)}${more}`);
  }
  return counts;
}

// Linear: every quantifier is followed by a character it cannot match (digits, then "." or "e" or
// the end), so a failed match gives nothing back to retry. (`\d+\.?\d*` could split a digit run
// in n ways: quadratic on a long run of digits that ends in a letter.)
const APR_NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]\d+)?$/;

/** A number as APR prints it (`.0898876`, `3.e+5`, `-1.00`); `null` when the text is not one. */
function parseAprNumber(text: string): number | null {
  const t = text.trim();
  if (!APR_NUMBER.test(t)) return null;
  return Number(t.endsWith('.') ? t.slice(0, -1) : t.replace('.e', 'e'));
}

const UPTIME_UNITS: Record<string, number> = {
  day: 86400,
  days: 86400,
  hour: 3600,
  hours: 3600,
  minute: 60,
  minutes: 60,
  second: 1,
  seconds: 1,
};

/**
 * `" 1 day 2 hours 3 minutes 4 seconds"` to seconds; `""` (uptime 0) is 0. Read as words (a
 * global regex retried at every digit of a long digit run is quadratic): a number followed by a
 * unit word counts, other words are skipped.
 */
function parseUptime(text: string): number | null {
  const t = text.trim();
  if (t === '') return 0;
  const words = t.split(/\s+/);
  let total = 0;
  let matched = false;
  for (let i = 0; i + 1 < words.length; i++) {
    const unit = UPTIME_UNITS[(words[i + 1] as string).replace(/[,.;]$/, '')];
    if (unit === undefined || !isDigits(words[i] as string)) continue;
    total += Number(words[i]) * unit;
    matched = true;
    i++;
  }
  return matched ? total : null;
}

function isDigits(word: string): boolean {
  if (word === '') return false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** kB per unit mod_status prints `Total Traffic` in (its KBYTE and MBYTE, powers of 1,024). */
const TRAFFIC_UNITS: Record<string, number> = { kB: 1, MB: 1024, GB: 1024 * 1024 };

// The clause after "Total accesses: n": mod_status prints "%d kB", "%.1f MB" or "%.1f GB".
const TOTAL_TRAFFIC = / - Total Traffic: (\d+(?:\.\d+)?) (kB|MB|GB)(?: |$)/;

/**
 * The `Total Traffic` of the header sentence that starts `Total accesses: ` (`value`: what follows
 * it), in whole kB; `null` when the sentence has none. MB and GB carry one decimal, so the figure
 * is only as precise as that (a printed 1.2 GB is 1,258,291 kB give or take 52,429).
 */
function totalTrafficKBytes(value: string): number | null {
  const m = TOTAL_TRAFFIC.exec(value);
  if (m === null) return null;
  return Math.round(Number(m[1]) * (TRAFFIC_UNITS[m[2] as string] as number));
}

/**
 * Read one header sentence of the HTML page (the text of a `<dt>`, or a text-dump line with its
 * continuation lines joined), filling the fields of `server` it carries. Returns whether it was one.
 */
function readHeaderSentence(sentence: string, server: ServerInfo): boolean {
  const line = sentence.replace(/\s+/g, ' ').trim();
  const colon = line.indexOf(': ');
  const label = colon > 0 ? line.slice(0, colon) : '';
  const value = colon > 0 ? line.slice(colon + 2).trim() : '';
  switch (label) {
    case 'Server Version':
      server.version = value;
      return true;
    case 'Server MPM':
      server.mpm = value;
      return true;
    case 'Current Time':
      server.currentTime = value;
      return true;
    case 'Restart Time':
      server.restartTime = value;
      return true;
    case 'Server uptime':
      server.uptimeSeconds = parseUptime(value);
      return true;
    case 'Total accesses': {
      const n = /^(\d+)/.exec(value);
      if (n) server.totalAccesses = Number(n[1]);
      server.totalKBytes = totalTrafficKBytes(value);
      return true;
    }
  }
  if (line === 'Server uptime:') {
    server.uptimeSeconds = 0;
    return true;
  }
  const workers =
    /^(\d+) requests? currently being processed,(?: (\d+) workers? gracefully restarting,)? (\d+) idle workers?$/.exec(
      line,
    );
  if (workers) {
    server.busyWorkers = Number(workers[1]);
    server.gracefulWorkers = workers[2] === undefined ? null : Number(workers[2]);
    server.idleWorkers = Number(workers[3]);
    return true;
  }
  return false;
}

/** The heading line before the SSL/TLS session cache prose (HTML page and text dumps alike). */
const SSL_HEADING = 'SSL/TLS Session Cache Status:';

/** The SSL/TLS session cache fields while they are being read; `null` = not seen yet. */
type SslCacheDraft = { [K in keyof SslCache]: SslCache[K] | null };

function emptySslCacheDraft(): SslCacheDraft {
  return {
    type: null,
    sharedMemoryBytes: null,
    currentEntries: null,
    subcaches: null,
    indexesPerSubcache: null,
    indexUsagePercent: null,
    cacheUsagePercent: null,
    stored: null,
    replaced: null,
    expired: null,
    discarded: null,
    retrieveHits: null,
    retrieveMisses: null,
    removeHits: null,
    removeMisses: null,
  };
}

// Labels of the SHMCB prose, 2.4 ("entries", "subcaches") and 2.2 ("sessions", "sub-caches") wording.
const SSL_PATTERNS: ReadonlyArray<[RegExp, ReadonlyArray<keyof SslCache>]> = [
  [/cache type: (\S+?),/, ['type']],
  [/shared memory: (\d+) bytes/, ['sharedMemoryBytes']],
  [/current (?:entries|sessions): (\d+)/, ['currentEntries']],
  [/sub-?caches: (\d+)/, ['subcaches']],
  [/indexes per sub-?cache: (\d+)/, ['indexesPerSubcache']],
  [/index usage: (\d+)%/, ['indexUsagePercent']],
  [/cache usage: (\d+)%/, ['cacheUsagePercent']],
  [/total (?:entries|sessions) stored since starting: (\d+)/, ['stored']],
  [/total (?:entries|sessions) replaced since starting: (\d+)/, ['replaced']],
  [/total (?:entries|sessions) expired since starting: (\d+)/, ['expired']],
  [/total \(pre-expiry\) (?:entries|sessions) scrolled out of the cache: (\d+)/, ['discarded']],
  [/total retrieves since starting: (\d+) hit, (\d+) miss/, ['retrieveHits', 'retrieveMisses']],
  [/total removes since starting: (\d+) hit, (\d+) miss/, ['removeHits', 'removeMisses']],
];

/**
 * Read SSL/TLS session cache prose (tags already removed; one or several `<br>` lines), filling
 * `draft`. Returns whether anything was recognised.
 */
function readSslCacheText(text: string, draft: SslCacheDraft): boolean {
  const t = text.replace(/\s+/g, ' ');
  let found = false;
  for (const [re, fields] of SSL_PATTERNS) {
    const m = re.exec(t);
    if (!m) continue;
    found = true;
    fields.forEach((field, i) => {
      const raw = m[i + 1] as string;
      (draft as Record<string, string | number | null>)[field] = field === 'type' ? raw : Number(raw);
    });
  }
  return found;
}

/**
 * Turn a draft into the contract's object. `replaced` may stay `null` (2.2 has no such line); any
 * other missing field means the block was not an SHMCB-style one: then it is `null` with a warning.
 */
function finishSslCache(draft: SslCacheDraft, warnings: string[]): SslCache | null {
  if (Object.values(draft).every((v) => v === null)) return null;
  const missing = (Object.keys(draft) as Array<keyof SslCache>).filter((k) => k !== 'replaced' && draft[k] === null);
  if (missing.length > 0) {
    warnings.push(`SSL/TLS session cache block lacks ${missing.join(', ')}; not reported`);
    return null;
  }
  return draft as SslCache;
}

const PROTOCOL_TAIL = /\s(?:HTTP|HTTPS|RTSP)\/\d+(?:\.\d+)?$/;

/** The start of the run of ASCII digits ending just before `end` in `text` (`end` when there is none). */
function digitsBefore(text: string, end: number): number {
  let i = end;
  while (i > 0) {
    const c = text.charCodeAt(i - 1);
    if (c < 0x30 || c > 0x39) break;
    i--;
  }
  return i;
}

/**
 * Whether `request` ends in `PROTOCOL_TAIL`, read backwards from its end (a request is in every
 * slot row: a regex run per row costs more than the row's numbers).
 */
function endsWithProtocol(request: string): boolean {
  let slash = digitsBefore(request, request.length);
  if (slash === request.length) return false;
  if (request.charCodeAt(slash - 1) === 0x2e) {
    const major = digitsBefore(request, slash - 1);
    if (major === slash - 1) return false;
    slash = major;
  }
  if (request.charCodeAt(slash - 1) !== 0x2f) return false;
  // The name before "/": HTTPS ends in S; HTTP and RTSP in P.
  const last = request.charCodeAt(slash - 2);
  const name =
    last === 0x53 ? 'HTTPS' : last === 0x50 ? (request.charCodeAt(slash - 5) === 0x52 ? 'RTSP' : 'HTTP') : '';
  const start = slash - 1 - name.length;
  if (name === '' || start < 1 || !request.startsWith(name, start)) return false;
  const blank = request.charCodeAt(start - 1);
  return blank === 0x20 || blank === 0x09 || /\s/.test(request.charAt(start - 1));
}

/** The 63-character cut-off removed the protocol token: a non-empty request without one at its end. */
function isRequestTruncated(request: string): boolean {
  return request !== '' && request !== 'NULL' && !endsWithProtocol(request);
}

/** The scoreboard position `Number.parseInt(srv, 10)` reads, without its cost on plain digits. */
function srvPosition(srv: string): number {
  return positionOf(srv) ?? Number.parseInt(srv, 10);
}

/** The number before `-` in Srv (a prefork slot's position); null when Srv does not start with 1 to 15 digits. */
function positionOf(srv: string): number | null {
  return positionIn(srv, 0, srv.length);
}

/** `positionOf` of the text `[start, end)`, read without slicing it. */
function positionIn(text: string, start: number, end: number): number | null {
  let n = 0;
  let i = start;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) break;
    n = n * 10 + (c - 0x30);
  }
  return i === start || i - start > 15 ? null : n;
}

/**
 * Warn where a slot's column M disagrees with its scoreboard position. Only where the position is
 * known: prefork, whose Srv index is the scoreboard position (threaded MPMs share Srv per process).
 */
function checkModesAgainstScoreboard(
  slots: readonly Slot[],
  scoreboard: string,
  mpm: string | null,
  warnings: string[],
): void {
  if (mpm !== 'prefork') return;
  for (const slot of slots) {
    const index = srvPosition(slot.srv);
    const char = scoreboard[index];
    if (char !== undefined && char !== slot.mode) {
      warnings.push(`slot ${slot.srv}: column M is "${slot.mode}" but scoreboard position ${index} is "${char}"`);
    }
  }
}

const HTML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Decode the entities mod_status writes (`&amp;` `&lt;` `&gt;` `&quot;`) and numeric ones. */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return HTML_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

export type { SslCacheDraft };
export {
  checkModesAgainstScoreboard,
  countModes,
  decodeEntities,
  emptyServer,
  emptySslCacheDraft,
  finishSslCache,
  isRequestTruncated,
  modeIndexOf,
  PROTOCOL_TAIL,
  parseAprNumber,
  positionIn,
  positionOf,
  readHeaderSentence,
  readSslCacheText,
  SSL_HEADING,
};
