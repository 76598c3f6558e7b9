/**
 * Where pages go. Two topics under one KMS key:
 * - the alert topic, published by the Lambda with a `severity` message attribute;
 * - the ops topic, published by CloudWatch alarms about the monitor itself. Alarm messages carry
 *   no message attributes, so a `severity=critical` filter would drop them: they need a topic
 *   whose subscriptions have no filter.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subs from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

interface NotificationsProps {
  /** Every alert, and every ops alarm. */
  emails: string[];
  /** Critical alerts only (the example filter policy), and every ops alarm. */
  httpsEndpoints: string[];
}

/** The example routing: only messages whose `severity` attribute is `critical`. */
const CRITICAL_ONLY = { severity: sns.SubscriptionFilter.stringFilter({ allowlist: ['critical'] }) };

class Notifications extends Construct {
  readonly key: kms.Key;
  readonly alertTopic: sns.Topic;
  readonly opsTopic: sns.Topic;

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

    for (const email of props.emails) {
      this.alertTopic.addSubscription(new subs.EmailSubscription(email));
      this.opsTopic.addSubscription(new subs.EmailSubscription(email));
    }
    for (const url of props.httpsEndpoints) {
      this.alertTopic.addSubscription(new subs.UrlSubscription(url, { filterPolicy: CRITICAL_ONLY }));
      this.opsTopic.addSubscription(new subs.UrlSubscription(url));
    }
  }
}

export { Notifications, type NotificationsProps };
