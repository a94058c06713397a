import { mkdirSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { accessLogFields } from '#infra/access-log';
import { defaultAlarmThresholds } from '#infra/monitoring';
import { consumerId, pushConsumers, webhookConsumers } from '#infra/routes';
import { AuthorizationServiceStack, type AuthorizationServiceStackProps } from '#infra/stack';
import { allRoleStatements, statementsOfRole } from '#test/support/role-policies';

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
}

function synthesize(props: AuthorizationServiceStackProps = {}): Template {
  // Template.fromStack writes cdk.out folders under TMPDIR; keep them in the project's ignored scratch folder.
  mkdirSync('.tmp', { recursive: true });
  process.env.TMPDIR = '.tmp';
  // Skip bundling: the template is otherwise identical, and `cdk synth` in CI bundles for real.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  return Template.fromStack(new AuthorizationServiceStack(app, 'Test', props));
}

let template: Template;
let resources: Record<string, Resource>;

beforeAll(() => {
  template = synthesize();
  resources = template.toJSON().Resources as Record<string, Resource>;
});

const ofType = (type: string): [string, Resource][] =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** The service's own functions (not the CDK provider framework's), by logical id. */
const serviceFunctions = () =>
  ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Handler === 'index.handler');

function alarmNamed(description: RegExp): Record<string, unknown> {
  const found = ofType('AWS::CloudWatch::Alarm').filter(([, alarm]) =>
    description.test(alarm.Properties.AlarmDescription as string),
  );
  expect(found).toHaveLength(1);
  return found[0]?.[1].Properties ?? {};
}

/** An alarm on metric math over the stage's metrics: its expression, and the API Gateway metric it reads as `id`. */
function expectMathAlarm(
  alarm: Record<string, unknown>,
  expression: string,
  read: { readonly id: string; readonly metricName: string; readonly stat: string },
): void {
  expect(alarm.Metrics).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ Expression: expression }),
      expect.objectContaining({
        Id: read.id,
        MetricStat: expect.objectContaining({
          Metric: expect.objectContaining({ Namespace: 'AWS/ApiGateway', MetricName: read.metricName }),
          Stat: read.stat,
        }),
      }),
    ]),
  );
}

/** The `Ref` or `Fn::GetAtt` target of a CloudFormation value. */
const logicalIdOf = (value: unknown) =>
  JSON.stringify(value).match(/"(?:Ref|Fn::GetAtt)":\s*\[?"([A-Za-z0-9]+)"/)?.[1];

describe('tracing', () => {
  it('traces every function of the service with X-Ray, and lets each write its traces', () => {
    const functions = serviceFunctions();
    expect(functions.length).toBeGreaterThan(50);
    for (const [id, fn] of functions) {
      expect({ id, tracing: fn.Properties.TracingConfig }).toEqual({ id, tracing: { Mode: 'Active' } });
      const role = (fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
      const actions = statementsOfRole(resources, role).flatMap((statement) => [statement.Action].flat());
      expect({ id, actions }).toEqual({ id, actions: expect.arrayContaining(['xray:PutTraceSegments']) });
    }
  });
});

describe('the access log', () => {
  function format(): string {
    const [[, stage] = []] = ofType('AWS::ApiGatewayV2::Stage');
    return (stage?.Properties.AccessLogSettings as { Format: string }).Format;
  }

  it('writes one JSON object per request with the route, status, latencies, integration error, request id and address, and nothing a client writes freely', () => {
    // What API Gateway writes: every variable filled in, `-` where a request has no value (a throttled one).
    const line = format()
      .replace(/"\$context\.[A-Za-z.]+"/g, '"-"')
      .replace(/\$context\.status/g, '429');
    const entry = JSON.parse(line) as Record<string, unknown>;
    expect(entry.status).toBe(429);
    expect(Object.keys(entry)).toEqual(
      expect.arrayContaining([
        'requestId',
        'routeKey',
        'status',
        'responseLatency',
        'integrationLatency',
        'integrationError',
        'sourceIp',
      ]),
    );
    for (const variable of [
      '$context.requestId',
      '$context.routeKey',
      '$context.responseLatency',
      '$context.integrationLatency',
      '$context.integrationErrorMessage',
      '$context.identity.sourceIp',
    ]) {
      expect(format()).toContain(variable);
    }
    expect(format()).not.toContain('userAgent');
    expect(Object.keys(accessLogFields)).toEqual(Object.keys(entry));
  });

  it('counts the 429s by the JSON status field, on the access log, and alarms on them', () => {
    const filters = ofType('AWS::Logs::MetricFilter');
    expect(filters).toHaveLength(1);
    const filter = filters[0]?.[1].Properties ?? {};
    expect(filter.FilterPattern).toBe('{ $.status = 429 }');
    const [[stageId, stage] = []] = ofType('AWS::ApiGatewayV2::Stage');
    expect(stageId).toBeDefined();
    expect(logicalIdOf(filter.LogGroupName)).toBe(
      logicalIdOf((stage?.Properties.AccessLogSettings as { DestinationArn: unknown }).DestinationArn),
    );
    expect(alarmNamed(/answered 429/)).toMatchObject({ MetricName: 'Throttled429', Threshold: 10 });
  });
});

describe('the alarms', () => {
  it('alarm on the p99 latency of the stage, once there are requests enough', () => {
    const alarm = alarmNamed(/p99 latency/);
    expect(alarm).toMatchObject({
      Threshold: defaultAlarmThresholds.p99LatencyMs,
      EvaluationPeriods: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expectMathAlarm(alarm, 'IF(requests >= 20, latency, 0)', {
      id: 'latency',
      metricName: 'Latency',
      stat: 'p99',
    });
  });

  it('alarm on throttled reads and writes of the table', () => {
    const alarm = alarmNamed(/table throttled/);
    const names = (
      alarm.Metrics as { MetricStat?: { Metric: { MetricName: string; Dimensions: unknown } } }[]
    ).flatMap((metric) => (metric.MetricStat ? [metric.MetricStat.Metric] : []));
    expect(names.map((metric) => metric.MetricName).sort()).toEqual([
      'ReadThrottleEvents',
      'WriteThrottleEvents',
    ]);
    for (const metric of names) expect(logicalIdOf(metric.Dimensions)).toMatch(/^Table/);
    expect(alarm.Threshold).toBe(1);
  });

  it('alarm on the age of the oldest message of the webhook and of the push queue', () => {
    for (const [name, queue] of [
      ['Webhook', /^WebhookQueue/],
      ['Push', /^PushQueue/],
    ] as const) {
      const alarm = alarmNamed(new RegExp(`^${name} queue: oldest message`));
      expect(alarm).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Statistic: 'Maximum',
        Threshold: defaultAlarmThresholds.queueAgeSeconds,
      });
      expect(logicalIdOf(alarm.Dimensions)).toMatch(queue);
    }
  });

  it("alarm on the account's concurrent executions nearing the default quota", () => {
    expect(alarmNamed(/concurrent Lambda executions/)).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'ConcurrentExecutions',
      Statistic: 'Maximum',
      Threshold: 800,
    });
  });

  it('alarm on any answer the announcement sweep had to send', () => {
    expect(alarmNamed(/announced by the sweep/)).toMatchObject({
      Namespace: 'MfaAuthorization',
      MetricName: 'EventsSwept',
      Dimensions: [{ Name: 'service', Value: 'mfa-authorization' }],
      Statistic: 'Sum',
      Threshold: 1,
    });
  });

  it('alarm on any 5xx answer in a quiet five minutes, which the 5xx rate leaves out', () => {
    const alarm = alarmNamed(/fewer than 20 requests/);
    expect(alarm).toMatchObject({ Threshold: 1, EvaluationPeriods: 1 });
    expectMathAlarm(alarm, 'IF(requests < 20, errors, 0)', { id: 'errors', metricName: '5xx', stat: 'Sum' });
  });

  it('alarm when the every-minute announcement sweep keeps failing', () => {
    const alarm = alarmNamed(/announcement sweep failed/);
    const sweep = serviceFunctions().find(([id]) => id.startsWith('SweepAnnouncements'))?.[0];
    expect(alarm).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: sweep } }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 3,
    });
  });

  it("take their thresholds from the stack's props", () => {
    const tuned = synthesize({
      alarmThresholds: { p99LatencyMs: 900, queueAgeSeconds: 120, concurrentExecutions: 4000 },
    });
    const thresholds = (description: string) =>
      (Object.values(tuned.findResources('AWS::CloudWatch::Alarm')) as Resource[])
        .filter((alarm) => (alarm.Properties.AlarmDescription as string).includes(description))
        .map((alarm) => alarm.Properties.Threshold);
    expect(thresholds('p99 latency')).toEqual([900]);
    expect(thresholds('oldest message')).toEqual([120, 120]);
    expect(thresholds('concurrent Lambda executions')).toEqual([4000]);
  });
});

describe('the dashboard', () => {
  it('shows the API, the table, the queues, the workers, the business metrics and every alarm', () => {
    const dashboards = ofType('AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const {
      'Fn::Join': [, parts],
    } = dashboards[0]?.[1].Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] };
    // The body with each reference written as itself, so the names of what it shows can be looked for.
    const body = parts.map((part) => (typeof part === 'string' ? part : JSON.stringify(part))).join('');
    for (const metric of [
      // The API's
      '"Count"',
      '"4xx"',
      '"5xx"',
      '"Latency"',
      '"IntegrationLatency"',
      'Throttled429',
      // The table's
      'ConsumedReadCapacityUnits',
      'ReadThrottleEvents',
      'WriteThrottleEvents',
      'UserErrors',
      // The queues'
      'ApproximateAgeOfOldestMessage',
      'ApproximateNumberOfMessagesVisible',
      // The service's own
      'AuthRequestsCreated',
      'AuthRequestsAnswered',
      'WebhooksDelivered',
      'PushesDelivered',
      'ColdStart',
    ]) {
      expect(body).toContain(metric);
    }
    for (const [id] of ofType('AWS::SQS::Queue')) expect(body).toContain(id);
    for (const consumer of [...webhookConsumers, ...pushConsumers]) {
      const [id] = serviceFunctions().find(([logicalId]) => logicalId.startsWith(consumerId(consumer))) ?? [];
      expect({ id, shown: Boolean(id && body.includes(`"${id}"`)) }).toEqual({ id, shown: true });
    }
    for (const [id] of ofType('AWS::CloudWatch::Alarm')) expect(body).toContain(id);
  });
});

it('keeps the stage logging to the access log group', () => {
  template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
    AccessLogSettings: {
      DestinationArn: Match.anyValue(),
      Format: Match.stringLikeRegexp('^\\{"requestId"'),
    },
  });
});

it('names every resource (`*`) only in the X-Ray statements, which admit no other', () => {
  const statements = allRoleStatements(resources);
  const everywhere = statements.filter((statement) => [statement.Resource].flat().includes('*'));
  expect(everywhere.length).toBeGreaterThan(0);
  expect(new Set(everywhere.flatMap((statement) => [statement.Action].flat()))).toEqual(
    new Set(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']),
  );
});

describe('the alarm topic', () => {
  it('is encrypted with a key of its own that CloudWatch alarms of the account may publish with, and every alarm notifies it', () => {
    const notified = synthesize({ alarmEmail: 'ops@example.com' });
    const [[topicId, topic] = []] = Object.entries(notified.findResources('AWS::SNS::Topic')) as [
      string,
      Resource,
    ][];
    const keyId = (topic?.Properties.KmsMasterKeyId as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const key = (notified.toJSON().Resources as Record<string, Resource>)[keyId] as Resource;
    expect(key.Type).toBe('AWS::KMS::Key');
    const statements = (key.Properties.KeyPolicy as { Statement: Record<string, unknown>[] }).Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: {
            'aws:SourceArn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':cloudwatch:',
                  { Ref: 'AWS::Region' },
                  ':',
                  { Ref: 'AWS::AccountId' },
                  ':alarm:*',
                ],
              ],
            },
          },
        },
      }),
    );
    // No other service principal may use it.
    expect(
      statements.filter((statement) => JSON.stringify(statement.Principal).includes('Service')),
    ).toHaveLength(1);
    const alarms = Object.values(notified.findResources('AWS::CloudWatch::Alarm')) as Resource[];
    expect(alarms.length).toBeGreaterThan(15);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
  });
});
