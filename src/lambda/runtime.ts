/**
 * What both Lambda entries share: the environment read once, clients made at module scope
 * (reused while warm), the cycle's dependencies and the middy wrapper. `src/handler.ts` is the
 * default entry; `src/shardedHandler.ts` adds the SQS side, so only sharded bundles carry it.
 * SDK clients honour `AWS_ENDPOINT_URL_*`.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import { createDynamoStateTable } from '../adapters/dynamoStateStore.ts';
import { fetchStatusPage } from '../adapters/httpStatusSource.ts';
import { createSnsNotifier } from '../adapters/snsNotifier.ts';
import { createSsmConfigSource } from '../adapters/ssmConfigSource.ts';
import { readRuntimeConfig, wantsTargetMetrics } from '../config.ts';
import { DEFAULT_CLAIM_LEASE_MS, METRICS_NAMESPACE, SERVICE_NAME } from '../core/constants.ts';
import type { ModeChar } from '../core/report/types.ts';
import { BUSY_MODES } from '../core/rules/metrics.ts';
import type { CycleDeps, MetricsSink, TargetMetrics } from '../ports.ts';

const env = readRuntimeConfig(process.env);
const logger = new Logger({ serviceName: SERVICE_NAME });
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});
const table = createDynamoStateTable(documentClient, env.stateTable);
// The notifier retries throttling and 5xx itself; SDK retries on top would multiply the attempts.
const notifier = createSnsNotifier(new SNSClient({ maxAttempts: 1 }), env.topicArn, {
  chatbotFormat: env.chatbotFormat,
});
const config = createSsmConfigSource(new SSMProvider(), env.ssmPrefix, env.configMaxAgeSeconds);

/** Per-target metrics go out as one EMF document per target, with a `target` dimension. */
const metricsSink: MetricsSink = {
  target({ target, up, fetchLatencyMs, report }: TargetMetrics) {
    if (!wantsTargetMetrics(env.targetMetrics, target)) return;
    const perTarget = new Metrics({
      namespace: METRICS_NAMESPACE,
      serviceName: SERVICE_NAME,
      defaultDimensions: { target },
    });
    perTarget.addMetric('TargetUp', MetricUnit.Count, up ? 1 : 0);
    perTarget.addMetric('FetchLatency', MetricUnit.Milliseconds, fetchLatencyMs);
    if (report !== null) {
      const c = report.counts;
      const busy = [...BUSY_MODES].reduce((sum, m) => sum + c[m as ModeChar], 0);
      perTarget.addMetric('BusySlots', MetricUnit.Count, busy);
      perTarget.addMetric('IdleSlots', MetricUnit.Count, c._);
      perTarget.addMetric('ClosingSlots', MetricUnit.Count, c.C);
      const ssl = report.sslCache;
      const retrieves = ssl === null ? 0 : ssl.retrieveHits + ssl.retrieveMisses;
      if (ssl !== null && retrieves > 0)
        perTarget.addMetric('SslCacheMissRatio', MetricUnit.NoUnit, ssl.retrieveMisses / retrieves);
    }
    perTarget.publishStoredMetrics();
  },
  run({ alertsSent }) {
    metrics.addMetric('AlertsSent', MetricUnit.Count, alertsSent);
    // The stack alarms when this stops arriving: the monitor itself stopped.
    metrics.addMetric('Heartbeat', MetricUnit.Count, 1);
  },
};

const deps: CycleDeps = {
  config,
  table,
  notifier,
  fetch: (target) => fetchStatusPage(target),
  metrics: metricsSink,
  logger,
  concurrency: env.fetchConcurrency,
  evaluate: { repeatIntervalMs: env.repeatIntervalMs, downAfterFailures: env.downAfterFailures },
  claimLeaseMs: DEFAULT_CLAIM_LEASE_MS,
  // Counters and the last evaluation of each target, kept while the container is warm.
  warm: new Map(),
};

interface SqsEvent {
  Records: Array<{ eventSource: string; messageId: string; body: string }>;
}

function isSqsEvent(event: unknown): event is SqsEvent {
  const records = (event as Partial<SqsEvent> | null)?.Records;
  return Array.isArray(records) && records.length > 0 && records.every((r) => r?.eventSource === 'aws:sqs');
}

/** The Lambda handler around `check`: logger context and one metrics flush per invocation. */
function asLambdaHandler(check: (event: unknown) => Promise<unknown>) {
  return middy(check).use(injectLambdaContext(logger)).use(logMetrics(metrics));
}

export { asLambdaHandler, deps, env, isSqsEvent };
