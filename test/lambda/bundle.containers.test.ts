/**
 * Stale warm containers through the synthesized monitor bundle run as two warm
 * containers (1: a cached configuration still listing a removed target; 2: warm memory of a
 * deleted item taken for the item created again; 3: one schedule tick run twice): two runtime
 * interface client processes, A and B, each with its own warm memory and
 * its own configuration cache (the stack's 270 s unless said), both on one dynalite table, one
 * fake SSM and one SNS topic (fauxqs), whose queue the pages are read back from after every run.
 *
 * Time: a run's time is its scheduled event's tick (EventBridge's `time`), the wall clock when the
 * event has none, so the runs of a scenario happen seconds apart, all within A's configuration
 * cache. Scenario 3 gives its events their ticks; where a checkpoint must come due, the time a
 * target's item counts from is moved into the past (`passTargetTime`).
 */
import { readFileSync } from 'node:fs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  invokeExplained,
  monitorEnv,
  passTargetTime,
  SCHEDULED_EVENT,
  type StatusPages,
  startStatusPages,
  synthFunction,
} from '../support/bundle.ts';
import { type LocalDynamo, type LocalSns, startDynalite, startSns } from '../support/emulators.ts';
import {
  type FakeSsm,
  findRuntimeClient,
  type LambdaProcess,
  startFakeSsm,
  startLambda,
} from '../support/fakeLambda.ts';

const BUSY = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-busy/report.html', import.meta.url), 'latin1');
const IDLE = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-idle/report.html', import.meta.url), 'latin1');
// One page per alert (`groupBy: []`): each alert's own pages, no group interval to wait for.
const RULES = JSON.stringify({
  rules: [{ name: 'closing-seen', metric: 'slots_closing', op: '>=', threshold: 3, severity: 'critical', groupBy: [] }],
});
const CHECKPOINT_MS = 15 * 60_000; // the default checkpoint interval
const TICK_MS = 60_000; // the stack's default schedule

/**
 * The alerts whose pages do not alternate FIRING, RESOLVED, ... or whose last page is a FIRING:
 * an incident left open, or paged twice.
 */
function unbalanced(subjects: readonly string[]): string[] {
  const last = new Map<string, string>();
  const bad = new Set<string>();
  for (const subject of subjects) {
    const match = /^\[(FIRING|RESOLVED) \w+\] ([^:]+: [\w-]+)/.exec(subject);
    if (match === null) throw new Error(`expected a page subject, found "${subject}"`);
    const [, status, alert] = match as unknown as [string, string, string];
    if (last.get(alert) === status || (last.get(alert) === undefined && status === 'RESOLVED')) bad.add(alert);
    last.set(alert, status);
  }
  for (const [alert, status] of last) if (status === 'FIRING') bad.add(alert);
  return [...bad].sort();
}

const client = findRuntimeClient();
const skip = client.path === null && process.env.CI === undefined ? client.missing : null;

describe.skipIf(skip !== null)(
  `two warm containers of the synthesized bundle (stale warm memory)${skip ? ` (SKIPPED: ${skip})` : ''}`,
  () => {
    let assetDir: string;
    let dynamo: LocalDynamo;
    let sns: LocalSns;
    let ssm: FakeSsm;
    let pages: StatusPages;
    let refused: StatusPages;
    const running: LambdaProcess[] = [];

    beforeAll(async () => {
      ({ assetDir } = synthFunction({}));
      [dynamo, sns, ssm, pages, refused] = await Promise.all([
        startDynalite(),
        startSns(),
        startFakeSsm(),
        startStatusPages(IDLE),
        startStatusPages(IDLE),
      ]);
      await refused.stop(); // its port refuses connections: a failed fetch ("refused")
    }, 180_000);

    afterAll(async () => {
      await Promise.all(running.map((lambda) => lambda.stop()));
      await Promise.all([dynamo?.stop(), sns?.stop(), ssm?.stop(), pages?.stop()]);
    });

    /**
     * A scenario's own table and parameters, its two containers (B's environment amended by
     * `bEnv`), its targets' parameters, and a log of what each run paged.
     */
    async function scenario(name: string, targets: Record<string, string>, bEnv: Record<string, string> = {}) {
      await dynamo.createTable(name);
      const prefix = `/${name}`;
      const setTarget = (target: string, url: string) =>
        ssm.parameters.set(
          `${prefix}/targets/${target}`,
          JSON.stringify({ url, timeoutMs: 2000, allowLoopback: true }),
        );
      for (const [target, url] of Object.entries(targets)) setTarget(target, url);
      ssm.parameters.set(`${prefix}/rules/main`, RULES);
      const env = monitorEnv({ ssm, sns, dynamoEndpoint: dynamo.endpoint }, prefix, name);
      const containers = {
        A: await startLambda(assetDir, env),
        B: await startLambda(assetDir, { ...env, ...bEnv }),
      };
      running.push(containers.A, containers.B);
      const subjects: string[] = [];
      const log: string[] = [];
      return {
        setTarget,
        removeTarget: (target: string) => ssm.parameters.delete(`${prefix}/targets/${target}`),
        item: async (target: string) =>
          (await dynamo.doc.send(new GetCommand({ TableName: name, Key: { pk: `target#${target}` } }))).Item,
        /** One scheduled run of `container`; logs `<container>: <its pages, or nothing>` plus `note`. */
        async run(container: 'A' | 'B', note: () => Promise<string> = async () => '', tick?: Date) {
          // A scheduled event carries its tick (EventBridge's `time`): a retry or an overlapping
          // run of the same event shares it. Without one, the run's time is the container's clock.
          const event = tick === undefined ? undefined : { ...SCHEDULED_EVENT, time: tick.toISOString() };
          await invokeExplained(containers[container], event);
          const paged = (await sns.drain()).map((m) => m.subject ?? '').sort();
          subjects.push(...paged);
          log.push(`${container}: ${paged.join(', ') || 'nothing'}${await note()}`);
        },
        subjects,
        log,
      };
    }

    it('1: a container whose cached configuration still lists a removed target neither pages it again nor leaves it open', async () => {
      const s = await scenario('scenario-1', { a0: pages.urlOf('s1-a0'), keep: pages.urlOf('s1-keep') });
      pages.bodies.set('s1-a0', BUSY);
      await s.run('A'); // A caches the configuration listing a0 (for 270 s)
      s.removeTarget('a0');
      await s.run('B'); // B reads the removal: resolves a0, deletes its item, stores the new configuration
      await s.run('A'); // within A's cache age
      await s.run('B');
      await s.run('A');
      expect(s.log).toEqual([
        'A: [FIRING critical] a0: closing-seen (3 >= 3)',
        'B: [RESOLVED critical] a0: closing-seen (target removed from configuration)',
        'A: nothing',
        'B: nothing',
        'A: nothing',
      ]);
      expect(unbalanced(s.subjects)).toEqual([]);
      expect(await s.item('a0')).toBeUndefined();
    }, 120_000);

    it('2: warm memory of a deleted item is not taken for the item created again up to the same version', async () => {
      // B reads the parameters every run, so the operator's re-add reaches it at once; A keeps the stack's cache.
      const s = await scenario('scenario-2', { a0: pages.urlOf('s2-a0') }, { CONFIG_MAX_AGE_SECONDS: '0' });
      pages.bodies.set('s2-a0', BUSY);
      await s.run('A');
      pages.bodies.set('s2-a0', IDLE);
      await s.run('A'); // A remembers a0 resolved, at the item's version now
      const remembered = (await s.item('a0'))?.version;
      s.removeTarget('a0');
      await s.run('B'); // removed: the item deleted
      s.setTarget('a0', pages.urlOf('s2-a0'));
      pages.bodies.set('s2-a0', BUSY);
      await s.run('B'); // the item created again: its versions start afresh
      for (const _ of [1, 2]) {
        await passTargetTime(dynamo, 'scenario-2', 'a0', CHECKPOINT_MS); // a checkpoint is due: one write each
        await s.run('B');
      }
      expect((await s.item('a0'))?.version).toBe(remembered);
      pages.bodies.set('s2-a0', IDLE);
      await s.run('A'); // A's memory: that version, resolved; the table's: that version, firing
      expect(s.log).toEqual([
        'A: [FIRING critical] a0: closing-seen (3 >= 3)',
        'A: [RESOLVED critical] a0: closing-seen (now 0)',
        'B: nothing',
        'B: [FIRING critical] a0: closing-seen (3 >= 3)',
        'B: nothing',
        'B: nothing',
        'A: [RESOLVED critical] a0: closing-seen (now 0)',
      ]);
      expect(unbalanced(s.subjects)).toEqual([]);
    }, 120_000);

    it('3: two runs in one schedule tick, both failing to fetch, count one failure: target-down pages after two ticks', async () => {
      const s = await scenario('scenario-3', { down: refused.urlOf('down') });
      const failures = async () => `; failures ${(await s.item('down'))?.state?.consecutiveFailures}`;
      // Two ticks a minute apart, in the past so no run is later than the clock.
      const first = new Date(Math.floor(Date.now() / TICK_MS) * TICK_MS - 2 * TICK_MS);
      const second = new Date(first.getTime() + TICK_MS);
      await s.run('A', failures, first);
      await s.run('B', failures, first); // the same tick: an overlapping run, or a retry
      await s.run('A', failures, second);
      await s.run('B', failures, second);
      expect(s.log).toEqual([
        'A: nothing; failures 1',
        'B: nothing; failures 1',
        'A: [FIRING critical] down: target-down (refused); failures 2',
        'B: nothing; failures 2',
      ]);
    }, 120_000);
  },
);
