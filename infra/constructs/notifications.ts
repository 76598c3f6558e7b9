/**
 * Where pages go. Two topics under one KMS key:
 * - the alert topic, published by the Lambda with a `severity` message attribute;
 * - the ops topic, published by CloudWatch alarms about the monitor itself. Alarm messages carry
 *   no message attributes, so a `severity=critical` filter would drop them: they need a topic
 *   whose subscriptions have no filter;
 * - with `-c chatbotTopic=true`, a chat topic that gets a copy of every page in AWS Chatbot's
 *   format, so Chatbot subscribes there while webhooks keep the JSON of the alert topic.
 * Only the monitor's role may publish to the alert and chat topics, only CloudWatch alarms of this
 * account to the ops topic: a forged page needs more than `sns:Publish` somewhere in the account.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subs from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { MONITOR_ENVIRONMENT } from '../../src/lambda/environmentContract.ts';
import { ConfigError } from '../config.ts';

interface NotificationsProps {
  /** Every alert, and every ops alarm. */
  emails: string[];
  /** Critical alerts only (the example filter policy), and every ops alarm. */
  httpsEndpoints: string[];
  /** Add the chat topic for AWS Chatbot (`-c chatbotTopic=true`). */
  chatTopic?: boolean;
}

/** The monitor, as far as the topics need it: its role publishes, its function is told where. */
interface Publisher {
  fn: lambda.Function;
  role: iam.IRole;
}

/**
 * Reads `chatbotTopic` (true|false) from context.
 * @example readChatTopicFlag((key) => app.node.tryGetContext(key)) // false
 */
function readChatTopicFlag(get: (key: string) => unknown): boolean {
  const raw = get('chatbotTopic');
  if (raw === undefined || raw === false || raw === 'false') return false;
  if (raw === true || raw === 'true') return true;
  throw new ConfigError([`chatbotTopic: expected true or false, found ${JSON.stringify(raw)}`]);
}

/** The example routing: only messages whose `severity` attribute is `critical`. */
const CRITICAL_ONLY = { severity: sns.SubscriptionFilter.stringFilter({ allowlist: ['critical'] }) };

class Notifications extends Construct {
  readonly key: kms.Key;
  readonly alertTopic: sns.Topic;
  readonly opsTopic: sns.Topic;
  /** Chatbot's copy of every page; undefined unless `chatTopic`. */
  readonly chatTopic: sns.Topic | undefined;

  constructor(scope: Construct, id: string, props: NotificationsProps) {
    super(scope, id);
    const { account, partition, region } = Stack.of(this);

    // Why: SNS encryption at rest with a key we control; rotated, gone a week after `cdk destroy`.
    this.key = new kms.Key(this, 'Key', {
      description: 'httpd-status-alerts SNS topics',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    // Why: CloudWatch alarms must encrypt what they publish to the ops topic with this key.
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToUseTheKey',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': account } },
      }),
    );

    // Why: the pages about Apache, published by the Lambda; TLS-only publishing.
    this.alertTopic = new sns.Topic(this, 'AlertTopic', {
      displayName: 'httpd-status-alerts',
      masterKey: this.key,
      enforceSSL: true,
    });
    // Why: the pages about the monitor itself (errors, throttles, missing heartbeat).
    this.opsTopic = new sns.Topic(this, 'OpsTopic', {
      displayName: 'httpd-status-alerts ops',
      masterKey: this.key,
      enforceSSL: true,
    });
    // Why: the enforceSSL topic policy replaces the default one, so allow alarms of this account.
    this.opsTopic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowCloudWatchAlarmsToPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.opsTopic.topicArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
          StringEquals: { 'aws:SourceAccount': account },
        },
      }),
    );

    // Why: anything else publishing here is not CloudWatch (aws:PrincipalServiceName is absent for
    // IAM principals, so the negated condition holds and the deny applies to them).
    this.opsTopic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'DenyPublishExceptCloudWatchAlarms',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['sns:Publish'],
        resources: [this.opsTopic.topicArn],
        conditions: { StringNotEquals: { 'aws:PrincipalServiceName': 'cloudwatch.amazonaws.com' } },
      }),
    );
    if (props.chatTopic === true) {
      this.chatTopic = new sns.Topic(this, 'ChatTopic', {
        displayName: 'httpd-status-alerts chat',
        masterKey: this.key,
        enforceSSL: true,
      });
    }

    for (const email of props.emails) {
      this.alertTopic.addSubscription(new subs.EmailSubscription(email));
      this.opsTopic.addSubscription(new subs.EmailSubscription(email));
    }
    for (const url of props.httpsEndpoints) {
      this.alertTopic.addSubscription(new subs.UrlSubscription(url, { filterPolicy: CRITICAL_ONLY }));
      this.opsTopic.addSubscription(new subs.UrlSubscription(url));
    }
  }

  /**
   * Makes `publisher` the only principal that may publish pages: an explicit allow for its role
   * and a deny for every other principal (even one whose own policy allows `sns:Publish`), on the
   * alert topic and the chat topic. Tells the function where the chat topic is.
   */
  restrictPublishingTo(publisher: Publisher): void {
    const topics = [this.alertTopic, ...(this.chatTopic === undefined ? [] : [this.chatTopic])];
    for (const topic of topics) {
      topic.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'AllowTheMonitorToPublish',
          principals: [new iam.ArnPrincipal(publisher.role.roleArn)],
          actions: ['sns:Publish'],
          resources: [topic.topicArn],
        }),
      );
      topic.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'DenyPublishExceptTheMonitor',
          effect: iam.Effect.DENY,
          principals: [new iam.AnyPrincipal()],
          actions: ['sns:Publish'],
          resources: [topic.topicArn],
          conditions: { ArnNotEquals: { 'aws:PrincipalArn': publisher.role.roleArn } },
        }),
      );
    }
    if (this.chatTopic !== undefined) {
      publisher.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'PublishChatCopies',
          actions: ['sns:Publish'],
          resources: [this.chatTopic.topicArn],
        }),
      );
      publisher.fn.addEnvironment(MONITOR_ENVIRONMENT.chatbotTopicArn.name, this.chatTopic.topicArn);
    }
  }
}

export { Notifications, type NotificationsProps, type Publisher, readChatTopicFlag };
