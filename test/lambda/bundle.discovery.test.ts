/**
 * Discovery through the bundle `cdk synth` produces with `discoverySources=ec2,autoscaling`, run
 * as Lambda runs it (the real runtime interface client in a fresh Node process), its SDK clients
 * reaching the EC2 and Auto Scaling stand-ins, dynalite, fauxqs and the fake SSM only through
 * AWS_ENDPOINT_URL_* variables. The instances' private addresses are loopback addresses
 * (127.0.0.2, 127.0.0.3, ...) where real servers answer with the fixture status pages; the
 * discovery documents allow loopback (`allowLoopback`), as the stack's only loopback setting is
 * per target.
 *
 * Time: each run's time is its scheduled event's tick (EventBridge's `time`), stepped explicitly a
 * minute (or half a minute) at a time; the documents refresh every 60 s (the default).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueryStandIn } from '../support/awsQuery.ts';
import { invokeExplained, monitorEnv, SCHEDULED_EVENT, synthFunction } from '../support/bundle.ts';
import { type LocalDynamo, type LocalSns, startDynalite, startSns } from '../support/emulators.ts';
import { startFakeAutoScaling } from '../support/fakeAutoScaling.ts';
import { startFakeEc2 } from '../support/fakeEc2.ts';
import { FakeFleet, type FakeInstance } from '../support/fakeFleet.ts';
import {
  type FakeSsm,
  findRuntimeClient,
  type LambdaProcess,
  startFakeSsm,
  startLambda,
} from '../support/fakeLambda.ts';
import { type InstancePages, startInstancePages } from '../support/instancePages.ts';
import { onlyTheseRules } from '../support/rulesDocuments.ts';

const BUSY = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-busy/report.html', import.meta.url), 'latin1');
const IDLE = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-idle/report.html', import.meta.url), 'latin1');
// One page per alert (`groupBy: []`), the built-in rules off: each alert's own pages, no group interval to wait for.
const RULES = onlyTheseRules([
  { name: 'closing-seen', metric: 'slots_closing', op: '>=', threshold: 3, severity: 'critical', groupBy: [] },
]);
/** The first tick of every scenario, on a whole minute. */
const T0 = Math.floor(Date.now() / 60_000) * 60_000;

interface RunSummary {
  targets: number;
  sent: number;
  down: number;
}

const client = findRuntimeClient();
const skip = client.path === null && process.env.CI === undefined ? client.missing : null;

describe.skipIf(skip !== null)(
  `discovery through the synthesized bundle under the Lambda runtime interface client${skip ? ` (SKIPPED: ${skip})` : ''}`,
  () => {
    let assetDir: string;
    let stackEnv: Record<string, string>;
    let dynamo: LocalDynamo;
    let sns: LocalSns;
    let ssm: FakeSsm;
    let ec2: QueryStandIn;
    let autoScaling: QueryStandIn;
    let pages: InstancePages;
    const fleet = new FakeFleet();
    const running: LambdaProcess[] = [];

    beforeAll(async () => {
      ({ assetDir, environment: stackEnv } = synthFunction({ discoverySources: 'ec2,autoscaling' }, 'Monitor'));
      [dynamo, sns, ssm, ec2, autoScaling, pages] = await Promise.all([
        startDynalite(),
        startSns(),
        startFakeSsm(),
        startFakeEc2(fleet),
        startFakeAutoScaling(fleet),
        startInstancePages(),
      ]);
    }, 180_000);

    afterAll(async () => {
      await Promise.all(running.map((lambda) => lambda.stop()));
      await Promise.all([dynamo?.stop(), sns?.stop(), ssm?.stop(), ec2?.stop(), autoScaling?.stop(), pages?.stopAll()]);
    });

    /** An instance of `scenario` launched, its server answering `body` at its address. */
    async function launch(scenario: string, name: string, body: string, group?: string): Promise<FakeInstance> {
      const instance = fleet.launch({
        tags: { Scenario: scenario, Name: name },
        ...(group === undefined ? {} : { group }),
      });
      await pages.serve(instance.privateIp, body);
      return instance;
    }

    /** An ec2 document over the scenario's instances, named by `name` (default their Name tag). */
    const ec2Document = (scenario: string, name = '{{tag:Name}}') =>
      JSON.stringify({
        source: 'ec2',
        filters: { 'tag:Scenario': [scenario] },
        url: `http://{{privateIp}}:${pages.port}/server-status`,
        name,
        timeoutMs: 2000,
        allowLoopback: true,
      });

    /** A scenario's own table, prefix, documents and container; `run(minutes)` runs the tick T0 + minutes. */
    async function scenario(name: string, documents: Record<string, string>, env: Record<string, string> = {}) {
      await dynamo.createTable(name);
      const prefix = `/${name}`;
      ssm.parameters.set(`${prefix}/rules/main`, RULES);
      for (const [doc, text] of Object.entries(documents)) ssm.parameters.set(`${prefix}/discovery/${doc}`, text);
      const lambda = await startLambda(
        assetDir,
        {
          ...monitorEnv({ ssm, sns, dynamoEndpoint: dynamo.endpoint }, prefix, name),
          // As the stack sets it for discoverySources=ec2,autoscaling.
          DISCOVERY_SOURCES: stackEnv.DISCOVERY_SOURCES as string,
          AWS_ENDPOINT_URL_EC2: ec2.endpoint,
          AWS_ENDPOINT_URL_AUTO_SCALING: autoScaling.endpoint,
          ...env,
        },
        // A listing may take a third of the remaining time: 3 s of throttling, not 20.
        { deadlineMs: 9_000 },
      );
      running.push(lambda);
      /** Every message published, its JSON payload. */
      const published: Array<Record<string, unknown>> = [];
      return {
        published,
        lambda,
        removeDocument: (doc: string) => ssm.parameters.delete(`${prefix}/discovery/${doc}`),
        /** The run of the tick T0 + `minutes`: its summary, and the subjects it published (sorted). */
        async run(minutes: number): Promise<{ summary: RunSummary; subjects: string[] }> {
          const event = { ...SCHEDULED_EVENT, time: new Date(T0 + minutes * 60_000).toISOString() };
          const summary = (await invokeExplained(lambda, event)) as RunSummary;
          const messages = await sns.drain();
          published.push(...messages.map((m) => JSON.parse(m.body) as Record<string, unknown>));
          const subjects = messages.map((m) => m.subject ?? '').sort();
          return { summary: { targets: summary.targets, sent: summary.sent, down: summary.down }, subjects };
        },
      };
    }

    it('the stack sets DISCOVERY_SOURCES for the sources it deploys', () => {
      expect(stackEnv.DISCOVERY_SOURCES).toBe('ec2,autoscaling');
    });

    it('(a) an instance launched is checked at the next refresh, not before', async () => {
      await launch('a', 'a-web-1', IDLE);
      const s = await scenario('discovery-a', { web: ec2Document('a') });
      const steps: Array<[number, RunSummary, string[]]> = [];
      const step = async (minutes: number) => {
        const { summary, subjects } = await s.run(minutes);
        steps.push([minutes, summary, subjects]);
      };
      await step(0);
      await launch('a', 'a-web-2', BUSY);
      await step(0.5); // listed 30 s ago: not due
      await step(1); // due: a-web-2 joins and is checked in this run
      await step(2);
      expect(steps).toEqual([
        [0, { targets: 1, sent: 0, down: 0 }, []],
        [0.5, { targets: 1, sent: 0, down: 0 }, []],
        [1, { targets: 2, sent: 1, down: 0 }, ['[FIRING critical] a-web-2: closing-seen (3 >= 3)']],
        [2, { targets: 2, sent: 0, down: 0 }, []],
      ]);
      expect(ec2.calls.DescribeInstances).toBeGreaterThanOrEqual(2);
    }, 120_000);

    it('(b) an instance scaled in while its alert fires: resolved as removed, never target-down', async () => {
      const keep = await launch('b', 'b-web-1', IDLE, 'b-asg');
      const leaving = await launch('b', 'b-web-2', BUSY, 'b-asg');
      const s = await scenario('discovery-b', {
        asg: JSON.stringify({
          source: 'autoscaling',
          groups: ['b-asg'],
          url: `http://{{privateIp}}:${pages.port}/server-status`,
          name: '{{tag:Name}}',
          allowLoopback: true,
        }),
      });
      const first = await s.run(0);
      // Scaled in: out of the group, terminated, its address refusing connections.
      fleet.terminate(leaving.id);
      await pages.stop(leaving.privateIp);
      const after = [await s.run(1), await s.run(2), await s.run(3)];
      expect([first, ...after]).toEqual([
        { summary: { targets: 2, sent: 1, down: 0 }, subjects: ['[FIRING critical] b-web-2: closing-seen (3 >= 3)'] },
        {
          summary: { targets: 1, sent: 1, down: 0 },
          subjects: ['[RESOLVED critical] b-web-2: closing-seen (target removed from configuration)'],
        },
        { summary: { targets: 1, sent: 0, down: 0 }, subjects: [] },
        { summary: { targets: 1, sent: 0, down: 0 }, subjects: [] },
      ]);
      expect(keep.state).toBe('running');
    }, 120_000);

    it('(c) a listing failing for minutes keeps the last good list checked, pages once naming the source, resolves when it lists', async () => {
      await launch('c', 'c-web-1', IDLE, 'c-asg');
      const busy = await launch('c', 'c-web-2', IDLE, 'c-asg');
      const s = await scenario('discovery-c', {
        asg: JSON.stringify({
          source: 'autoscaling',
          groups: ['c-asg'],
          url: `http://{{privateIp}}:${pages.port}/server-status`,
          name: '{{tag:Name}}',
          allowLoopback: true,
        }),
      });
      const steps: Array<[number, RunSummary, string[]]> = [];
      const step = async (minutes: number) => {
        const { summary, subjects } = await s.run(minutes);
        steps.push([minutes, summary, subjects]);
      };
      await step(0);
      // Throttled past the SDK's retries and the listing's budget, then failing with HTTP 500.
      autoScaling.throttleNext(1_000_000);
      await step(1);
      await step(2);
      autoScaling.throttleNext(0);
      autoScaling.failInternally(true);
      // Meanwhile an instance of the last good list starts to pile up closing slots: still checked.
      await pages.serve(busy.privateIp, BUSY);
      await step(3);
      await step(4);
      autoScaling.failInternally(false);
      await step(5);
      await step(6);
      expect(steps).toEqual([
        [0, { targets: 2, sent: 0, down: 0 }, []],
        [
          1,
          { targets: 2, sent: 1, down: 0 },
          ['[FIRING warning] /discovery-c/discovery/asg: discovery failing (autoscaling, throttled)'],
        ],
        [2, { targets: 2, sent: 0, down: 0 }, []],
        [3, { targets: 2, sent: 1, down: 0 }, ['[FIRING critical] c-web-2: closing-seen (3 >= 3)']],
        [4, { targets: 2, sent: 0, down: 0 }, []],
        [5, { targets: 2, sent: 1, down: 0 }, ['[RESOLVED warning] /discovery-c/discovery/asg: discovery lists again']],
        [6, { targets: 2, sent: 0, down: 0 }, []],
      ]);
      // The one discovery page names the source and why, and how many targets stay checked.
      const discoveryPages = s.published.filter((m) => m.rule === 'discovery-failing');
      expect(discoveryPages.map((m) => [m.status, m.targetsInForce ?? null])).toEqual([
        ['firing', 2],
        ['resolved', null],
      ]);
      expect((discoveryPages[0]?.problems as string[] | undefined)?.[0]).toMatch(
        /^autoscaling throttled: DescribeAutoScalingGroups: Throttling: Rate exceeded; still throttled when the \d+ ms budget ran out \(\d+ calls, \d+ waits after the SDK's retries\)$/,
      );
      const failing = s.lambda
        .output()
        .split('\n')
        .filter((line) => line.includes('"discovery failing: the last good list stays in force"'))
        .map((line) => JSON.parse(line.slice(line.indexOf('{'))) as Record<string, unknown>);
      expect(failing.map((l) => [l.source, l.why, l.targetsInForce])).toEqual([
        ['autoscaling', 'throttled', 2],
        ['autoscaling', 'throttled', 2],
        ['autoscaling', 'other', 2],
        ['autoscaling', 'other', 2],
      ]);
    }, 180_000);

    it('(d) names that collide: two instances of one document, and two documents, keep the first holder; each document left out pages once', async () => {
      const one = await launch('d', 'd-web-1', BUSY);
      const two = await launch('d', 'd-web-2', BUSY);
      // `d-{{tag:Scenario}}` names both instances "d-d"; the second document renders the first's names again.
      const s = await scenario(
        'discovery-d',
        {
          one: ec2Document('d', 'd-{{tag:Scenario}}'),
          two: ec2Document('d'),
          zz: ec2Document('d'),
        },
        // The parameters are read at every run, so the deletion is seen at the next one.
        { CONFIG_MAX_AGE_SECONDS: '0' },
      );
      const runs = [await s.run(0), await s.run(1)];
      s.removeDocument('zz');
      runs.push(await s.run(2), await s.run(3));
      expect(runs).toEqual([
        {
          summary: { targets: 3, sent: 5, down: 0 },
          subjects: [
            '[FIRING critical] d-d: closing-seen (3 >= 3)',
            '[FIRING critical] d-web-1: closing-seen (3 >= 3)',
            '[FIRING critical] d-web-2: closing-seen (3 >= 3)',
            '[FIRING warning] /discovery-d/discovery/one: discovery names taken (1 left out)',
            '[FIRING warning] /discovery-d/discovery/zz: discovery names taken (2 left out)',
          ],
        },
        { summary: { targets: 3, sent: 0, down: 0 }, subjects: [] },
        // The document whose instances were left out deleted: its alert resolves, the others stand.
        {
          summary: { targets: 3, sent: 1, down: 0 },
          subjects: ['[RESOLVED warning] /discovery-d/discovery/zz: discovery names taken: document removed'],
        },
        { summary: { targets: 3, sent: 0, down: 0 }, subjects: [] },
      ]);
      const names = s.published.filter((m) => m.rule === 'discovery-names-taken' && m.status === 'firing');
      expect(names.map((m) => [m.target, m.problems])).toEqual([
        [
          '/discovery-d/discovery/one',
          [`"d-d" for instance ${two.id}: held by instance ${one.id} of /discovery-d/discovery/one`],
        ],
        [
          '/discovery-d/discovery/zz',
          [
            `"d-web-1" for instance ${one.id}: held by instance ${one.id} of /discovery-d/discovery/two`,
            `"d-web-2" for instance ${two.id}: held by instance ${two.id} of /discovery-d/discovery/two`,
          ],
        ],
      ]);
      const warnings = s.lambda
        .output()
        .split('\n')
        .filter((line) => line.includes('"discovered target names taken: left out"'))
        .map((line) => JSON.parse(line.slice(line.indexOf('{'))) as { count: number; collisions: string[] });
      // Logged at every run: the first holder (by parameter, then name) keeps being checked.
      const first = `/discovery-d/discovery/one: expected a unique target name, found "d-d" again for instance ${two.id} (also instance ${one.id} of /discovery-d/discovery/one)`;
      const collisions = {
        count: 3,
        collisions: [
          first,
          `/discovery-d/discovery/zz: expected a unique target name, found "d-web-1" again for instance ${one.id} (also instance ${one.id} of /discovery-d/discovery/two)`,
          `/discovery-d/discovery/zz: expected a unique target name, found "d-web-2" again for instance ${two.id} (also instance ${two.id} of /discovery-d/discovery/two)`,
        ],
      };
      const left = { count: 1, collisions: [first] };
      expect(warnings.map(({ count, collisions }) => ({ count, collisions }))).toEqual([
        collisions,
        collisions,
        left,
        left,
      ]);
    }, 180_000);

    it('(e) a discovery document deleted while its alert fires: the alert resolves as removed, its targets leave without target-down', async () => {
      const web = await launch('e', 'e-web-1', BUSY, 'e-asg');
      const s = await scenario(
        'discovery-e',
        {
          asg: JSON.stringify({
            source: 'autoscaling',
            groups: ['e-asg'],
            url: `http://{{privateIp}}:${pages.port}/server-status`,
            name: '{{tag:Name}}',
            allowLoopback: true,
          }),
        },
        // The parameters are read at every run, so the deletion is seen at the next one.
        { CONFIG_MAX_AGE_SECONDS: '0' },
      );
      const steps = [await s.run(0)];
      autoScaling.failInternally(true);
      steps.push(await s.run(1));
      s.removeDocument('asg');
      // The instance is gone too: were it still a target, its refused fetches would page target-down.
      await pages.stop(web.privateIp);
      steps.push(await s.run(2), await s.run(3), await s.run(4));
      autoScaling.failInternally(false);
      expect(steps).toEqual([
        { summary: { targets: 1, sent: 1, down: 0 }, subjects: ['[FIRING critical] e-web-1: closing-seen (3 >= 3)'] },
        {
          summary: { targets: 1, sent: 1, down: 0 },
          subjects: ['[FIRING warning] /discovery-e/discovery/asg: discovery failing (autoscaling, other)'],
        },
        {
          summary: { targets: 0, sent: 2, down: 0 },
          subjects: [
            '[RESOLVED critical] e-web-1: closing-seen (target removed from configuration)',
            '[RESOLVED warning] /discovery-e/discovery/asg: discovery document removed',
          ],
        },
        { summary: { targets: 0, sent: 0, down: 0 }, subjects: [] },
        { summary: { targets: 0, sent: 0, down: 0 }, subjects: [] },
      ]);
    }, 120_000);
  },
);
