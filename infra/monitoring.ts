import { Duration } from 'aws-cdk-lib';
import type { HttpApi, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { type Alarm, MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type IFilterPattern, type ILogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { AlarmTopic } from '#infra/alarm-topic';
import { ServiceDashboard } from '#infra/dashboard';
import { thresholdAlarm, type ThresholdAlarmOptions } from '#infra/threshold-alarm';

/** When the alarms on refused requests, slow answers and saturation go off. */
export interface AlarmThresholds {
  /** Percent of requests answered 4xx (429 included), three periods in a row. */
  readonly clientErrorRatePercent: number;
  /** Requests answered 429 by the stage's throttle or a rate limit of the service. */
  readonly tooManyRequests: number;
  /** The stage's p99 latency in milliseconds, three five-minute periods in a row. */
  readonly p99LatencyMs: number;
  /** The age in seconds of the oldest message waiting on the webhook or push queue. */
  readonly queueAgeSeconds: number;
  /** Concurrent executions of the account's functions in this region (a share of its Lambda quota). */
  readonly concurrentExecutions: number;
}

/**
 * A client that lost its key or clock, a broken release of an application or a scan of the API shows as a quarter of
 * the answers 4xx, far above the odd expired link code or denied request; ten 429s in five minutes is more than a user
 * who taps twice. A warm request takes tens of milliseconds and a cold start well under a second, so a p99 of two
 * seconds for fifteen minutes means users wait on a slow store or a dependency running into its timeout (the store's
 * is three seconds). A healthy queue is drained within seconds and retries go back as new messages, so a message ten
 * minutes old means the worker is not keeping up or not running. 800 concurrent executions is 80 % of the default
 * account quota of 1 000, which every function of the account shares: past it, logins start being throttled.
 */
export const defaultAlarmThresholds: AlarmThresholds = {
  clientErrorRatePercent: 25,
  tooManyRequests: 10,
  p99LatencyMs: 2000,
  queueAgeSeconds: 600,
  concurrentExecutions: 800,
};

export interface MonitoringProps {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** The stage's access logs, and the pattern that picks their 429 lines. */
  readonly accessLogs: ILogGroup;
  readonly tooManyRequests: IFilterPattern;
  readonly table: ITable;
  readonly workers: readonly IFunction[];
  readonly queue: IQueue;
  readonly deadLetterQueue: IQueue;
  readonly pushWorkers: readonly IFunction[];
  readonly pushQueue: IQueue;
  readonly pushDeadLetterQueue: IQueue;
  /** The announcement sweep's function, which runs every minute. */
  readonly sweep: IFunction;
  readonly metricsNamespace: string;
  /** The `service` dimension of the business metrics (POWERTOOLS_SERVICE_NAME). */
  readonly serviceName: string;
  readonly alarmEmail?: string;
  readonly thresholds?: Partial<AlarmThresholds>;
  /** The key ring's schedule function, which publishes ApiKeyAgeDays, and the age past which the key-age alarm goes off. */
  readonly apiKeyAge?: { readonly scheduleFunction: IFunction; readonly maxAgeDays: number };
}

const fiveMinutes = Duration.minutes(5);

/**
 * The alarms an operator needs: the API failing (5xx rate), clients refused (4xx rate, 429s), answers slowing down
 * (p99 latency), the table throttling, the account's Lambda concurrency near its quota, Lambda throttling, webhook
 * events or pushes waiting too long on their queues or piling up in their DLQs, and the webhook or push worker failing
 * outright. With an e-mail address they also notify.
 */
export class Monitoring extends Construct {
  readonly alarms: Alarm[] = [];
  readonly alarmTopic?: AlarmTopic;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const thresholds = { ...defaultAlarmThresholds, ...props.thresholds };
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
    this.alarm('Api5xxQuiet', {
      // Below 20 requests the rate above reads 0, so a quiet hour's failures need a count of their own.
      metric: new MathExpression({
        expression: 'IF(requests < 20, errors, 0)',
        usingMetrics: { requests, errors: serverErrors },
        period: fiveMinutes,
        label: '5xx while quiet',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      description:
        'An API request answered 5xx in 5 minutes of fewer than 20 requests, which the 5xx rate does not see',
    });
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
    this.alarm('ApiLatencyP99', {
      // A few slow requests in a quiet period are cold starts, not users waiting.
      metric: new MathExpression({
        expression: 'IF(requests >= 20, latency, 0)',
        usingMetrics: {
          requests,
          latency: props.stage.metricLatency({ period: fiveMinutes, statistic: 'p99' }),
        },
        period: fiveMinutes,
        label: 'p99 latency (ms)',
      }),
      threshold: thresholds.p99LatencyMs,
      evaluationPeriods: 3,
      description: `API p99 latency at or above ${thresholds.p99LatencyMs} ms for 15 minutes`,
    });
    this.alarm('TableThrottles', {
      // On demand, a throttle is a hot item or a burst past twice the table's previous peak: the SDK retries, users wait.
      metric: new MathExpression({
        expression: 'reads + writes',
        usingMetrics: {
          reads: props.table.metric('ReadThrottleEvents', { period: fiveMinutes, statistic: 'Sum' }),
          writes: props.table.metric('WriteThrottleEvents', { period: fiveMinutes, statistic: 'Sum' }),
        },
        period: fiveMinutes,
        label: 'Throttle events',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      description: 'The table throttled reads or writes',
    });
    for (const [name, queue] of [
      ['Webhook', props.queue],
      ['Push', props.pushQueue],
    ] as const) {
      this.alarm(`${name}QueueAge`, {
        metric: queue.metricApproximateAgeOfOldestMessage({ period: fiveMinutes, statistic: 'Maximum' }),
        threshold: thresholds.queueAgeSeconds,
        evaluationPeriods: 1,
        description: `${name} queue: oldest message ${thresholds.queueAgeSeconds} s old or more`,
      });
    }
    this.alarm('AnswersSwept', {
      // Each is a webhook that would have been lost: a function died between an answer's write and its event's send.
      metric: new Metric({
        namespace: props.metricsNamespace,
        metricName: 'EventsSwept',
        dimensionsMap: { service: props.serviceName },
        statistic: 'Sum',
        period: fiveMinutes,
      }),
      threshold: 1,
      evaluationPeriods: 1,
      description:
        'Answers announced by the sweep: their handler died before sending the event (see its logs)',
    });
    this.alarm('SweepErrors', {
      // It runs every minute and the next run retries, so one failure is noise and most of five are not.
      metric: props.sweep.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
      threshold: 3,
      evaluationPeriods: 1,
      description:
        'The announcement sweep failed 3 or more of its runs in 5 minutes: answers whose event was lost are not sent again',
    });
    this.alarm('LambdaConcurrency', {
      metric: new Metric({
        namespace: 'AWS/Lambda',
        metricName: 'ConcurrentExecutions',
        statistic: 'Maximum',
        period: fiveMinutes,
      }),
      threshold: thresholds.concurrentExecutions,
      evaluationPeriods: 1,
      description: `${thresholds.concurrentExecutions} or more concurrent Lambda executions in this account and region`,
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

    const webhookWorkers = props.workers.map((worker) => ({ name: 'Webhook worker', worker }));
    const pushWorkers = props.pushWorkers.map((worker) => ({ name: 'Push worker', worker }));
    new ServiceDashboard(this, 'Dashboard', {
      stage: props.stage,
      tooManyRequests: throttled.metric({ period: fiveMinutes, statistic: 'Sum', label: '429' }),
      table: props.table,
      queues: [
        { name: 'Webhook', queue: props.queue, deadLetters: props.deadLetterQueue },
        { name: 'Push', queue: props.pushQueue, deadLetters: props.pushDeadLetterQueue },
      ],
      workers: [...webhookWorkers, ...pushWorkers],
      metricsNamespace: props.metricsNamespace,
      serviceName: props.serviceName,
    });

    if (props.apiKeyAge) {
      const { maxAgeDays, scheduleFunction } = props.apiKeyAge;
      const day = Duration.days(1);
      this.alarm('ApiKeyAge', {
        metric: new Metric({
          namespace: props.metricsNamespace,
          metricName: 'ApiKeyAgeDays',
          dimensionsMap: { service: props.serviceName },
          statistic: 'Maximum',
          period: day,
        }),
        threshold: maxAgeDays,
        evaluationPeriods: 1,
        description: `The current API key is ${maxAgeDays} days old or more: rotate it (docs/deploy.md, key rotation)`,
      });
      // A schedule that stops running would leave the age alarm without data, which it treats as fine.
      this.alarm('ApiKeyScheduleErrors', {
        metric: scheduleFunction.metricErrors({ period: day, statistic: 'Sum' }),
        threshold: 1,
        evaluationPeriods: 1,
        description: 'The API key schedule (key age, scheduled rotation) failed: its logs say why',
      });
    }

    if (props.alarmEmail) {
      this.alarmTopic = new AlarmTopic(this, 'AlarmTopic', { email: props.alarmEmail });
      this.alarmTopic.notify(...this.alarms);
    }
  }

  /** Sends another alarm of this stack where the monitoring's go: the alarm topic, when there is an alarm e-mail. */
  notifyOf(alarm: Alarm): void {
    this.alarmTopic?.notify(alarm);
  }

  private alarm(id: string, options: ThresholdAlarmOptions): void {
    this.alarms.push(thresholdAlarm(this, id, options));
  }
}
