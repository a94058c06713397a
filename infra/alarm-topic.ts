import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

/**
 * Where the alarms of one stack notify: an SNS topic that mails `email`, encrypted with a key of its own whose policy
 * lets CloudWatch alarms of this account and region publish. SNS's AWS managed key (alias/aws/sns) would not do: its
 * policy cannot admit cloudwatch.amazonaws.com, so an alarm would change state and send nothing.
 */
export class AlarmTopic extends Construct {
  readonly topic: Topic;
  readonly key: Key;

  constructor(scope: Construct, id: string, props: { readonly email: string }) {
    super(scope, id);
    const stack = Stack.of(this);
    this.key = new Key(this, 'Key', {
      description:
        'Encrypts the alarm topic of the MFA authorization service; its CloudWatch alarms publish with it',
      enableKeyRotation: true,
      // Nothing outlives a notification: the key goes with the stack, after KMS's waiting period.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    // `Default` keeps the topic's logical id what it was before the key, when the topic was this construct's place.
    this.topic = new Topic(this, 'Default', { enforceSSL: true, masterKey: this.key });
    this.topic.addSubscription(new EmailSubscription(props.email));
  }

  notify(...alarms: Alarm[]): void {
    for (const alarm of alarms) alarm.addAlarmAction(new SnsAction(this.topic));
  }
}
