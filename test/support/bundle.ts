/**
 * What the bundle tests share: the asset `cdk synth` bundles for a function, the environment the
 * monitor gets from the emulators, loopback status pages answering per path, and invocations whose
 * failure carries the function's last output.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type GroupState, groupId } from '../../src/core/alerts/group.ts';
import { synth } from '../infra/synth.ts';
import { credentials, type LocalDynamo, type LocalSns, region } from './emulators.ts';
import type { FakeSsm, LambdaProcess } from './fakeLambda.ts';

/** An EventBridge scheduled event; a run's tick is its `time` when it has one. */
const SCHEDULED_EVENT = { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} };
/** Characters of the function's output an invocation's failure quotes. */
const OUTPUT_TAIL_CHARS = 3000;

interface BundledFunction {
  /** The directory Lambda would unzip the code into (`index.mjs`). */
  assetDir: string;
  /** The environment the stack gives the function. */
  environment: Record<string, string>;
}

/** The bundled asset of the stack's first function whose logical id contains `idPart`. */
function synthFunction(context: Record<string, unknown>, idPart = ''): BundledFunction {
  const { template, outdir } = synth(context, { bundle: true });
  const found = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) => id.includes(idPart));
  if (found === undefined) throw new Error(`expected a function whose logical id contains "${idPart}", found none`);
  const { Code, Environment } = (
    found[1] as {
      Properties: { Code: { S3Key: string }; Environment?: { Variables?: Record<string, string> } };
    }
  ).Properties;
  return {
    assetDir: join(outdir, `asset.${Code.S3Key.replace(/\.zip$/, '')}`),
    environment: Environment?.Variables ?? {},
  };
}

/** The monitor's environment: every AWS service on its emulator, the parameters under `ssmPrefix`. */
function monitorEnv(
  aws: { ssm: FakeSsm; sns: LocalSns; dynamoEndpoint: string },
  ssmPrefix: string,
  stateTable: string,
): Record<string, string> {
  return {
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_ENDPOINT_URL_SSM: aws.ssm.endpoint,
    AWS_ENDPOINT_URL_SNS: aws.sns.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: aws.dynamoEndpoint,
    SSM_PREFIX: ssmPrefix,
    TOPIC_ARN: aws.sns.topicArn,
    STATE_TABLE: stateTable,
  };
}

/** Send `event` (a scheduled run unless said); a failure says what the function printed last. */
async function invokeExplained(lambda: LambdaProcess, event: unknown = SCHEDULED_EVENT): Promise<unknown> {
  try {
    return await lambda.invoke(event);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${lambda.output().slice(-OUTPUT_TAIL_CHARS)}`);
  }
}

/** The item of the group `key` (`meta#group#<id>`), and the group it holds; null when there is none. */
async function readGroup(
  dynamo: LocalDynamo,
  table: string,
  key: string,
): Promise<{ pk: string; group: GroupState | null }> {
  const pk = `meta#group#${groupId(key)}`;
  const item = (await dynamo.doc.send(new GetCommand({ TableName: table, Key: { pk } }))).Item;
  return { pk, group: (item?.value as { group: GroupState } | undefined)?.group ?? null };
}

/**
 * The group interval passes for the group `key`: the runs run at the wall clock, so the time it
 * counts from, the group's last page, is moved one interval into the past.
 */
async function passGroupInterval(dynamo: LocalDynamo, table: string, key: string): Promise<void> {
  const { pk, group } = await readGroup(dynamo, table, key);
  if (group?.lastSentAt == null) throw new Error(`expected ${pk} with a page sent, found ${JSON.stringify(group)}`);
  await dynamo.doc.send(
    new UpdateCommand({
      TableName: table,
      Key: { pk },
      UpdateExpression: 'SET #value.#group.lastSentAt = :past',
      ExpressionAttributeNames: { '#value': 'value', '#group': 'group' },
      ExpressionAttributeValues: { ':past': new Date(Date.parse(group.lastSentAt) - group.intervalMs).toISOString() },
    }),
  );
}

/**
 * `ms` pass for the target `name`: the runs run at the wall clock, so the time its item counts
 * from (its last evaluation, `state.evaluatedAt` of `target#<name>`) is moved `ms` into the past.
 * A warm container's memory of the item still holds the time unmoved. Answers the item as it was
 * before the step.
 */
async function passTargetTime(
  dynamo: LocalDynamo,
  table: string,
  name: string,
  ms: number,
): Promise<Record<string, unknown>> {
  const Key = { pk: `target#${name}` };
  const item = (await dynamo.doc.send(new GetCommand({ TableName: table, Key, ConsistentRead: true }))).Item;
  const evaluatedAt = (item?.state as { evaluatedAt?: string | null } | undefined)?.evaluatedAt;
  if (item === undefined || evaluatedAt == null)
    throw new Error(`expected target#${name} evaluated, found ${JSON.stringify(item)}`);
  await dynamo.doc.send(
    new UpdateCommand({
      TableName: table,
      Key,
      UpdateExpression: 'SET #state.evaluatedAt = :past',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':past': new Date(Date.parse(evaluatedAt) - ms).toISOString() },
    }),
  );
  return item;
}

interface StatusPages {
  /** `http://127.0.0.1:<port>/<name>`: the page of target `name`. */
  urlOf(name: string): string;
  /** What `/<name>` answers; `fallback` for a name not set. HTML when it starts with `<`, else text. */
  bodies: Map<string, string>;
  /** Refuse connections from now on (idempotent). */
  stop(): Promise<void>;
}

/** One loopback server answering every target's status page by path. */
async function startStatusPages(fallback: string): Promise<StatusPages> {
  const bodies = new Map<string, string>();
  const server = createServer((req, res) => {
    const body = bodies.get((req.url ?? '').slice(1)) ?? fallback;
    res.writeHead(200, { 'content-type': body.startsWith('<') ? 'text/html' : 'text/plain' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    urlOf: (name) => `${base}/${name}`,
    bodies,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve()); // called with an error when already closed: stopped all the same
      }),
  };
}

export type { BundledFunction, StatusPages };
export {
  invokeExplained,
  monitorEnv,
  passGroupInterval,
  passTargetTime,
  readGroup,
  SCHEDULED_EVENT,
  startStatusPages,
  synthFunction,
};
