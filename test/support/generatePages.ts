/**
 * The two pages mod_status serves, rendered from a generated `ReportModel` as Apache 2.4.71 prints
 * them: the HTML page (structure copied from the prefork-busy and event-busy captures) and `?auto`.
 */
import type { Slot, SslCache } from '../../src/core/report/types.ts';
import {
  COLUMNS,
  cacheLines,
  headerSentences,
  LEGEND,
  processRows,
  type ReportModel,
  scoreboardLines,
  slotCells,
  uptimeText,
} from './generate.ts';

const escapeHtml = (t: string): string =>
  t.replace(/[<>&"]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : '&quot;'));

const BOLD_MODES = new Set(['S', 'R', 'W', 'K', 'L', 'D', 'C']);

function htmlRow(s: Slot): string {
  const c = slotCells(s);
  const mode = BOLD_MODES.has(s.mode) ? `<b>${s.mode}</b>` : s.mode;
  return (
    `<tr><td><b>${c[0]}</b></td><td>${c[1]}</td><td>${c[2]}</td><td>${mode}\n</td><td>${c[4]}</td><td>${c[5]}</td>` +
    `<td>${c[6]}</td><td>${c[7]}</td><td>${c[8]}</td><td>${c[9]}</td><td>${c[10]}\n</td><td>${escapeHtml(s.client)}</td>` +
    `<td>${escapeHtml(s.protocol ?? '')}</td><td nowrap>${escapeHtml(s.vhost)}</td><td nowrap>${escapeHtml(s.request)}</td></tr>\n\n`
  );
}

function htmlCacheBlock(heading: string, cache: SslCache): string {
  const prose = cacheLines(cache, (v) => `<b>${v}</b>`)
    .map((l) => `${l}<br>`)
    .join('');
  return (
    '<hr>\n<table cellspacing=0 cellpadding=0>\n<tr><td bgcolor="#000000">\n' +
    `<b><font color="#ffffff" face="Arial,Helvetica">${heading}</font></b>\r</td></tr>\n` +
    `<tr><td bgcolor="#ffffff">\n${prose}</td></tr>\n</table>\n`
  );
}

const KEY_HTML = `<p>Scoreboard Key:<br />
"<b><code>_</code></b>" Waiting for Connection, 
"<b><code>S</code></b>" Starting up, 
"<b><code>R</code></b>" Reading Request,<br />
"<b><code>W</code></b>" Sending Reply, 
"<b><code>K</code></b>" Keepalive (read), 
"<b><code>D</code></b>" DNS Lookup,<br />
"<b><code>C</code></b>" Closing connection, 
"<b><code>L</code></b>" Logging, 
"<b><code>G</code></b>" Gracefully finishing,<br /> 
"<b><code>I</code></b>" Idle cleanup of worker, 
"<b><code>.</code></b>" Open slot with no current process<br />
</p>
`;

/** The HTML page Apache 2.4.71 prints for `model` (ExtendedStatus On, no `?notable`). */
function renderHtml(model: ReportModel): string {
  const s = model.server;
  const out: string[] = [
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd">\n<html><head>\n',
    `<title>Apache Status</title>\n</head><body>\n<h1>Apache Server Status for ${model.host} (via ${model.host})</h1>\n\n`,
    `<dl><dt>Server Version: ${escapeHtml(s.version ?? '')}</dt>\n<dt>Server MPM: ${s.mpm}</dt>\n`,
    '<dt>Server Built: 2026-11-12T08:58:41\n</dt></dl><hr /><dl>\n',
    ...headerSentences(model).map((t) => `<dt>${t}</dt>\n`),
    '</dl>',
  ];
  if (s.mpm === 'event') {
    out.push(
      '\n\n<table rules="all" cellpadding="1%">\n<tr><th rowspan="2">Slot</th><th rowspan="2">PID</th><th rowspan="2">Stopping</th><th colspan="2">Connections</th>\n',
      '<th colspan="3">Threads</th><th colspan="4">Async connections</th></tr>\n',
      '<tr><th>total</th><th>accepting</th><th>busy</th><th>graceful</th><th>idle</th><th>wait-io</th><th>writing</th><th>keep-alive</th><th>closing</th></tr>\n',
      ...processRows(model).map(
        (r) => `<tr>${r.map((c) => `<td>${c === '\u00a0' ? '&nbsp;' : c}</td>`).join('')}</tr>\n`,
      ),
      '</table>\n',
    );
  }
  const sb = model.scoreboard;
  out.push(`<pre>${scoreboardLines(sb).join('\n')}${sb.length % 64 === 0 ? '\n' : ''}</pre>\n`, KEY_HTML);
  out.push(
    `\n\n<table border="0"><tr>${COLUMNS.map((c) => `<th>${c}${c === 'CPU' ? '\n' : ''}</th>`).join('')}</tr>\n\n`,
  );
  for (const slot of model.slots) out.push(htmlRow(slot));
  out.push('</table>\n <hr /> <table>\n');
  for (const e of LEGEND)
    out.push(
      `${e.abbreviation === 'CPU' || e.abbreviation === 'SS' ? '' : ' '}<tr><th>${e.abbreviation}</th><td>${e.meaning}</td></tr>\n`,
    );
  out.push(' </table>\n');
  if (model.sslCache !== null) out.push(htmlCacheBlock('SSL/TLS Session Cache Status:', model.sslCache));
  if (model.socache !== null) out.push(htmlCacheBlock('mod_cache_socache Status:', model.socache));
  out.push('</body></html>\n');
  return out.join('');
}

function autoCacheKeys(c: SslCache): string {
  const time =
    c.currentEntries > 0
      ? 'CacheTimeLeftOldestAvg: 295\nCacheTimeLeftOldestMin: 294\nCacheTimeLeftOldestMax: 295\n'
      : '';
  return (
    `CacheType: ${c.type}\nCacheSharedMemory: ${c.sharedMemoryBytes}\nCacheCurrentEntries: ${c.currentEntries}\n` +
    `CacheSubcaches: ${c.subcaches}\nCacheIndexesPerSubcaches: ${c.indexesPerSubcache}\n${time}` +
    `CacheIndexUsage: ${c.indexUsagePercent}%\nCacheUsage: ${c.cacheUsagePercent}%\nCacheStoreCount: ${c.stored}\n` +
    `CacheReplaceCount: ${c.replaced ?? 0}\nCacheExpireCount: ${c.expired}\nCacheDiscardCount: ${c.discarded}\n` +
    `CacheRetrieveHitCount: ${c.retrieveHits}\nCacheRetrieveMissCount: ${c.retrieveMisses}\n` +
    `CacheRemoveHitCount: ${c.removeHits}\nCacheRemoveMissCount: ${c.removeMisses}\n`
  );
}

/** The `?auto` page Apache 2.4.71 prints for `model` (ExtendedStatus On). */
function renderAuto(model: ReportModel): string {
  const s = model.server;
  const uptime = s.uptimeSeconds ?? 0;
  const accesses = s.totalAccesses ?? 0;
  const rates = uptime > 0 ? `ReqPerSec: ${Math.round(accesses / uptime)}\nBytesPerSec: 703479000\n` : '';
  const perReq = accesses > 0 ? 'BytesPerReq: 28572.6\nDurationPerReq: .197141\n' : '';
  const event =
    s.mpm === 'event'
      ? `Processes: ${processRows(model).length - 1}\nStopping: 0\nConnsTotal: 0\nConnsAsyncWaitIO: 0\nConnsAsyncWriting: 0\nConnsAsyncKeepAlive: 0\nConnsAsyncClosing: 0\n`
      : '';
  return (
    `${model.host}\nServerVersion: ${s.version}\nServerMPM: ${s.mpm}\nServer Built: 2026-11-12T08:58:41\n` +
    `CurrentTime: ${s.currentTime}\nRestartTime: ${s.restartTime}\nParentServerConfigGeneration: 1\n` +
    `ParentServerMPMGeneration: 0\nServerUptimeSeconds: ${uptime}\nServerUptime:${uptimeText(uptime)}\n` +
    `Load1: 5.85\nLoad5: 6.13\nLoad15: 4.08\nTotal Accesses: ${accesses}\nTotal kBytes: ${s.totalKBytes ?? 0}\n` +
    'Total Duration: 19415\nCPUUser: 2.04\nCPUSystem: 3.99\nCPUChildrenUser: 0\nCPUChildrenSystem: 0\nCPULoad: 150.75\n' +
    `Uptime: ${uptime}\n${rates}${perReq}BusyWorkers: ${s.busyWorkers}\nGracefulWorkers: ${s.gracefulWorkers}\n` +
    `IdleWorkers: ${s.idleWorkers}\n${event}Scoreboard: ${model.scoreboard}\n` +
    (model.sslCache === null ? '' : `TLSSessionCacheStatus\n${autoCacheKeys(model.sslCache)}`) +
    (model.socache === null ? '' : `ModCacheSocacheStatus\n${autoCacheKeys(model.socache)}`)
  );
}

export { renderAuto, renderHtml };
