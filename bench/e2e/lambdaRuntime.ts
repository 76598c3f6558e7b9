/**
 * Runs a bundle as Lambda does: the real Runtime Interface Client (aws-lambda-ric) in a fresh
 * Node process, driven by a ~40-line fake Runtime API on loopback (RIE needs Docker; toolchain.md
 * 3e). Reports init time (spawn to the first `/next`), each invocation's duration (event handed
 * out to response posted, as Lambda bills it), the process's peak RSS, its stdout volume and the
 * CloudWatch metric series its EMF documents define (namespace, name and dimension values).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

// Installed apart from the project by `npm run setup:lambda-runtime` (it compiles C++ with cmake).
const RIC = fileURLToPath(new URL('../../test/lambda-runtime/node_modules/aws-lambda-ric/index.mjs', import.meta.url));
const BASE = '/2018-06-01/runtime';

interface Invocation {
  ms: number;
  ok: boolean;
  body: string;
}

interface LocalLambda {
  /** Spawn to the first `/next`: module load and handler init, like Lambda's Init Duration. */
  initMs(): Promise<number>;
  invoke(event: unknown, timeoutMs: number): Promise<Invocation>;
  /** Peak resident set of the runtime process so far (VmHWM), in MiB. */
  peakRssMb(): number;
  /** CPU time (user + system) the runtime process used so far, in ms. */
  cpuMs(): number;
  /** Bytes the function wrote to stdout and stderr (its CloudWatch Logs volume). */
  logBytes(): number;
  /** Every metric series the EMF documents written so far define: each is billed as one custom metric. */
  emfSeries(): ReadonlySet<string>;
  /** Send a signal to the runtime process (the profiler hook listens for SIGUSR2). */
  signal(name: NodeJS.Signals): void;
  /** The last 2,000 characters the process wrote to stderr. */
  stderr(): string;
  stop(): Promise<void>;
}

interface LocalLambdaOptions {
  /** Directory of `index.mjs`, the Lambda task root. */
  taskRoot: string;
  env: Record<string, string>;
  memoryMb: number;
}

/** The series one EMF document defines: `namespace/name/dim=value,...` for each metric and dimension set. */
function seriesOf(line: string): string[] {
  let document: {
    _aws?: {
      CloudWatchMetrics?: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }>;
    };
  } & Record<string, unknown>;
  try {
    document = JSON.parse(line.slice(line.indexOf('{')));
  } catch {
    return [];
  }
  return (document._aws?.CloudWatchMetrics ?? []).flatMap((directive) =>
    directive.Metrics.flatMap((metric) =>
      directive.Dimensions.map(
        (set) => `${directive.Namespace}/${metric.Name}/${set.map((d) => `${d}=${String(document[d])}`).join(',')}`,
      ),
    ),
  );
}

/** Start the runtime process and its fake Runtime API; call `stop()` at the end. */
async function startLocalLambda(options: LocalLambdaOptions): Promise<LocalLambda> {
  const spawnedAt = performance.now();
  let firstNext: (ms: number) => void = () => {};
  const init = new Promise<number>((resolve) => {
    firstNext = resolve;
  });
  let waiting: ServerResponse | null = null;
  let pending: { id: string; event: unknown; sentAt: number; done: (r: Invocation) => void } | null = null;
  let logBytes = 0;

  const hand = () => {
    if (waiting === null || pending === null) return;
    const res = waiting;
    waiting = null;
    res.writeHead(200, {
      // The RIC crashes on a `/next` answer without this content type.
      'content-type': 'application/json',
      'lambda-runtime-aws-request-id': pending.id,
      'lambda-runtime-deadline-ms': String(Date.now() + 15 * 60_000),
      'lambda-runtime-invoked-function-arn': 'arn:aws:lambda:us-east-1:123456789012:function:bench',
      'lambda-runtime-trace-id': 'Root=1-00000000-000000000000000000000000',
    });
    res.end(JSON.stringify(pending.event));
    pending.sentAt = performance.now();
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      if (req.method === 'GET' && url === `${BASE}/invocation/next`) {
        firstNext(performance.now() - spawnedAt);
        waiting = res;
        hand();
        return;
      }
      const match = /\/invocation\/([^/]+)\/(response|error)$/.exec(url);
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end('{}');
      if (match && pending !== null && pending.id === match[1]) {
        const done = pending;
        pending = null;
        done.done({
          ms: performance.now() - done.sentAt,
          ok: match[2] === 'response',
          body: Buffer.concat(chunks).toString(),
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const api = `127.0.0.1:${(server.address() as AddressInfo).port}`;

  const child: ChildProcess = spawn(process.execPath, [RIC, 'index.handler'], {
    cwd: options.taskRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      ...options.env,
      AWS_LAMBDA_RUNTIME_API: api,
      AWS_LAMBDA_FUNCTION_NAME: 'httpd-status-alerts-bench',
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(options.memoryMb),
      AWS_LAMBDA_LOG_GROUP_NAME: '/aws/lambda/httpd-status-alerts-bench',
      AWS_LAMBDA_LOG_STREAM_NAME: 'bench',
      LAMBDA_TASK_ROOT: options.taskRoot,
      _HANDLER: 'index.handler',
    },
  });
  let stderrTail = '';
  const series = new Set<string>();
  let partial = '';
  child.stdout?.on('data', (c: Buffer) => {
    logBytes += c.length;
    const lines = (partial + c.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.includes('"_aws"')) for (const key of seriesOf(line)) series.add(key);
  });
  child.stderr?.on('data', (c: Buffer) => {
    logBytes += c.length;
    stderrTail = (stderrTail + c.toString()).slice(-2000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const peakRssMb = () => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
    } catch {
      return Number.NaN;
    }
  };

  const cpuMs = () => {
    try {
      // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised name): utime, stime in ticks of 10 ms.
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      return (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      return Number.NaN;
    }
  };

  return {
    initMs: () =>
      Promise.race([
        init,
        exited.then(() => {
          throw new Error(`the runtime process exited during init: ${stderrTail}`);
        }),
      ]),
    invoke: (event, timeoutMs) =>
      new Promise<Invocation>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`invocation took over ${timeoutMs} ms`)), timeoutMs);
        pending = {
          id: randomUUID(),
          event,
          sentAt: performance.now(),
          done: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
        };
        hand();
      }),
    peakRssMb,
    cpuMs,
    logBytes: () => logBytes,
    emfSeries: () => series,
    signal: (name) => {
      child.kill(name);
    },
    stderr: () => stderrTail,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      waiting?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export { startLocalLambda };
