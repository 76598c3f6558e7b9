/**
 * Full cycles through the bundle that `cdk synth` produces, loaded as Lambda loads it: the real
 * runtime interface client in a fresh Node process, emulators reached only through
 * AWS_ENDPOINT_URL_* variables.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  invokeExplained,
  monitorEnv,
  passGroupInterval,
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
import { onlyTheseRules } from '../support/rulesDocuments.ts';

const BUSY = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-busy/report.html', import.meta.url), 'latin1');
const IDLE = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-idle/report.html', import.meta.url), 'latin1');

/** The series (namespace/name/dimension names) one EMF log line defines; none for other lines. */
function emfSeries(line: string): string[] {
  if (!line.includes('"_aws"')) return [];
  const directives = (
    JSON.parse(line.slice(line.indexOf('{'))) as {
      _aws: {
        CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }>;
      };
    }
  )._aws.CloudWatchMetrics;
  return directives.flatMap((d) =>
    d.Metrics.flatMap((m) => d.Dimensions.map((set) => `${d.Namespace}/${m.Name}/${set}`)),
  );
}

// The client is an opt-in install (it needs cmake and a C++ compiler); CI installs it and must run this.
const client = findRuntimeClient();
const skip = client.path === null && process.env.CI === undefined ? client.missing : null;

describe.skipIf(skip !== null)(
  `the synthesized bundle under the Lambda runtime interface client${skip ? ` (SKIPPED: ${skip})` : ''}`,
  () => {
    let dynamo: LocalDynamo;
    let sns: LocalSns;
    let ssm: FakeSsm;
    let lambda: LambdaProcess;
    let pages: StatusPages;

    beforeAll(async () => {
      const { assetDir } = synthFunction({});
      [dynamo, sns, ssm, pages] = await Promise.all([
        startDynalite(),
        startSns(),
        startFakeSsm(),
        startStatusPages(IDLE),
      ]);
      await dynamo.createTable('alerts');
      pages.bodies.set('web-1', BUSY);
      ssm.parameters.set(
        '/hsa/targets/web-1',
        JSON.stringify({ url: pages.urlOf('web-1'), timeoutMs: 1000, allowLoopback: true }),
      );
      ssm.parameters.set(
        '/hsa/rules/closing',
        onlyTheseRules([
          { name: 'closing-seen', metric: 'slots_closing', op: '>=', threshold: 3, severity: 'critical' },
        ]),
      );
      lambda = await startLambda(assetDir, monitorEnv({ ssm, sns, dynamoEndpoint: dynamo.endpoint }, '/hsa', 'alerts'));
    }, 120_000);

    afterAll(async () => {
      await lambda?.stop();
      await Promise.all([dynamo?.stop(), sns?.stop(), ssm?.stop(), pages?.stop()]);
    });

    it('pages once, stays quiet, resolves once, pages target-down; five metric series and one log line per target and run', async () => {
      const subjects = async () => (await sns.drain()).map((m) => m.subject);
      const run = () => invokeExplained(lambda);

      expect(await run()).toMatchObject({ targets: 1, sent: 1, down: 0 });
      expect(await subjects()).toEqual(['[FIRING critical] web-1: closing-seen (3 >= 3)']);

      await run();
      expect(await subjects()).toEqual([]);

      pages.bodies.set('web-1', IDLE);
      // The resolve of a grouped alert (by rule, the default) waits one group interval after the group's last page.
      await passGroupInterval(dynamo, 'alerts', '{"rule":"closing-seen"}');
      await run();
      expect(await subjects()).toEqual(['[RESOLVED critical] web-1: closing-seen (now 0)']);

      await pages.stop();
      expect(await run()).toMatchObject({ down: 1, sent: 0 });
      expect(await subjects()).toEqual([]);
      await run();
      expect(await subjects()).toEqual(['[FIRING critical] web-1: target-down (refused)']);

      // Warm invocations reuse the configuration (the default cache, 270 s): SSM was read on the first run only.
      expect(ssm.calls.filter((c) => c === 'GetParametersByPath')).toHaveLength(4); // targets, rules, silences, discovery
      // Powertools wrote the heartbeat as an EMF metric on every run.
      expect(lambda.output().match(/"Heartbeat"/g)?.length).toBeGreaterThanOrEqual(5);
      // The default configuration's custom metrics: five fleet-level series of this monitor, none per target.
      const lines = lambda.output().split('\n');
      expect(new Set(lines.flatMap(emfSeries))).toEqual(
        new Set(
          ['Heartbeat', 'RunsFailed', 'ConfigurationUnreadable', 'AlertsSent', 'TargetsDown'].map(
            (name) => `HttpdStatusAlerts/${name}/service,monitor`,
          ),
        ),
      );
      // Per-target figures went to one log line per target and run instead, for the dashboard's queries.
      const checked = lines.filter((line) => line.startsWith('{"message":"target checked"'));
      expect(checked.map((line) => JSON.parse(line) as Record<string, unknown>)).toMatchObject([
        { target: 'web-1', TargetUp: 1, BusySlots: 28, IdleSlots: 5, ClosingSlots: 3 },
        { target: 'web-1', TargetUp: 1, ClosingSlots: 3 },
        { target: 'web-1', TargetUp: 1, ClosingSlots: 0 },
        { target: 'web-1', TargetUp: 0 },
        { target: 'web-1', TargetUp: 0 },
      ]);
    }, 120_000);
  },
);
