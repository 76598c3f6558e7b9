/**
 * The comparison point: the same extraction written the usual way with cheerio (load the page,
 * select the `<dt>`s, the `<pre>` and the table rows, map cells), as peer projects do. HTML only;
 * kept in bench/ so the product never depends on it.
 */
import * as cheerio from 'cheerio';
import { emptyServer } from '../src/core/report/common.ts';
import { MODE_CHARS, type ModeCounts, type Slot, type SslCache, type StatusReport } from '../src/core/report/types.ts';

const num = (t: string): number => Number(t.trim());

function readServer($: cheerio.CheerioAPI): StatusReport['server'] {
  const server = emptyServer();
  $('dt').each((_, el) => {
    const text = $(el).text().replace(/\s+/g, ' ').trim();
    const [label, value = ''] = text.split(/: (.*)/);
    if (label === 'Server Version') server.version = value;
    else if (label === 'Server MPM') server.mpm = value;
    else if (label === 'Current Time') server.currentTime = value;
    else if (label === 'Restart Time') server.restartTime = value;
    else if (label === 'Server uptime' || text === 'Server uptime:') {
      let seconds = 0;
      for (const m of value.matchAll(/(\d+) (day|hour|minute|second)/g)) {
        seconds += Number(m[1]) * ({ day: 86400, hour: 3600, minute: 60, second: 1 }[m[2] as string] as number);
      }
      server.uptimeSeconds = seconds;
    } else if (label === 'Total accesses') {
      server.totalAccesses = Number.parseInt(value, 10);
      const traffic = /Total Traffic: ([\d.]+) (kB|MB|GB)/.exec(value);
      const kB: Record<string, number> = { kB: 1, MB: 1024, GB: 1024 * 1024 };
      if (traffic) server.totalKBytes = Math.round(Number(traffic[1]) * (kB[traffic[2] as string] as number));
    }
    const w =
      /^(\d+) requests currently being processed, (\d+) workers gracefully restarting, (\d+) idle workers$/.exec(text);
    if (w)
      [server.busyWorkers, server.gracefulWorkers, server.idleWorkers] = [Number(w[1]), Number(w[2]), Number(w[3])];
  });
  return server;
}

function readSlots($: cheerio.CheerioAPI): Slot[] | null {
  const table = $('table')
    .filter((_, t) => $(t).find('th').first().text().trim() === 'Srv')
    .first();
  if (table.length === 0) return null;
  const names = table
    .find('tr')
    .first()
    .find('th')
    .map((_, th) => $(th).text().trim())
    .get();
  const col = (name: string): number => names.indexOf(name);
  return table
    .find('tr')
    .slice(1)
    .map((_, tr) => {
      const cells = $(tr)
        .find('td')
        .map((_, td) => $(td).text().trim())
        .get();
      const at = (name: string): string => (col(name) < 0 ? '' : (cells[col(name)] ?? ''));
      const acc = at('Acc').split('/').map(Number) as [number, number, number];
      const request = at('Request');
      const slot: Slot = {
        srv: at('Srv'),
        pid: at('PID') === '-' ? null : num(at('PID')),
        acc,
        mode: at('M'),
        cpu: col('CPU') < 0 ? null : num(at('CPU')),
        ss: num(at('SS')),
        reqMs: num(at('Req')),
        durMs: col('Dur') < 0 ? null : num(at('Dur')),
        connKB: num(at('Conn')),
        childMB: num(at('Child')),
        slotMB: num(at('Slot')),
        client: at('Client'),
        protocol: col('Protocol') < 0 ? null : at('Protocol'),
        vhost: at('VHost'),
        request,
        requestTruncated: request !== '' && !/\s(HTTP|HTTPS|RTSP)\/\d+(\.\d+)?$/.test(request),
      };
      return slot;
    })
    .get();
}

function readSslCache($: cheerio.CheerioAPI): SslCache | null {
  const heading = $('td').filter((_, td) => $(td).text().trim() === 'SSL/TLS Session Cache Status:');
  if (heading.length === 0) return null;
  const text = heading.first().closest('tr').next().text().replace(/\s+/g, ' ');
  const get = (re: RegExp, group = 1): number => Number(re.exec(text)?.[group] ?? Number.NaN);
  return {
    type: /cache type: (\S+?),/.exec(text)?.[1] ?? '',
    sharedMemoryBytes: get(/shared memory: (\d+)/),
    currentEntries: get(/current entries: (\d+)/),
    subcaches: get(/subcaches: (\d+)/),
    indexesPerSubcache: get(/indexes per subcache: (\d+)/),
    indexUsagePercent: get(/index usage: (\d+)%/),
    cacheUsagePercent: get(/cache usage: (\d+)%/),
    stored: get(/stored since starting: (\d+)/),
    replaced: get(/replaced since starting: (\d+)/),
    expired: get(/expired since starting: (\d+)/),
    discarded: get(/scrolled out of the cache: (\d+)/),
    retrieveHits: get(/retrieves since starting: (\d+) hit, (\d+) miss/),
    retrieveMisses: get(/retrieves since starting: (\d+) hit, (\d+) miss/, 2),
    removeHits: get(/removes since starting: (\d+) hit, (\d+) miss/),
    removeMisses: get(/removes since starting: (\d+) hit, (\d+) miss/, 2),
  };
}

/** The HTML page into a `StatusReport`, the cheerio way. */
function parseWithCheerio(html: string): StatusReport {
  const $ = cheerio.load(html);
  const scoreboard = $('pre').first().text().replace(/\s+/g, '');
  const counts = Object.fromEntries(MODE_CHARS.map((c) => [c, 0])) as ModeCounts;
  for (const c of scoreboard) if (c in counts) counts[c as keyof ModeCounts]++;
  const legendTable = $('table').filter((_, t) => $(t).find('tr').first().find('th').length === 1);
  const legend = legendTable
    .first()
    .find('tr')
    .map((_, tr) => ({ abbreviation: $(tr).find('th').text().trim(), meaning: $(tr).find('td').text().trim() }))
    .get();
  return {
    format: 'html',
    server: readServer($),
    scoreboard,
    counts,
    slots: readSlots($),
    legend: legend.length === 0 ? null : legend,
    sslCache: readSslCache($),
    connections: null,
    processes: null,
    warnings: [],
  };
}

export { parseWithCheerio };
