/**
 * What both Lambda entries share: the environment read once, clients made at module scope
 * (reused while warm), the cycle's dependencies and the middy wrapper. `src/lambda/handler.ts` is the
 * default entry; `src/lambda/shardedHandler.ts` adds the SQS side, so only sharded bundles carry it.
 * SDK clients honour `AWS_ENDPOINT_URL_*`.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { SSMClient } from '@aws-sdk/client-ssm';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { withChatCopy } from '../adapters/chatCopyNotifier.ts';
import { createDynamoStateTable } from '../adapters/dynamoStateStore.ts';
import { fetchStatusPage } from '../adapters/httpStatusSource.ts';
import { createSnsNotifier } from '../adapters/snsNotifier.ts';
import { createSsmConfigSource } from '../adapters/ssmConfigSource.ts';
import { createLatencyMemory } from '../app/concurrency.ts';
import type { CycleDeps } from '../app/ports.ts';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../core/constants.ts';
import { redactCredentials } from '../core/text/sanitize.ts';
import { readRuntimeConfig, wantsTargetMetrics } from './environment.ts';
import { createMetricsSink } from './metricsSink.ts';

const env = readRuntimeConfig(process.env);
// Every string of every log line (messages, attributes, errors and their causes) loses URL credentials.
const logger = new Logger({
  serviceName: SERVICE_NAME,
  jsonReplacerFn: (_key, value) => (typeof value === 'string' ? redactCredentials(value) : value),
});
// Why: the run metrics carry the monitor's prefix (RUN_DIMENSIONS), so each monitor of an account has its own heartbeat.
const metrics = new Metrics({
  namespace: METRICS_NAMESPACE,
  serviceName: SERVICE_NAME,
  defaultDimensions: { monitor: env.ssmPrefix },
});
const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});
const table = createDynamoStateTable(documentClient, env.stateTable);
// The notifier retries throttling and 5xx itself; SDK retries on top would multiply the attempts.
const snsClient = new SNSClient({ maxAttempts: 1 });
const pageNotifier = createSnsNotifier(snsClient, env.topicArn, { chatbotFormat: env.chatbotFormat });
// Why: Chatbot gets its format on a topic of its own, so webhooks keep the JSON (docs/routing.md).
const notifier =
  env.chatbotTopicArn === null
    ? pageNotifier
    : withChatCopy(
        pageNotifier,
        createSnsNotifier(snsClient, env.chatbotTopicArn, { chatbotFormat: true }),
        (error, n) => logger.error('chat copy not published', { fingerprint: n.fingerprint, status: n.status, error }),
      );
// One attempt a call: the configuration read retries each page itself, with full-jitter backoff
// within its budget (SDK retries on top would multiply the calls against SSM's 40 a second).
const config = createSsmConfigSource(new SSMProvider(), env.ssmPrefix, env.configMaxAgeSeconds, {
  client: new SSMClient({ maxAttempts: 1 }),
});

// Why: the warm container remembers each target's latency, so the next run starts the slow ones first.
const latencies = createLatencyMemory();
const metricsSink = createMetricsSink({
  namespace: METRICS_NAMESPACE,
  service: SERVICE_NAME,
  wantsTargetMetrics: (target) => wantsTargetMetrics(env.targetMetrics, target),
  runMetrics: metrics,
  write: (line) => process.stdout.write(`${line}\n`),
  clock: Date.now,
  requestId: () => invocation?.awsRequestId ?? null,
});

/**
 * The invocation being handled (one at a time per container): its id goes in every target line,
 * its remaining time bounds a listing.
 */
let invocation: Pick<Context, 'awsRequestId' | 'getRemainingTimeInMillis'> | null = null;

/**
 * A listing may take a third of the invocation's remaining time: the targets' fetches, the
 * commits and the metrics need the rest. Outside an invocation (a manual call), ten seconds.
 */
const LISTING_SHARE = 1 / 3;
const LISTING_BUDGET_WITHOUT_CONTEXT_MS = 10_000;

const deps: CycleDeps = {
  config,
  secretScope: { prefix: env.ssmPrefix, sharedSecretParameters: env.sharedSecretParameters },
  table,
  notifier,
  fetch: async (target) => {
    const result = await fetchStatusPage(target, { runtimeApi: env.runtimeApi });
    latencies.record(target.name, result.latencyMs);
    return result;
  },
  fetchPriority: (target) => latencies.priority(target),
  metrics: metricsSink,
  logger,
  concurrency: env.fetchConcurrency,
  evaluate: { repeatIntervalMs: env.repeatIntervalMs, downAfterFailures: env.downAfterFailures },
  // Set by the stack from the function's timeout (CLAIM_LEASE_SECONDS): a claim outlives its run.
  claimLeaseMs: env.claimLeaseMs,
  // Counters and the last evaluation of each target, kept while the container is warm.
  warm: new Map(),
  // The configuration last applied, kept while the container is warm (SSM is not asked again for it).
  warmConfig: { applied: null },
  discovery: {
    // Filled by the discovery entries (discoveryHandler.ts), so that bundles without discovery
    // carry no EC2, Auto Scaling or ELBv2 client: none here, a document fails "source not enabled".
    sources: {},
    warm: new Map(),
    listingBudgetMs: () =>
      invocation === null
        ? LISTING_BUDGET_WITHOUT_CONTEXT_MS
        : Math.floor(invocation.getRemainingTimeInMillis() * LISTING_SHARE),
  },
};

interface SqsEvent {
  Records: Array<{
    eventSource: string;
    messageId: string;
    body: string;
    attributes?: { ApproximateReceiveCount?: string };
  }>;
}

function isSqsEvent(event: unknown): event is SqsEvent {
  const records = (event as Partial<SqsEvent> | null)?.Records;
  return Array.isArray(records) && records.length > 0 && records.every((r) => r?.eventSource === 'aws:sqs');
}

/** The Lambda handler around `check`: logger context and one metrics flush per invocation. */
function asLambdaHandler(check: (event: unknown) => Promise<unknown>) {
  return middy(check)
    .before((request) => {
      invocation = request.context;
    })
    .use(injectLambdaContext(logger))
    .use(logMetrics(metrics));
}

export { asLambdaHandler, deps, env, isSqsEvent };
