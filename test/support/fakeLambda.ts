/**
 * Runs a bundled handler as Lambda does: the real runtime interface client (aws-lambda-ric) in a
 * child process, polling a fake Runtime API served here; plus a fake SSM (awsJson1_1) for a child
 * process, where aws-sdk-client-mock cannot reach.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/**
 * The runtime interface client is not a dependency of the project: it compiles curl and a C++
 * client with cmake at install (about two minutes, and no install at all without compilers).
 * `npm run setup:lambda-runtime` installs it, locked, into test/lambda-runtime/ (CI does).
 */
const RIC_DIR = fileURLToPath(new URL('../lambda-runtime/node_modules/aws-lambda-ric/', import.meta.url));

/** Where the installed client is, or why it cannot run (for a skip outside CI, a failure in CI). */
function findRuntimeClient(): { path: string; missing: null } | { path: null; missing: string } {
  if (!existsSync(`${RIC_DIR}index.mjs`))
    return { path: null, missing: 'aws-lambda-ric is not installed: run `npm run setup:lambda-runtime` (cmake, C++)' };
  if (!existsSync(`${RIC_DIR}rapid-client.node`))
    return {
      path: null,
      missing: 'aws-lambda-ric has no native client: its build failed (needs cmake and a C++ compiler)',
    };
  return { path: `${RIC_DIR}index.mjs`, missing: null };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

interface FakeSsm {
  endpoint: string;
  parameters: Map<string, string>;
  calls: string[];
  stop(): Promise<void>;
}

/** GetParametersByPath (one parameter per page, as SSM may answer) and GetParameter. */
async function startFakeSsm(): Promise<FakeSsm> {
  const parameters = new Map<string, string>();
  const calls: string[] = [];
  const server = createServer(async (req, res) => {
    const op = String(req.headers['x-amz-target'] ?? '').replace('AmazonSSM.', '');
    const input = JSON.parse((await body(req)) || '{}') as { Path?: string; Name?: string; NextToken?: string };
    calls.push(op);
    res.setHeader('content-type', 'application/x-amz-json-1.1');
    if (op === 'GetParametersByPath') {
      const names = [...parameters.keys()].filter((n) => n.startsWith(`${input.Path}/`)).sort();
      const index = input.NextToken === undefined ? 0 : Number(input.NextToken);
      const page = names
        .slice(index, index + 1)
        .map((Name) => ({ Name, Value: parameters.get(Name), Type: 'String', Version: 1 }));
      res.end(
        JSON.stringify({ Parameters: page, ...(index + 1 < names.length ? { NextToken: String(index + 1) } : {}) }),
      );
    } else if (op === 'GetParameter' && input.Name !== undefined && parameters.has(input.Name)) {
      res.end(
        JSON.stringify({
          Parameter: { Name: input.Name, Value: parameters.get(input.Name), Type: 'SecureString', Version: 1 },
        }),
      );
    } else {
      res.statusCode = 400;
      res.end(JSON.stringify({ __type: 'ParameterNotFound', message: `no ${input.Name ?? op}` }));
    }
  });
  const address = await listen(server);
  return {
    endpoint: `http://${address}`,
    parameters,
    calls,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface LambdaProcess {
  /** Send one event; resolves with the handler's result, rejects with its error. */
  invoke(event: unknown): Promise<unknown>;
  /** Everything the function printed (logs, EMF metrics). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Start `index.handler` from `assetDir` under aws-lambda-ric with a fake Runtime API; each
 * invocation's deadline is `deadlineMs` away (the stack's timeout, 60 s, unless a test needs more).
 */
async function startLambda(
  assetDir: string,
  env: Record<string, string>,
  { deadlineMs = 60_000 }: { deadlineMs?: number } = {},
): Promise<LambdaProcess> {
  let waiting: ServerResponse | null = null;
  const queue: Array<{ id: string; event: unknown }> = [];
  const pending = new Map<string, { resolve(v: unknown): void; reject(e: Error): void }>();
  let counter = 0;

  const deliver = () => {
    const next = queue.shift();
    if (waiting === null || next === undefined) {
      if (next !== undefined) queue.unshift(next);
      return;
    }
    const res = waiting;
    waiting = null;
    res.writeHead(200, {
      'content-type': 'application/json', // the client crashes without it
      'lambda-runtime-aws-request-id': next.id,
      'lambda-runtime-deadline-ms': String(Date.now() + deadlineMs),
      'lambda-runtime-invoked-function-arn': 'arn:aws:lambda:eu-west-1:123456789012:function:httpd-status-alerts',
      'lambda-runtime-trace-id': 'Root=1-00000000-000000000000000000000000',
    });
    res.end(JSON.stringify(next.event));
  };

  const server = createServer(async (req, res) => {
    const url = req.url ?? '';
    if (req.method === 'GET' && url.endsWith('/invocation/next')) {
      waiting = res;
      deliver();
      return;
    }
    const m = /\/invocation\/([^/]+)\/(response|error)$/.exec(url);
    const text = await body(req);
    res.writeHead(202).end();
    if (m === null) return; // init errors and the like
    const waiter = pending.get(m[1] as string);
    pending.delete(m[1] as string);
    if (m[2] === 'response') waiter?.resolve(text === '' ? null : JSON.parse(text));
    else waiter?.reject(new Error(`the function failed: ${text}`));
  });
  const address = await listen(server);

  const client = findRuntimeClient();
  if (client.path === null) throw new Error(client.missing);
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [client.path, 'index.handler'], {
    cwd: assetDir,
    env: {
      PATH: process.env.PATH ?? '',
      AWS_LAMBDA_RUNTIME_API: address,
      AWS_LAMBDA_FUNCTION_NAME: 'httpd-status-alerts',
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '256',
      AWS_LAMBDA_LOG_GROUP_NAME: '/aws/lambda/httpd-status-alerts',
      AWS_LAMBDA_LOG_STREAM_NAME: 'test',
      LAMBDA_TASK_ROOT: assetDir,
      _HANDLER: 'index.handler',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });

  return {
    invoke(event) {
      const id = `req-${++counter}`;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        queue.push({ id, event });
        deliver();
      });
    },
    output: () => output,
    async stop() {
      child.kill('SIGKILL');
      waiting?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type { FakeSsm, LambdaProcess };
export { findRuntimeClient, startFakeSsm, startLambda };
