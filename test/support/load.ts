/**
 * Bounded load generators on loopback that put an Apache scoreboard into known states: `W` (slow
 * replies), `K` (idle keep-alive), `C` (lingering close), `R` (slow headers), plus TLS 1.2
 * session-cache hits and misses. Each generator caps its socket count and its lifetime and closes
 * every socket at the end; `stop()` ends it early.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

const MAX_SOCKETS = 64;
const MAX_DURATION_MS = 30_000;

/** Where the load goes. */
interface LoadTarget {
  /** Default `127.0.0.1`. */
  host?: string;
  port: number;
  /** Host header, which picks the name-based vhost (default `www.example.test`). */
  hostHeader?: string;
}

/** What a socket load did. */
interface LoadStats {
  opened: number;
  closed: number;
  errors: number;
}

/** A running load: `done` settles once every socket is closed; `stop()` closes them now. */
interface LoadHandle {
  readonly done: Promise<LoadStats>;
  stop(): Promise<LoadStats>;
}

interface SocketLoadOptions {
  count: number;
  durationMs: number;
  /** Interval of the trickled bytes, for the loads that trickle (default 500 ms). */
  trickleMs?: number;
}

/** The lines a socket sends: `first` on connect, then `next(i)` every `trickleMs` if given. */
interface Script {
  first: (host: string) => string;
  next?: (i: number) => string;
  /** Keep writing after the server half-closed (lingering close). */
  allowHalfOpen?: boolean;
}

function checkBounds(count: number, durationMs: number): void {
  if (!Number.isInteger(count) || count < 1 || count > MAX_SOCKETS) {
    throw new RangeError(`expected count to be an integer from 1 to ${MAX_SOCKETS}, found ${count}`);
  }
  if (!(durationMs > 0 && durationMs <= MAX_DURATION_MS)) {
    throw new RangeError(`expected durationMs in (0, ${MAX_DURATION_MS}], found ${durationMs}`);
  }
}

function socketLoad(target: LoadTarget, options: SocketLoadOptions, script: Script): LoadHandle {
  checkBounds(options.count, options.durationMs);
  const host = target.host ?? '127.0.0.1';
  const hostHeader = target.hostHeader ?? 'www.example.test';
  const stats: LoadStats = { opened: 0, closed: 0, errors: 0 };
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const maxTrickles = Math.ceil(options.durationMs / (options.trickleMs ?? 500));
  let finish: (s: LoadStats) => void = () => {};
  const done = new Promise<LoadStats>((resolve) => {
    finish = resolve;
  });
  const closeAll = () => {
    for (const t of timers) clearInterval(t);
    timers.clear();
    for (const s of sockets) s.destroy();
  };
  const deadline = setTimeout(closeAll, options.durationMs);
  for (let i = 0; i < options.count; i++) {
    const socket = netConnect({ host, port: target.port, allowHalfOpen: script.allowHalfOpen ?? false });
    sockets.add(socket);
    stats.opened++;
    socket.resume(); // read and drop the responses
    socket.on('error', () => {
      stats.errors++;
    });
    socket.on('connect', () => {
      socket.write(script.first(hostHeader));
      const next = script.next;
      if (next === undefined) return;
      let n = 0;
      const timer = setInterval(() => {
        if (n >= maxTrickles || socket.destroyed) return clearInterval(timer);
        socket.write(next(n++));
      }, options.trickleMs ?? 500);
      timers.add(timer);
    });
    socket.on('close', () => {
      sockets.delete(socket);
      stats.closed++;
      if (sockets.size === 0) {
        clearTimeout(deadline);
        closeAll();
        finish({ ...stats });
      }
    });
  }
  return {
    done,
    stop: () => {
      closeAll();
      return done;
    },
  };
}

/**
 * `W`: requests to the harness's sleeping CGI, each holding a worker for `seconds` (max 30).
 *
 * @example
 * const w = slowReplies({ port: apache.httpPort }, { count: 3, seconds: 8 }); ... await w.stop();
 */
function slowReplies(target: LoadTarget, options: { count: number; seconds: number }): LoadHandle {
  const seconds = Math.min(Math.max(Math.round(options.seconds), 1), 30);
  return socketLoad(
    target,
    { count: options.count, durationMs: Math.min((seconds + 2) * 1000, MAX_DURATION_MS) },
    { first: (h) => `GET /cgi-bin/sleep.cgi?${seconds} HTTP/1.1\r\nHost: ${h}\r\nConnection: close\r\n\r\n` },
  );
}

/** A ramp of slow replies: each `add()` holds `step` more workers busy, `stop()` ends them all. */
interface SlowRamp {
  /** Starts `step` more slow requests; answers how many were started in all. */
  add(): number;
  stop(): Promise<void>;
}

/**
 * `W` rising: a ramp of `slowReplies` batches, each `step` requests holding a worker for `seconds`
 * from when it is added (the whole ramp must fit in that time).
 *
 * @example
 * const ramp = slowRamp({ port: apache.httpPort }, { step: 6, seconds: 30 }); ramp.add(); ... await ramp.stop();
 */
function slowRamp(target: LoadTarget, options: { step: number; seconds: number }): SlowRamp {
  const batches: LoadHandle[] = [];
  return {
    add() {
      batches.push(slowReplies(target, { count: options.step, seconds: options.seconds }));
      return batches.length * options.step;
    },
    async stop() {
      await Promise.all(batches.map((b) => b.stop()));
    },
  };
}

/** `K`: one keep-alive request per socket, then silence until the server's KeepAliveTimeout. */
function idleKeepAlive(target: LoadTarget, options: SocketLoadOptions): LoadHandle {
  return socketLoad(target, options, { first: (h) => `GET /index.html HTTP/1.1\r\nHost: ${h}\r\n\r\n` });
}

/**
 * `C`: an HTTP/1.0 request, then a byte every `trickleMs`; after replying Apache half-closes and
 * reads until the client stops (lingering close), which the scoreboard shows as `C`.
 */
function lingeringClose(target: LoadTarget, options: SocketLoadOptions): LoadHandle {
  return socketLoad(target, options, {
    first: (h) => `GET /index.html HTTP/1.0\r\nHost: ${h}\r\n\r\n`,
    next: () => 'x',
    allowHalfOpen: true,
  });
}

/** `R`: a request line, then one header line every `trickleMs`, never the blank line. */
function slowHeaders(target: LoadTarget, options: SocketLoadOptions): LoadHandle {
  return socketLoad(target, options, {
    first: (h) => `GET /index.html HTTP/1.1\r\nHost: ${h}\r\n`,
    next: (i) => `X-Slow-${i}: 1\r\n`,
  });
}

/** A TLS 1.2 client that resumes sessions through the server-side cache. */
interface TlsLoadOptions {
  host?: string;
  port: number;
  /** CA bundle (PEM) that verifies the server. */
  ca: string;
  /** SNI and Host header (default `www.example.test`). */
  servername?: string;
  /** Per-connection limit (default 5000 ms). */
  timeoutMs?: number;
}

/** One TLS connection with one small request; resolves with whether the session was resumed. */
function tlsRequest(options: TlsLoadOptions, session?: Buffer): Promise<{ reused: boolean; session?: Buffer }> {
  const servername = options.servername ?? 'www.example.test';
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({
      host: options.host ?? '127.0.0.1',
      port: options.port,
      ca: options.ca,
      servername,
      // TLS 1.2: resumption by session ID, looked up in Apache's SHMCB cache.
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.2',
      ...(session === undefined ? {} : { session }),
    });
    let result: { reused: boolean; session?: Buffer } = { reused: false };
    socket.setTimeout(options.timeoutMs ?? 5000, () => socket.destroy(new Error('TLS request timed out')));
    socket.on('secureConnect', () => {
      result = { reused: socket.isSessionReused(), session: socket.getSession() };
      socket.write(`GET /index.html HTTP/1.1\r\nHost: ${servername}\r\nConnection: close\r\n\r\n`);
    });
    socket.resume();
    socket.on('error', reject);
    socket.on('close', (hadError) => {
      if (!hadError) resolve(result);
    });
  });
}

/**
 * Cache hits: one full handshake, then `resumptions` (max 64) reconnections offering its session.
 * Returns the session, e.g. to offer it later to another server (a miss there).
 */
async function tlsResumptions(
  options: TlsLoadOptions & { resumptions: number },
): Promise<{ resumed: number; session: Buffer }> {
  checkBounds(options.resumptions, 1);
  const first = await tlsRequest(options);
  if (first.session === undefined) throw new Error('expected a TLS session after the handshake, found none');
  let resumed = 0;
  for (let i = 0; i < options.resumptions; i++) {
    if ((await tlsRequest(options, first.session)).reused) resumed++;
  }
  return { resumed, session: first.session };
}

/**
 * Cache misses: `attempts` (max 64) connections offering `session`, which the server should not
 * find (expired, or from another server). Returns how many were resumed anyway.
 */
async function tlsOfferSession(
  options: TlsLoadOptions & { session: Buffer; attempts: number },
): Promise<{ resumed: number }> {
  checkBounds(options.attempts, 1);
  let resumed = 0;
  for (let i = 0; i < options.attempts; i++) {
    if ((await tlsRequest(options, options.session)).reused) resumed++;
  }
  return { resumed };
}

export type { LoadHandle, LoadStats, LoadTarget, SlowRamp, SocketLoadOptions, TlsLoadOptions };
export { idleKeepAlive, lingeringClose, slowHeaders, slowRamp, slowReplies, tlsOfferSession, tlsResumptions };
