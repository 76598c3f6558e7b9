/**
 * The PagerDuty forwarder's entry, a composition root: subscribed to the alert topic, it turns
 * each alert of each message into an Events API v2 event. Deployed only with
 * `-c pagerDutyRoutingKeyParameter=<name>` (infra/constructs/pagerDuty.ts). A failed invocation
 * is retried by Lambda, then kept in the dead-letter queue, which is alarmed.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { SSMClient } from '@aws-sdk/client-ssm';
import middy from '@middy/core';
import type { SNSEvent } from 'aws-lambda';
import { createPagerDutySender } from '../adapters/pagerDutyEventsClient.ts';
import { SERVICE_NAME } from '../core/constants.ts';
import { forwardToPagerDuty, readPagerDutyConfig } from './pagerDutyForwarder.ts';

const env = readPagerDutyConfig(process.env);
const logger = new Logger({ serviceName: `${SERVICE_NAME}-pagerduty` });
const ssm = new SSMProvider({ awsSdkV3Client: new SSMClient({}) });
const sender = createPagerDutySender({ url: env.eventsUrl });

// Why: the key is decrypted by SSM and cached for the warm function; never logged.
async function routingKey(): Promise<string> {
  const key = await ssm.get(env.routingKeyParameter, { decrypt: true, maxAge: env.routingKeyMaxAgeSeconds });
  if (typeof key !== 'string' || key.trim() === '')
    throw new Error(`expected a routing key in SSM parameter ${env.routingKeyParameter}, found none`);
  return key.trim();
}

async function forward(event: SNSEvent): Promise<{ sent: number }> {
  const result = await forwardToPagerDuty(event, { routingKey, sender });
  logger.info('forwarded to PagerDuty', { records: event.Records?.length ?? 0, events: result.sent });
  return result;
}

const handler = middy(forward).use(injectLambdaContext(logger));

export { handler };
