import { Duration } from 'aws-cdk-lib';
import type { HttpApi, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Alias } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type IFilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** When the alarms on refused requests go off, over five minutes. */
export interface AlarmThresholds {
  /** Percent of requests answered 4xx (429 included), three periods in a row. */
  readonly clientErrorRatePercent: number;
  /** Requests answered 429 by the stage's throttle or a rate limit of the service. */
  readonly tooManyRequests: number;
}

/**
 * A client that lost its key or clock, a broken release of an application or a scan of the API shows as a quarter of
 * the answers 4xx, far above the odd expired link code or denied request; ten 429s in five minutes is more than a user
 * who taps twice.
 */
export const defaultAlarmThresholds: AlarmThresholds = { clientErrorRatePercent: 25, tooManyRequests: 10 };

export interface MonitoringProps {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** The stage's access logs, and the pattern that picks their 429 lines. */
  readonly accessLogs: ILogGroup;
  readonly tooManyRequests: IFilterPattern;
  readonly workers: readonly IFunction[];
  readonly deadLetterQueue: IQueue;
  readonly pushWorkers: readonly IFunction[];
  readonly pushDeadLetterQueue: IQueue;
  readonly metricsNamespace: string;
  readonly alarmEmail?: string;
  readonly thresholds?: Partial<AlarmThresholds>;
}

const fiveMinutes = Duration.minutes(5);

/**
 * The alarms an operator needs: the API failing (5xx rate), clients refused (4xx rate, 429s), Lambda throttling, webhook events or pushes piling up in
 * their DLQs, and the webhook or push worker failing outright. With an e-mail address they also notify.
 */
export class Monitoring extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const requests = props.stage.metricCount({ period: fiveMinutes, statistic: 'Sum' });
    const serverErrors = props.stage.metricServerError({ period: fiveMinutes, statistic: 'Sum' });
    this.alarm('Api5xxRate', {
      // Percent of requests answered 5xx, once there are enough requests for a rate to mean something.
      metric: new MathExpression({
        expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
        usingMetrics: { requests, errors: serverErrors },
        period: fiveMinutes,
        label: '5xx %',
      }),
      threshold: 1,
      evaluationPeriods: 3,
      description: '1 % or more of API requests answered 5xx for 15 minutes',
    });
    const thresholds = { ...defaultAlarmThresholds, ...props.thresholds };
    const clientErrors = props.stage.metricClientError({ period: fiveMinutes, statistic: 'Sum' });
    this.alarm('Api4xxRate', {
      metric: new MathExpression({
        expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
        usingMetrics: { requests, errors: clientErrors },
        period: fiveMinutes,
        label: '4xx %',
      }),
      threshold: thresholds.clientErrorRatePercent,
      evaluationPeriods: 3,
      description: `${thresholds.clientErrorRatePercent} % or more of API requests answered 4xx for 15 minutes`,
    });
    // HTTP APIs publish no 429 metric of their own: the access log has every answer's status, the throttle's included.
    const throttled = new MetricFilter(this, 'Throttled429Filter', {
      logGroup: props.accessLogs,
      filterPattern: props.tooManyRequests,
      metricNamespace: props.metricsNamespace,
      metricName: 'Throttled429',
      metricValue: '1',
    });
    this.alarm('Api429', {
      metric: throttled.metric({ period: fiveMinutes, statistic: 'Sum' }),
      threshold: thresholds.tooManyRequests,
      evaluationPeriods: 1,
      description: `${thresholds.tooManyRequests} or more API requests answered 429 in 5 minutes`,
    });
    this.alarm('LambdaThrottles', {
      // Lambda reports throttles per function and for the account; a stack of 60 functions alarms on the account's.
      metric: new Metric({
        namespace: 'AWS/Lambda',
        metricName: 'Throttles',
        statistic: 'Sum',
        period: fiveMinutes,
      }),
      threshold: 1,
      evaluationPeriods: 1,
      description: 'Lambda throttled invocations in this account and region',
    });
    this.alarm('WebhookDeadLetters', {
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: fiveMinutes,
        statistic: 'Maximum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      description: 'Webhook events in the dead-letter queue: `admin webhooks dead-letters` says why',
    });
    for (const [index, worker] of props.workers.entries()) {
      this.alarm(`WebhookWorkerErrors${index === 0 ? '' : index}`, {
        metric: worker.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
        threshold: 1,
        evaluationPeriods: 1,
        description: 'The webhook worker failed outright (its messages come back, then go to the DLQ)',
      });
    }

    this.alarm('PushDeadLetters', {
      metric: props.pushDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: fiveMinutes,
        statistic: 'Maximum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      description: 'Pushes in the dead-letter queue: `admin push dead-letters` says why',
    });
    for (const [index, worker] of props.pushWorkers.entries()) {
      this.alarm(`PushWorkerErrors${index === 0 ? '' : index}`, {
        metric: worker.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
        threshold: 1,
        evaluationPeriods: 1,
        description: 'The push worker failed outright (its messages come back, then go to the DLQ)',
      });
    }

    if (props.alarmEmail) {
      const topic = new Topic(this, 'AlarmTopic', {
        enforceSSL: true,
        masterKey: Alias.fromAliasName(this, 'SnsKey', 'alias/aws/sns'),
      });
      topic.addSubscription(new EmailSubscription(props.alarmEmail));
      for (const alarm of this.alarms) alarm.addAlarmAction(new SnsAction(topic));
    }
  }

  private alarm(
    id: string,
    options: {
      metric: Metric | MathExpression;
      threshold: number;
      evaluationPeriods: number;
      description: string;
    },
  ): void {
    this.alarms.push(
      new Alarm(this, id, {
        metric: options.metric,
        threshold: options.threshold,
        evaluationPeriods: options.evaluationPeriods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: options.description,
      }),
    );
  }
}
