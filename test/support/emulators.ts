/**
 * Local AWS for the tests, on loopback: DynamoDB through dynalite, SNS (-> SQS) through fauxqs.
 */

import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startFauxqs } from 'fauxqs';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const region = 'eu-west-1';

interface LocalDynamo {
  endpoint: string;
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  createTable(name: string): Promise<void>;
  stop(): Promise<void>;
}

/** dynalite in memory on a random loopback port. */
async function startDynalite(): Promise<LocalDynamo> {
  const dynalite = createRequire(import.meta.url)('dynalite') as (o: object) => import('node:http').Server;
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({ endpoint, region, credentials });
  return {
    endpoint,
    client,
    doc: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
    async createTable(name) {
      await client.send(
        new CreateTableCommand({
          TableName: name,
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      // dynalite makes a new table ACTIVE on a timer: a request that arrives first (a loopback
      // round trip can beat a 1 ms timer) finds no table. Wait for ACTIVE, as a real client would.
      for (;;) {
        const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
        if (Table?.TableStatus === 'ACTIVE') return;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    },
    async stop() {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface ReceivedMessage {
  subject: string | undefined;
  /** What the `sqs` protocol variant carried (the JSON payload). */
  body: string;
  attributes: Record<string, string>;
}

/**
 * fauxqs delivers a `MessageStructure: json` message whole, where SNS delivers the variant of the
 * subscriber's protocol: pick the `sqs` one (else `default`) as SNS would.
 */
function sqsVariant(message: string): string {
  try {
    const parsed = JSON.parse(message) as Record<string, unknown>;
    if (typeof parsed.default === 'string') return typeof parsed.sqs === 'string' ? parsed.sqs : parsed.default;
  } catch {
    // not a structured message
  }
  return message;
}

interface LocalSns {
  endpoint: string;
  topicArn: string;
  sns: SNSClient;
  /** Every message delivered to the subscribed queue since the last call (removed from the queue). */
  drain(): Promise<ReceivedMessage[]>;
  stop(): Promise<void>;
}

/** fauxqs with one topic subscribed by one SQS queue, to read back what was published. */
async function startSns(topicName = 'alerts'): Promise<LocalSns> {
  const server = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
  const endpoint = `http://127.0.0.1:${server.port}`;
  const sns = new SNSClient({ endpoint, region, credentials });
  const sqs = new SQSClient({ endpoint, region, credentials });
  const topic = await sns.send(new CreateTopicCommand({ Name: topicName }));
  const queue = await sqs.send(new CreateQueueCommand({ QueueName: `${topicName}-inbox` }));
  const queueUrl = queue.QueueUrl as string;
  const attrs = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
  await sns.send(
    new SubscribeCommand({ TopicArn: topic.TopicArn, Protocol: 'sqs', Endpoint: attrs.Attributes?.QueueArn as string }),
  );
  return {
    endpoint,
    topicArn: topic.TopicArn as string,
    sns,
    async drain() {
      const out: ReceivedMessage[] = [];
      for (;;) {
        const got = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
        );
        const messages = got.Messages ?? [];
        if (messages.length === 0) return out;
        for (const m of messages) {
          const envelope = JSON.parse(m.Body as string) as {
            Subject?: string;
            Message: string;
            MessageAttributes?: Record<string, { Value: string }>;
          };
          const attributes: Record<string, string> = {};
          for (const [k, v] of Object.entries(envelope.MessageAttributes ?? {})) attributes[k] = v.Value;
          out.push({ subject: envelope.Subject, body: sqsVariant(envelope.Message), attributes });
          await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle as string }));
        }
      }
    },
    async stop() {
      sns.destroy();
      sqs.destroy();
      await server.stop();
    },
  };
}

export type { LocalDynamo, LocalSns, ReceivedMessage };
export { credentials, region, startDynalite, startSns };
