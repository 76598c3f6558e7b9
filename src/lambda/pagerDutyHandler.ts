/**
 * The PagerDuty forwarder's entry, a composition root: subscribed to the alert topic, it turns
 * each alert message into Events API v2 events (one per group by default, one per alert with
 * `PAGERDUTY_EVENTS_PER=alert`), remembering in the state table the last order accepted per
 * `dedup_key` and the pace per routing key. Deployed only with
 * `-c pagerDutyRoutingKeyParameter=<name>` (infra/constructs/pagerDuty.ts). A failed invocation
 * is retried by Lambda, then kept in the dead-letter queue, which is alarmed.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { Context, SNSEvent } from 'aws-lambda';
import { createPagerDutySender } from '../adapters/pagerDutyEventsClient.ts';
import { createDynamoPagerDutyLedger } from '../adapters/pagerDutyLedger.ts';
import { SERVICE_NAME } from '../core/constants.ts';
import { type ForwardResult, forwardToPagerDuty } from '../forwarder/forward.ts';
import type { VersionedRoutingKey } from '../forwarder/ports.ts';
import { readPagerDutyConfig } from './forwarderEnvironment.ts';

const env = readPagerDutyConfig(process.env);
const logger = new Logger({ serviceName: `${SERVICE_NAME}-pagerduty` });
const ssm = new SSMClient({});
const sender = createPagerDutySender({ url: env.eventsUrl });
const ledger = createDynamoPagerDutyLedger(DynamoDBDocumentClient.from(new DynamoDBClient({})), env.stateTable);

/** One version of the routing key parameter, decrypted; `name:version` reads an earlier one. */
async function readKey(name: string): Promise<VersionedRoutingKey> {
  const { Parameter } = await ssm.send(new GetParameterCommand({ Name: name, WithDecryption: true }));
  const key = Parameter?.Value;
  if (typeof key !== 'string' || key.trim() === '')
    throw new Error(`expected a routing key in SSM parameter ${name}, found none`);
  return { key: key.trim(), version: typeof Parameter?.Version === 'number' ? Parameter.Version : null };
}

// Why: the key is decrypted by SSM and cached for the warm function (with the version it was read
// at, which the ledger remembers per open incident); never logged.
let current: { read: VersionedRoutingKey; atMs: number } | null = null;
async function routingKey(): Promise<VersionedRoutingKey> {
  if (current !== null && Date.now() - current.atMs < env.routingKeyMaxAgeSeconds * 1000) return current.read;
  current = { read: await readKey(env.routingKeyParameter), atMs: Date.now() };
  return current.read;
}

// A parameter version never changes: each one read is kept for the warm function.
const earlier = new Map<number, string>();
async function routingKeyAt(version: number): Promise<string> {
  const known = earlier.get(version);
  if (known !== undefined) return known;
  const { key } = await readKey(`${env.routingKeyParameter}:${version}`);
  earlier.set(version, key);
  return key;
}

async function forward(event: SNSEvent, context: Context): Promise<ForwardResult> {
  const result = await forwardToPagerDuty(event, {
    routingKey,
    routingKeyAt,
    sender,
    ledger,
    eventsPer: env.eventsPer,
    now: Date.now,
    sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    remainingMs: () => context.getRemainingTimeInMillis(),
    log: (level, message, fields) => logger[level](message, fields),
  });
  logger.info('forwarded to PagerDuty', { records: event.Records?.length ?? 0, ...result });
  return result;
}

const handler = middy(forward).use(injectLambdaContext(logger));

export { handler };
