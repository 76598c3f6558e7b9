/**
 * Grouping (Alertmanager's alert groups) end to end through the synthesized bundle under the Lambda runtime interface
 * client, dynalite and fauxqs: three targets and one rule, grouped by rule (the default), paged
 * as the first alert's own page, then one grouped update, then one grouped resolve.
 *
 * Time: the handler runs at the wall clock (`runCycle(deps, new Date())`) and the test keeps the
 * default 5-minute `groupInterval`, so the runs happen seconds apart and each 5 minutes of it
 * are stepped the way the accounting test steps a claim's lease: the time it counts from, the
 * group's last page (`lastSentAt` of `meta#group#<id>`), is moved that far into the past
 * (`passGroupInterval`). The comments name the minutes the scenario stands for.
 */
import { readFileSync } from 'node:fs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/core/alerts/fingerprint.ts';
import { groupId } from '../../src/core/alerts/group.ts';
import { DEFAULT_GROUP_INTERVAL_MS } from '../../src/core/constants.ts';
import {
  invokeExplained,
  monitorEnv,
  passGroupInterval,
  readGroup,
  type StatusPages,
  startStatusPages,
  synthFunction,
} from '../support/bundle.ts';
import {
  type LocalDynamo,
  type LocalSns,
  type ReceivedMessage,
  startDynalite,
  startSns,
} from '../support/emulators.ts';
import {
  type FakeSsm,
  findRuntimeClient,
  type LambdaProcess,
  startFakeSsm,
  startLambda,
} from '../support/fakeLambda.ts';

const BUSY = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-busy/report.html', import.meta.url), 'latin1');
const IDLE = readFileSync(new URL('../fixtures/apache-2.4.71/prefork-idle/report.html', import.meta.url), 'latin1');
const TABLE = 'grouping';
const TARGETS = ['web-1', 'web-2', 'web-3'] as const;
const RULE = 'closing-seen';
/** The default grouping, by rule: the group's key and what pages say of it. */
const GROUP_KEY = '{"rule":"closing-seen"}';
const GROUP = { id: groupId(GROUP_KEY), key: GROUP_KEY, labels: { rule: RULE } };
const FP = Object.fromEntries(TARGETS.map((t) => [t, fingerprint(t, RULE)])) as Record<
  (typeof TARGETS)[number],
  string
>;

/** A delivered message as the test reads it: subject, attributes, and the JSON payload's identity and alerts. */
function brief(m: ReceivedMessage) {
  const p = JSON.parse(m.body) as Record<string, unknown>;
  const alerts = p.alerts as Array<Record<string, unknown>> | undefined;
  return {
    subject: m.subject,
    attributes: m.attributes,
    kind: p.kind ?? null,
    reason: p.reason,
    fingerprint: p.fingerprint,
    group: p.group,
    counts: p.counts ?? null,
    alerts:
      alerts?.map((a) => ({ target: a.target, fingerprint: a.fingerprint, status: a.status, new: a.new })) ?? null,
  };
}

// The client is an opt-in install (it needs cmake and a C++ compiler); CI installs it and must run this.
const client = findRuntimeClient();
const skip = client.path === null && process.env.CI === undefined ? client.missing : null;

describe.skipIf(skip !== null)(`grouping through the synthesized bundle${skip ? ` (SKIPPED: ${skip})` : ''}`, () => {
  let dynamo: LocalDynamo;
  let sns: LocalSns;
  let ssm: FakeSsm;
  let pages: StatusPages;
  let lambda: LambdaProcess;

  beforeAll(async () => {
    const { assetDir } = synthFunction({});
    [dynamo, sns, ssm, pages] = await Promise.all([
      startDynalite(),
      startSns(),
      startFakeSsm(),
      startStatusPages(IDLE),
    ]);
    await dynamo.createTable(TABLE);
    for (const name of TARGETS)
      ssm.parameters.set(
        `/grp/targets/${name}`,
        JSON.stringify({ url: pages.urlOf(name), timeoutMs: 2000, allowLoopback: true }),
      );
    ssm.parameters.set(
      '/grp/rules/closing',
      JSON.stringify({
        rules: [{ name: RULE, metric: 'slots_closing', op: '>=', threshold: 3, severity: 'critical' }],
      }),
    );
    lambda = await startLambda(assetDir, monitorEnv({ ssm, sns, dynamoEndpoint: dynamo.endpoint }, '/grp', TABLE));
  }, 120_000);

  afterAll(async () => {
    await lambda?.stop();
    await Promise.all([dynamo?.stop(), sns?.stop(), ssm?.stop(), pages?.stop()]);
  });

  const run = async () => (await invokeExplained(lambda)) as Record<string, unknown>;
  const busy = (...names: string[]) => {
    for (const name of names) pages.bodies.set(name, BUSY);
  };
  const idle = (...names: string[]) => {
    for (const name of names) pages.bodies.set(name, IDLE);
  };

  it('pages the first alert alone, the joiners once the group interval passed, the resolve as one grouped page; leaves nothing owed', async () => {
    // T0, web-1 busy: the first alert of the group pages at once, as its own page.
    busy('web-1');
    expect(await run()).toMatchObject({ targets: 3, sent: 1, down: 0, failed: 0 });
    expect((await sns.drain()).map(brief)).toEqual([
      {
        subject: '[FIRING critical] web-1: closing-seen (3 >= 3)',
        attributes: { status: 'firing', severity: 'critical', rule: RULE, target: 'web-1' },
        kind: null,
        reason: 'first',
        fingerprint: FP['web-1'],
        group: GROUP,
        counts: null,
        alerts: null,
      },
    ]);
    expect((await readGroup(dynamo, TABLE, GROUP_KEY)).group).toMatchObject({
      intervalMs: DEFAULT_GROUP_INTERVAL_MS,
      key: GROUP_KEY,
    });

    // T0+1m, web-2 and web-3 busy: they join the group and wait for its interval.
    busy('web-2', 'web-3');
    expect(await run()).toMatchObject({ targets: 3, sent: 0 });
    expect(await sns.drain()).toEqual([]);

    // T0+5m: one grouped page names all three, the joiners new.
    await passGroupInterval(dynamo, TABLE, GROUP_KEY);
    expect(await run()).toMatchObject({ targets: 3, sent: 1 });
    expect((await sns.drain()).map(brief)).toEqual([
      {
        subject: '[FIRING critical] closing-seen on 3 targets: web-1, web-2, web-3',
        attributes: { status: 'firing', severity: 'critical', rule: RULE, target: '3 targets' },
        kind: 'group',
        reason: 'update',
        fingerprint: `group-${GROUP.id}`,
        group: GROUP,
        counts: { firing: 3, resolved: 0, new: 2 },
        alerts: [
          { target: 'web-1', fingerprint: FP['web-1'], status: 'firing', new: false },
          { target: 'web-2', fingerprint: FP['web-2'], status: 'firing', new: true },
          { target: 'web-3', fingerprint: FP['web-3'], status: 'firing', new: true },
        ],
      },
    ]);

    // T0+6m, all idle: the resolves wait for the interval since that page.
    idle(...TARGETS);
    expect(await run()).toMatchObject({ targets: 3, sent: 0 });
    expect(await sns.drain()).toEqual([]);

    // T0+10m: one grouped resolve names all three.
    await passGroupInterval(dynamo, TABLE, GROUP_KEY);
    expect(await run()).toMatchObject({ targets: 3, sent: 1 });
    expect((await sns.drain()).map(brief)).toEqual([
      {
        subject: '[RESOLVED critical] closing-seen on 3 targets: web-1, web-2, web-3',
        attributes: { status: 'resolved', severity: 'critical', rule: RULE, target: '3 targets' },
        kind: 'group',
        reason: 'resolved',
        fingerprint: `group-${GROUP.id}`,
        group: GROUP,
        counts: { firing: 0, resolved: 3, new: 0 },
        // `new`: the last page said otherwise (firing).
        alerts: [
          { target: 'web-1', fingerprint: FP['web-1'], status: 'resolved', new: true },
          { target: 'web-2', fingerprint: FP['web-2'], status: 'resolved', new: true },
          { target: 'web-3', fingerprint: FP['web-3'], status: 'resolved', new: true },
        ],
      },
    ]);

    // The group is closed: every alert said resolved, kept 15 minutes as a tombstone (a replayed
    // hand-over finds it and changes nothing), nothing owed.
    const items = (await dynamo.doc.send(new ScanCommand({ TableName: TABLE }))).Items ?? [];
    const groups = items.filter((i) => String(i.pk).startsWith('meta#group#'));
    expect(groups).toHaveLength(1);
    const members = Object.values(
      groups[0]?.value.group.members as Record<string, { status: string; sentStatus: string }>,
    );
    expect(members.map((m) => [m.status, m.sentStatus])).toEqual(Array(3).fill(['resolved', 'resolved']));
    expect(groups[0]?.value.claim).toBeNull();
  }, 60_000);
});
