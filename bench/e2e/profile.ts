/**
 * Where a warm run's CPU goes: the bundle under the Lambda runtime client, as in run.ts, with a V8
 * CPU profile taken over the steady runs only, attributed to source packages through the bundle's
 * source map (the bundle is one minified file, so names alone would say nothing).
 *
 *   npx tsx bench/e2e/profile.ts [--targets=1000] [--runs=3]
 *
 * Prints the busy samples by phase (fetch handling, parse, metrics, evaluation, page building,
 * the `target checked` log line, state reads and writes), then by owner package.
 *
 * Loopback only; everything started here is stopped at the end, also on failure.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONFIG } from '../../infra/config.ts';
import { region, startDynalite, startSns } from '../../test/support/emulators.ts';
import { startFakeSsm } from '../../test/support/fakeSsm.ts';
import { buildBundle } from './bundle.ts';
import { SLOW_PLACEMENTS, startFleet } from './fleet.ts';
import { startLocalLambda } from './lambdaRuntime.ts';

const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const TARGETS = Number(arg('targets', '1000'));
const RUNS = Number(arg('runs', '3'));

/** Loaded into the runtime process: the first SIGUSR2 starts the profiler, the second writes the profile. */
const HOOK = `
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
const session = new Session();
session.connect();
let running = false;
process.on('SIGUSR2', async () => {
  if (!running) {
    running = true;
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    process.stderr.write('profile started\\n');
    return;
  }
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));
  process.stderr.write('profile written\\n');
});
`;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

/**
 * The run's phases, by the source file of the innermost frame of ours on a sample's stack (a
 * sample in the SDK or in Node's HTTP belongs to the phase that called it). First match wins.
 */
const PHASES: ReadonlyArray<[phase: string, files: RegExp]> = [
  ['parse', /src\/core\/report\//],
  ['metrics', /src\/core\/rules\/(compute|metrics)\.ts$/],
  ['page building', /src\/core\/notify\//],
  ['evaluation', /src\/core\/(evaluate|alerts\/|rules\/)/],
  ['log line', /src\/lambda\/metricsSink\.ts$/],
  ['state reads and writes', /src\/(adapters\/dynamoStateStore|app\/accounting\/)/],
  ['fetch handling', /src\/(adapters\/httpStatusSource|app\/concurrency)/],
  ['configuration (SSM, validation)', /src\/(adapters\/ssm|app\/config\/|core\/monitorConfig|core\/zod)/],
  ['run loop and handler', /src\//],
];
const OUTSIDE = 'outside our code (runtime client, timers, sockets, GC)';

function phaseOf(source: string | undefined): string | null {
  if (source === undefined || !/\/src\//.test(source) || /node_modules/.test(source)) return null;
  for (const [phase, files] of PHASES) if (files.test(source)) return phase;
  return null;
}

/** The owner of a source path: a package, our code, or Node itself. */
function owner(source: string | undefined, url: string): string {
  if (source === undefined)
    return url === '' ? '(V8: idle, GC, program)' : url.startsWith('node:') ? 'Node (http, net, streams)' : url;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (m === null) return /\/src\//.test(source) ? `our code: ${source.slice(source.lastIndexOf('/src/') + 1)}` : source;
  const name = m[1] as string;
  if (name.startsWith('@aws-sdk/') || name.startsWith('@smithy/') || name.startsWith('@aws-crypto/'))
    return `AWS SDK (${name})`;
  return name;
}

async function main(): Promise<void> {
  const cleanups: Array<() => Promise<void>> = [];
  const work = mkdtempSync(join(tmpdir(), 'hsa-profile-'));
  cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
  try {
    const bundle = await buildBundle();
    for (const dir of bundle.tempDirs) cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const hook = join(work, 'hook.mjs');
    writeFileSync(hook, HOOK);
    const profileFile = join(work, 'profile.cpuprofile');
    const fleet = await startFleet(2);
    cleanups.push(() => fleet.stop());
    const [dynamo, sns, ssm] = await Promise.all([startDynalite(), startSns(), startFakeSsm()]);
    cleanups.push(
      () => dynamo.stop(),
      () => sns.stop(),
      () => ssm.stop(),
    );
    await dynamo.createTable('state');
    for (const t of fleet.targets(TARGETS, SLOW_PLACEMENTS.spread))
      ssm.put(`/profile/targets/${t.name}`, JSON.stringify({ url: t.url, allowLoopback: true }));
    const lambda = await startLocalLambda({
      taskRoot: bundle.dir,
      memoryMb: DEFAULT_CONFIG.memoryMb,
      env: {
        AWS_REGION: region,
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_ENDPOINT_URL_SSM: ssm.endpoint,
        AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
        AWS_ENDPOINT_URL_SNS: sns.endpoint,
        SSM_PREFIX: '/profile',
        TOPIC_ARN: sns.topicArn,
        STATE_TABLE: 'state',
        NODE_OPTIONS: `--enable-source-maps --import=${hook}`,
        PROFILE_OUT: profileFile,
      },
    });
    cleanups.push(() => lambda.stop());
    await lambda.initMs();
    const event = () => ({ id: randomUUID(), source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} });
    // Two runs unprofiled: the cold one and the one where the broken targets page.
    for (let i = 0; i < 2; i++) await lambda.invoke(event(), 120_000);
    await sns.drain();
    lambda.signal('SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cpu0 = lambda.cpuMs();
    for (let i = 0; i < RUNS; i++) await lambda.invoke(event(), 120_000);
    const cpuMs = lambda.cpuMs() - cpu0;
    lambda.signal('SIGUSR2');
    for (let i = 0; i < 50 && !lambda.stderr().includes('profile written'); i++)
      await new Promise((resolve) => setTimeout(resolve, 200));

    const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as { nodes: ProfileNode[] };
    const map = new SourceMap(JSON.parse(readFileSync(`${bundle.file}.map`, 'utf8')));
    const hits = new Map<string, number>();
    const phases = new Map<string, number>();
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    let total = 0;
    // Walk from the root so each node knows the phase of its innermost frame of ours.
    const stack: Array<[ProfileNode, string]> = [[profile.nodes[0] as ProfileNode, OUTSIDE]];
    while (stack.length > 0) {
      const [node, inherited] = stack.pop() as [ProfileNode, string];
      const { url, lineNumber, columnNumber } = node.callFrame;
      const source = url.endsWith('index.mjs')
        ? (map.findEntry(lineNumber, columnNumber) as { originalSource?: string }).originalSource
        : undefined;
      const phase = phaseOf(source) ?? inherited;
      for (const child of node.children ?? []) stack.push([byId.get(child) as ProfileNode, phase]);
      const count = node.hitCount ?? 0;
      if (count === 0) continue;
      const key = owner(source, url);
      hits.set(key, (hits.get(key) ?? 0) + count);
      if (key !== '(V8: idle, GC, program)') phases.set(phase, (phases.get(phase) ?? 0) + count);
      total += count;
    }
    const idle = hits.get('(V8: idle, GC, program)') ?? 0;
    console.log(
      `${TARGETS} targets, ${RUNS} warm runs: ${cpuMs} ms of CPU (${(cpuMs / RUNS / TARGETS).toFixed(2)} ms per target and run)`,
    );
    console.log(`samples: ${total}, of which idle/GC/program ${((100 * idle) / total).toFixed(1)} %\n`);
    console.log('| share of busy samples | phase (innermost frame of ours on the stack) |\n|---|---|');
    for (const [phase, count] of [...phases].sort((a, b) => b[1] - a[1]))
      console.log(`| ${((100 * count) / (total - idle)).toFixed(1)} % | ${phase} |`);
    console.log('\n| share of busy samples | owner |\n|---|---|');
    for (const [key, count] of [...hits]
      .filter(([k]) => k !== '(V8: idle, GC, program)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25))
      console.log(`| ${((100 * count) / (total - idle)).toFixed(1)} % | ${key} |`);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup', e));
  }
}

await main();
