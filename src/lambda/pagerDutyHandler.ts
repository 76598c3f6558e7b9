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
import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { Context, SNSEvent } from 'aws-lambda';
import { createPagerDutySender } from '../adapters/pagerDutyEventsClient.ts';
import { createDynamoPagerDutyLedger } from '../adapters/pagerDutyLedger.ts';
import { SERVICE_NAME } from '../core/constants.ts';
import { type ForwardResult, forwardToPagerDuty } from '../forwarder/forward.ts';
import { readPagerDutyConfig } from './forwarderEnvironment.ts';

const env = readPagerDutyConfig(process.env);
const logger = new Logger({ serviceName: `${SERVICE_NAME}-pagerduty` });
const ssm = new SSMProvider({ awsSdkV3Client: new SSMClient({}) });
const sender = createPagerDutySender({ url: env.eventsUrl });
const ledger = createDynamoPagerDutyLedger(DynamoDBDocumentClient.from(new DynamoDBClient({})), env.stateTable);

// Why: the key is decrypted by SSM and cached for the warm function; never logged.
async function routingKey(): Promise<string> {
  const key = await ssm.get(env.routingKeyParameter, { decrypt: true, maxAge: env.routingKeyMaxAgeSeconds });
  if (typeof key !== 'string' || key.trim() === '')
    throw new Error(`expected a routing key in SSM parameter ${env.routingKeyParameter}, found none`);
  return key.trim();
}

async function forward(event: SNSEvent, context: Context): Promise<ForwardResult> {
  const result = await forwardToPagerDuty(event, {
    routingKey,
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
