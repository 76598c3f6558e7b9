/**
 * The fleet under test: a few real Apache instances on loopback (test/support/apache.ts), each
 * given extra `LocationMatch` blocks so one instance serves any number of distinct status URLs
 * (loopback has one address and `*.localhost` does not resolve here, so vhost names cannot be
 * told apart by URL). Some targets are slow (a status page behind mod_ratelimit at 1 KiB/s,
 * about 1.2 s for `?auto`), some broken (a refused port, a 404).
 */
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ApacheInstance, freePorts, startApache } from '../../test/support/apache.ts';

/** Each instance logs when it received each slow request, in ms since the epoch (mod_log_config is built in). */
const slowStartsLog = (dir: string) => join(dir, 'logs', 'slow-starts.log');

/** Appended to each instance's httpd.conf, then picked up by a graceful restart (SIGUSR1). */
const extraLocations = (dir: string) => `
LogFormat "%{msec}t %U" slowstart
CustomLog "${slowStartsLog(dir)}" slowstart env=hsa_slow
<LocationMatch "^/t/[0-9]+/server-status$">
    SetHandler server-status
    Require local
</LocationMatch>
# Why: a real status page that is slow to arrive: 1 KiB/s, so about 1.2 s for ?auto.
<LocationMatch "^/slow/[0-9]+/server-status$">
    SetHandler server-status
    Require local
    SetOutputFilter RATE_LIMIT
    SetEnv rate-limit 1
    SetEnv hsa_slow 1
</LocationMatch>
`;

const TARGET_KINDS = { ok: 'ok', html: 'html', slow: 'slow', refused: 'refused', notFound: 'not-found' } as const;
type TargetKind = (typeof TARGET_KINDS)[keyof typeof TARGET_KINDS];

/** Where the slow targets sit in name order: a real fleet has them anywhere. */
const SLOW_PLACEMENTS = { first: 'first', spread: 'spread', last: 'last' } as const;
type SlowPlacement = (typeof SLOW_PLACEMENTS)[keyof typeof SLOW_PLACEMENTS];

/** Indices of the `few` slow targets among `n`: the first ones, evenly spread, or the last ones. */
function slowIndices(n: number, few: number, placement: SlowPlacement): Set<number> {
  const at = (k: number) =>
    placement === SLOW_PLACEMENTS.first
      ? k
      : placement === SLOW_PLACEMENTS.last
        ? n - few + k
        : Math.floor(((k + 0.5) * n) / few);
  return new Set(Array.from({ length: few }, (_, k) => at(k)));
}

interface BenchTarget {
  name: string;
  url: string;
  kind: TargetKind;
}

interface Fleet {
  instances: readonly ApacheInstance[];
  /**
   * `n` targets: 2 % slow, placed by `placement` (default first); then 2 % refused and 2 % 404 (at
   * least one each), the first of the others in name order; a fifth of the rest HTML.
   */
  targets(n: number, placement?: SlowPlacement): BenchTarget[];
  /** When each slow request since `sinceMs` reached Apache, in ms since the epoch, sorted. */
  slowStarts(sinceMs: number): Promise<number[]>;
  stop(): Promise<void>;
}

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 200 && Date.now() < deadline; i++) {
    const status = await fetch(url).then(
      (r) => r.arrayBuffer().then(() => r.status),
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`expected ${url} to answer 200 after the graceful restart, found no answer in ${timeoutMs} ms`);
}

/** Start `count` instances, alternating prefork and event; call `stop()` at the end. */
async function startFleet(count: number): Promise<Fleet> {
  const instances: ApacheInstance[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const apache = await startApache({ mpm: i % 2 === 0 ? 'event' : 'prefork' });
      instances.push(apache);
      await appendFile(join(apache.dir, 'httpd.conf'), extraLocations(apache.dir));
      process.kill(apache.pid, 'SIGUSR1');
      await waitFor(`${apache.httpUrl}/t/0/server-status?auto`, 10_000);
    }
  } catch (error) {
    await Promise.all(instances.map((a) => a.stop()));
    throw error;
  }
  // Nothing listens here: connections are refused.
  const [refusedPort = 0] = await freePorts(1);

  return {
    instances,
    targets(n, placement = SLOW_PLACEMENTS.first) {
      const few = Math.max(1, Math.round(n * 0.02));
      const slow = slowIndices(n, few, placement);
      const out: BenchTarget[] = [];
      let broken = 0;
      for (let i = 0; i < n; i++) {
        const apache = instances[i % instances.length] as ApacheInstance;
        const name = `t${String(i).padStart(4, '0')}`;
        let kind: TargetKind = TARGET_KINDS.ok;
        if (slow.has(i)) kind = TARGET_KINDS.slow;
        else if (broken < 2 * few) kind = broken++ < few ? TARGET_KINDS.refused : TARGET_KINDS.notFound;
        else if (i % 5 === 0) kind = TARGET_KINDS.html;
        const url = {
          ok: `${apache.httpUrl}/t/${i}/server-status?auto`,
          html: `${apache.httpUrl}/t/${i}/server-status`,
          slow: `${apache.httpUrl}/slow/${i}/server-status?auto`,
          refused: `http://127.0.0.1:${refusedPort}/t/${i}/server-status?auto`,
          'not-found': `${apache.httpUrl}/missing/${i}/server-status?auto`,
        }[kind];
        out.push({ name, url, kind });
      }
      return out;
    },
    async slowStarts(sinceMs) {
      const logs = await Promise.all(instances.map((a) => readFile(slowStartsLog(a.dir), 'utf8').catch(() => '')));
      return logs
        .flatMap((text) => text.split('\n'))
        .map((line) => Number(line.split(' ')[0]))
        .filter((ms) => Number.isFinite(ms) && ms >= sinceMs)
        .sort((a, b) => a - b);
    },
    stop: async () => {
      await Promise.all(instances.map((a) => a.stop()));
    },
  };
}

export { type BenchTarget, SLOW_PLACEMENTS, type SlowPlacement, slowIndices, startFleet, TARGET_KINDS };
