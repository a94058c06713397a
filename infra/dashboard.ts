import { Aspects, Duration, Stack } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  Stats,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { type ITable, Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ServiceMetric } from '#shared/metrics';

export interface ServiceDashboardProps {
  readonly stage: HttpStage;
  /** Requests answered 429, counted from the access log. */
  readonly tooManyRequests: IMetric;
  readonly table: ITable;
  readonly queues: readonly { readonly name: string; readonly queue: IQueue; readonly deadLetters: IQueue }[];
  readonly workers: readonly { readonly name: string; readonly worker: IFunction }[];
  readonly metricsNamespace: string;
  /** The `service` dimension Powertools gives the business metrics. */
  readonly serviceName: string;
}

const period = Duration.minutes(5);

/** The business metrics on the dashboard, in the groups an operator reads them. */
const businessMetrics: readonly { readonly title: string; readonly names: readonly ServiceMetric[] }[] = [
  {
    title: 'Auth requests',
    names: ['AuthRequestsCreated', 'AuthRequestsAnswered', 'AuthRequestsExpired', 'EventsSwept'],
  },
  { title: 'Webhooks', names: ['WebhooksDelivered', 'WebhookAttemptsFailed', 'WebhooksDeadLettered'] },
  {
    title: 'Pushes',
    names: [
      'PushesDelivered',
      'PushAttemptsFailed',
      'PushChannelsGone',
      'PushesNotQueued',
      'PushesDeadLettered',
    ],
  },
];

/**
 * One CloudWatch dashboard for the whole service: the state of every alarm of the stack, the API (requests, 4xx,
 * 5xx, 429s, latency), the table, the queues, the workers and the business metrics, five-minute points.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { stage, table } = props;
    const sum = { period, statistic: Stats.SUM };
    const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width: 8, height: 6 });
    const business = (name: ServiceMetric) =>
      new Metric({
        namespace: props.metricsNamespace,
        metricName: name,
        dimensionsMap: { service: props.serviceName },
        label: name,
        ...sum,
      });
    // Every alarm of the stack, wherever it was made: collected once the whole stack is built.
    const alarms: Alarm[] = [];
    Aspects.of(this).add({
      visit: (node) => {
        if (node !== this) return;
        alarms.push(
          ...Stack.of(this)
            .node.findAll()
            .filter((child): child is Alarm => child instanceof Alarm),
        );
      },
    });
    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown:
          '# MFA authorization service\nAPI, table, queues, workers and business metrics; alarms first.',
        width: 24,
        height: 2,
      }),
      new AlarmStatusWidget({ title: 'Alarms', alarms, width: 24, height: 4 }),
    );
    this.dashboard.addWidgets(
      graph('API requests', [stage.metricCount({ ...sum, label: 'Requests' })]),
      graph('API errors', [
        stage.metricClientError({ ...sum, label: '4xx' }),
        stage.metricServerError({ ...sum, label: '5xx' }),
        props.tooManyRequests,
      ]),
      graph('API latency (ms)', [
        stage.metricLatency({ period, statistic: Stats.p(50), label: 'p50' }),
        stage.metricLatency({ period, statistic: Stats.p(99), label: 'p99' }),
        stage.metricIntegrationLatency({ period, statistic: Stats.p(99), label: 'integration p99' }),
      ]),
    );
    this.dashboard.addWidgets(
      graph(
        'Table capacity',
        [
          table.metricConsumedReadCapacityUnits({ ...sum, label: 'Read units' }),
          table.metricConsumedWriteCapacityUnits({ ...sum, label: 'Write units' }),
        ],
        [
          table.metric('ReadThrottleEvents', { ...sum, label: 'Read throttles' }),
          table.metric('WriteThrottleEvents', { ...sum, label: 'Write throttles' }),
        ],
      ),
      graph('Table errors', [
        table.metricSystemErrorsForOperations({
          ...sum,
          label: 'System errors',
          // The operations the store uses (table-commands.ts), the create's and the answer's transactions among them.
          operations: [
            Operation.GET_ITEM,
            Operation.BATCH_GET_ITEM,
            Operation.QUERY,
            Operation.PUT_ITEM,
            Operation.UPDATE_ITEM,
            Operation.DELETE_ITEM,
            Operation.TRANSACT_WRITE_ITEMS,
          ],
        }),
        new Metric({
          namespace: 'AWS/DynamoDB',
          metricName: 'UserErrors',
          label: 'User errors (account)',
          ...sum,
        }),
      ]),
      graph(
        'Queues',
        props.queues.flatMap(({ name, queue, deadLetters }) => [
          queue.metricApproximateNumberOfMessagesVisible({
            period,
            statistic: Stats.MAXIMUM,
            label: `${name} waiting`,
          }),
          deadLetters.metricApproximateNumberOfMessagesVisible({
            period,
            statistic: Stats.MAXIMUM,
            label: `${name} dead letters`,
          }),
        ]),
        props.queues.map(({ name, queue }) =>
          queue.metricApproximateAgeOfOldestMessage({
            period,
            statistic: Stats.MAXIMUM,
            label: `${name} oldest (s)`,
          }),
        ),
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Workers',
        props.workers.flatMap(({ name, worker }) => [
          worker.metricInvocations({ ...sum, label: `${name} invocations` }),
          worker.metricErrors({ ...sum, label: `${name} errors` }),
        ]),
        props.workers.map(({ name, worker }) =>
          worker.metricDuration({ period, statistic: Stats.p(99), label: `${name} duration p99 (ms)` }),
        ),
      ),
      graph(
        'Lambda (account)',
        [
          new Metric({
            namespace: 'AWS/Lambda',
            metricName: 'ConcurrentExecutions',
            statistic: Stats.MAXIMUM,
            period,
            label: 'Concurrent executions',
          }),
        ],
        [new Metric({ namespace: 'AWS/Lambda', metricName: 'Throttles', label: 'Throttles', ...sum })],
      ),
      graph('Cold starts', [
        // Powertools counts them per function: the sum over all of them.
        new MathExpression({
          expression: `SUM(SEARCH('{${props.metricsNamespace},function_name,service} MetricName="ColdStart"', 'Sum', 300))`,
          label: 'Cold starts',
          period,
        }),
      ]),
    );
    this.dashboard.addWidgets(
      ...businessMetrics.map(({ title, names }) => graph(title, names.map(business))),
    );
  }
}
