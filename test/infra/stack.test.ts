import { mkdirSync } from 'node:fs';
import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundlingFor } from '#infra/function-bundling';
import { tableActions } from '#infra/route-function';
import {
  consoleAuditRoute,
  consoleRoute,
  httpRoutes,
  loginHandlers,
  pushConsumers,
  pushDelivery,
  pushQueue,
  routeId,
  webAppRoute,
  webhookConsumers,
  webhookDelivery,
  webhookQueue,
} from '#infra/routes';
import { AuthorizationServiceStack, type AuthorizationServiceStackProps } from '#infra/stack';
import { allRoleStatements, statementsOfRole as roleStatementsOf } from '#test/support/role-policies';

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
}

interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
}

function synthesize(
  props: AuthorizationServiceStackProps = {},
  nag = false,
): { app: App; template: Template } {
  // Template.fromStack writes cdk.out folders under TMPDIR; keep them in the project's ignored scratch folder.
  mkdirSync('.tmp', { recursive: true });
  process.env.TMPDIR = '.tmp';
  // Skip bundling: the template is otherwise identical, and `cdk synth` in CI bundles for real.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  const stack = new AuthorizationServiceStack(app, 'Test', props);
  if (nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, template: Template.fromStack(stack) };
}

let template: Template;
let resources: Record<string, Resource>;

beforeAll(() => {
  ({ template } = synthesize());
  resources = template.toJSON().Resources as Record<string, Resource>;
});

/** The service's own functions (not the CDK provider framework's), by logical id. */
function serviceFunctions(): [string, Resource][] {
  return Object.entries(resources).filter(
    ([, resource]) =>
      resource.Type === 'AWS::Lambda::Function' && resource.Properties.Handler === 'index.handler',
  );
}

function environmentOf(fn: Resource): Record<string, string> {
  return (fn.Properties.Environment as { Variables?: Record<string, string> } | undefined)?.Variables ?? {};
}

/** Every statement of a role's policies. */
function statementsOfRole(roleId: string): Statement[] {
  return roleStatementsOf(resources, roleId) as Statement[];
}

const actionsOf = (statement: Statement) => [statement.Action].flat();
const roleIdOf = (fn: Resource) => (fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];

describe('the stack built from the route table', () => {
  it('has one function per route and queue consumer, the fallback and the key ring function, all alike', () => {
    const functions = serviceFunctions();
    // + the fallback, the key ring function, its schedule, the web authenticator's, the console's two and the
    // announcement sweep.
    expect(functions).toHaveLength(httpRoutes.length + webhookConsumers.length + pushConsumers.length + 7);
    for (const [, fn] of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        LoggingConfig: { LogFormat: 'JSON', LogGroup: expect.anything() },
      });
    }
  });

  it('logs every function to one log group, which each role may write to and nothing more', () => {
    const functions = Object.values(resources).filter(
      (resource) => resource.Type === 'AWS::Lambda::Function',
    );
    const logGroups = new Set(
      functions.map((fn) => JSON.stringify((fn.Properties.LoggingConfig as { LogGroup?: unknown }).LogGroup)),
    );
    expect([...logGroups]).toEqual([expect.stringMatching(/^\{"Ref":"FunctionLogs[0-9A-F]{8}"\}$/)]);
    const logGroupId = (JSON.parse([...logGroups][0] as string) as { Ref: string }).Ref;
    const roles = Object.entries(resources).filter(([, resource]) => resource.Type === 'AWS::IAM::Role');
    expect(roles.length).toBeGreaterThan(20);
    for (const [id, role] of roles) {
      // No AWSLambdaBasicExecutionRole, which lets a role create and write any log group.
      expect({ id, managed: role.Properties.ManagedPolicyArns }).toEqual({ id, managed: undefined });
      const logging = statementsOfRole(id).filter((statement) =>
        actionsOf(statement).some((action) => action.startsWith('logs:')),
      );
      expect({ id, logging }).toEqual({
        id,
        logging: [
          expect.objectContaining({
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
          }),
        ],
      });
    }
  });

  it('routes every row of the table, and everything else to the fallback', () => {
    for (const route of httpRoutes) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: `${route.method} ${route.path}`,
      });
    }
    for (const path of webAppRoute.paths) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: `GET ${path}` });
    }
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: '$default' });
  });

  it('throttles the stage and logs its access', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.anyValue() },
    });
  });

  it('keeps the table on demand, encrypted, with TTL on `ttl` and point-in-time recovery, protected by default', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
        SSESpecification: Match.objectLike({ SSEEnabled: true }),
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      }),
    });
  });

  it('wires the webhook queue to a dead-letter queue', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: webhookQueue.maxReceiveCount },
    });
  });

  it('feeds the webhook worker from the queue with partial batch failures, https only, public addresses only', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: 1,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: webhookDelivery.functionTimeoutSeconds,
      Environment: {
        Variables: Match.objectLike({
          WEBHOOK_QUEUE_URL: Match.anyValue(),
          WEBHOOK_DLQ_URL: Match.anyValue(),
          WEBHOOK_ALLOW_HTTP: 'false',
          WEBHOOK_ALLOWED_NETWORKS: '',
          WEBHOOK_MAX_ATTEMPTS: String(webhookDelivery.maxAttempts),
        }),
      },
    });
  });

  it('feeds the push worker from its own queue and DLQ, with a real VAPID contact and the webhook address guard', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: pushQueue.maxReceiveCount },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: pushConsumers[0]?.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const [worker] = serviceFunctions().filter(([id]) => id.startsWith('EventsDeliverPushes'));
    if (!worker) throw new Error('no push worker');
    const environment = environmentOf(worker[1]);
    expect(environment).toMatchObject({
      PUSH_QUEUE_URL: expect.anything(),
      PUSH_DLQ_URL: expect.anything(),
      PUSH_MAX_ATTEMPTS: String(pushDelivery.maxAttempts),
      WEBHOOK_ALLOW_HTTP: 'false',
      WEBHOOK_ALLOWED_NETWORKS: '',
    });
    // The API's own https base URL unless told otherwise: never a made-up contact push services refuse.
    expect(JSON.stringify(environment.PUSH_VAPID_SUBJECT)).toContain('https://');
  });

  it("gives each queue six times its consumer's timeout, and caps every event source's concurrency", () => {
    const mappings = Object.values(resources).filter(
      (resource) => resource.Type === 'AWS::Lambda::EventSourceMapping',
    );
    const consumers = mappings.map((mapping) => {
      const functionId = (mapping.Properties.FunctionName as { Ref: string }).Ref;
      const queueId = (mapping.Properties.EventSourceArn as { 'Fn::GetAtt': [string, 'Arn'] })[
        'Fn::GetAtt'
      ][0];
      return {
        queue: queueId.replace(/Queue.*$/, ''),
        visibilityTimeout: resources[queueId]?.Properties.VisibilityTimeout as number,
        functionTimeout: resources[functionId]?.Properties.Timeout as number,
        maxConcurrency: (mapping.Properties.ScalingConfig as { MaximumConcurrency?: number } | undefined)
          ?.MaximumConcurrency,
      };
    });
    expect(consumers.map((consumer) => consumer.queue).sort()).toEqual(['Push', 'Webhook']);
    for (const consumer of consumers) {
      // AWS's guidance: room for Lambda to retry a throttled batch before its messages come back.
      expect(consumer.visibilityTimeout).toBeGreaterThanOrEqual(6 * consumer.functionTimeout);
      // SQS event sources accept 2 to 1,000; without it a backlog may take the API's concurrency.
      expect(consumer.maxConcurrency).toBeGreaterThanOrEqual(2);
      expect(consumer.maxConcurrency).toBeLessThanOrEqual(1000);
    }
  });

  it('lets only the push worker and the routes that start or end a request send to the push queue', () => {
    const pushQueueId = Object.entries(resources).find(
      ([id, resource]) => resource.Type === 'AWS::SQS::Queue' && id.startsWith('PushQueue'),
    )?.[0];
    const senders = serviceFunctions()
      .filter(([, fn]) =>
        statementsOfRole(roleIdOf(fn)).some(
          (statement) =>
            actionsOf(statement).includes('sqs:SendMessage') &&
            JSON.stringify(statement.Resource).includes(`"${pushQueueId}"`),
        ),
      )
      .map(([, fn]) => environmentOf(fn).PUSH_QUEUE_URL !== undefined);
    // The console's function too: its unlink tells the user's devices, and a sign-in approval reaches the admin's.
    const declared = [...httpRoutes, consoleRoute, ...pushConsumers].filter(
      (row) => row.access.pushQueue || row.access.pushDelivery,
    ).length;
    expect(senders).toEqual(Array(declared).fill(true));
  });

  it('points exactly the functions that check passkeys at the WebAuthn library beside their bundle', () => {
    const loading = serviceFunctions().filter(
      ([, fn]) => environmentOf(fn).WEBAUTHN_MODULE === './webauthn.mjs',
    );
    expect(loading).toHaveLength(
      [...httpRoutes, consoleRoute].filter((route) => route.access.webAuthn).length,
    );
    expect(bundlingFor('device/answer-auth-request').commandHooks?.afterBundling('in', 'out')).toContainEqual(
      expect.stringContaining('esbuild shared/webauthn/library.ts --bundle'),
    );
    expect(
      bundlingFor('device/list-auth-requests').commandHooks?.afterBundling('in', 'out'),
    ).not.toContainEqual(expect.stringContaining('shared/webauthn/library.ts'));
  });

  it('makes the API key ring at deploy time with a custom resource, never in the template', () => {
    template.hasResourceProperties('Custom::ApiKeyRing', {
      SecretId: { Ref: Match.anyValue() },
      KeyBits: '2048',
    });
    const json = JSON.stringify(template.toJSON());
    expect(json).not.toMatch(/PRIVATE KEY/);
    for (const [, fn] of serviceFunctions()) {
      expect(Object.keys(environmentOf(fn)).filter((name) => /KEY_RING|PRIVATE/.test(name))).toEqual([]);
    }
  });

  it('alarms on the 5xx and 4xx rates, 429s, throttles, dead letters and worker errors', () => {
    const alarms = Object.values(resources).filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm');
    expect(alarms.map((alarm) => alarm.Properties.AlarmDescription).sort()).toEqual([
      '1 % or more of API requests answered 5xx for 15 minutes',
      '10 or more API requests answered 429 in 5 minutes',
      '25 % or more of API requests answered 4xx for 15 minutes',
      '800 or more concurrent Lambda executions in this account and region',
      'A function could not write an audit record; the record is in its log (message "Audit record not written").',
      'API p99 latency at or above 2000 ms for 15 minutes',
      'An API request answered 5xx in 5 minutes of fewer than 20 requests, which the 5xx rate does not see',
      'Answers announced by the sweep: their handler died before sending the event (see its logs)',
      'Lambda throttled invocations in this account and region',
      'Push queue: oldest message 600 s old or more',
      'Pushes in the dead-letter queue: `admin push dead-letters` says why',
      'The API key schedule (key age, scheduled rotation) failed: its logs say why',
      'The announcement sweep failed 3 or more of its runs in 5 minutes: answers whose event was lost are not sent again',
      'The current API key is 365 days old or more: rotate it (docs/deploy.md, key rotation)',
      'The push worker failed outright (its messages come back, then go to the DLQ)',
      'The table throttled reads or writes',
      'The webhook worker failed outright (its messages come back, then go to the DLQ)',
      'Webhook events in the dead-letter queue: `admin webhooks dead-letters` says why',
      'Webhook queue: oldest message 600 s old or more',
    ]);
  });
});

describe('concurrency reserved for logins', () => {
  const reserved = (resources: Record<string, Resource>) =>
    Object.fromEntries(
      Object.entries(resources).flatMap(([id, resource]) =>
        resource.Type === 'AWS::Lambda::Function' && resource.Properties.ReservedConcurrentExecutions
          ? [[id, resource.Properties.ReservedConcurrentExecutions]]
          : [],
      ),
    );

  it('reserves none by default: an account must keep 100 unreserved, and a new one may have less', () => {
    expect(reserved(resources)).toEqual({});
  });

  it('reserves what -c loginReservedConcurrency asks for each function a login waits on, and for no other', () => {
    const { template: withReserve } = synthesize({ loginReservedConcurrency: 50 });
    const byId = reserved(withReserve.toJSON().Resources as Record<string, Resource>);
    const loginRouteIds = httpRoutes
      .filter((route) => loginHandlers.includes(route.handler))
      .map((route) => routeId(route));
    expect(loginRouteIds).toHaveLength(loginHandlers.length);
    const routeOf = (logicalId: string) =>
      loginRouteIds.find((id) => new RegExp(`^${id}[0-9A-F]{8}$`).test(logicalId));
    expect(Object.keys(byId).map(routeOf).sort()).toEqual([...loginRouteIds].sort());
    expect(new Set(Object.values(byId))).toEqual(new Set([50]));
  });
});

describe('the alarms on refused requests', () => {
  it('alarms on the 4xx rate of the API, as a share of its requests', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmDescription: Match.stringLikeRegexp('answered 4xx'),
      Threshold: 25,
      EvaluationPeriods: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'IF(requests >= 20, 100 * errors / requests, 0)' }),
        Match.objectLike({
          Id: 'requests',
          MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: 'Count' }) }),
        }),
        Match.objectLike({
          Id: 'errors',
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({ Namespace: 'AWS/ApiGateway', MetricName: '4xx' }),
            Stat: 'Sum',
          }),
        }),
      ]),
    });
  });

  // The 429 count by the access log's JSON status field: test/infra/observability.test.ts.

  it("takes its thresholds from the stack's props, and notifies like the others", () => {
    const { template: tuned } = synthesize({
      alarmEmail: 'ops@example.com',
      alarmThresholds: { clientErrorRatePercent: 40, tooManyRequests: 100 },
    });
    const alarms = Object.values(tuned.findResources('AWS::CloudWatch::Alarm')) as Resource[];
    const refused = alarms.filter((alarm) =>
      /answered (4xx|429)/.test(alarm.Properties.AlarmDescription as string),
    );
    expect(refused.map((alarm) => alarm.Properties.Threshold).sort()).toEqual([100, 40]);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: expect.stringMatching(/AlarmTopic/) }]);
    }
  });
});

describe('least privilege', () => {
  it('grants no wildcard action anywhere, and only the table actions the store uses', () => {
    const statements = allRoleStatements(resources) as Statement[];
    expect(statements.flatMap(actionsOf).filter((action) => action.includes('*'))).toEqual([]);
    const tableUse = new Set(
      statements.flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:')),
    );
    expect([...tableUse].sort()).toEqual([...tableActions.read, ...tableActions.write].sort());
  });

  it('lets only the functions given a key secret read one, and only the key ring function and its schedule write them', () => {
    for (const [id, fn] of serviceFunctions()) {
      const actions = statementsOfRole(roleIdOf(fn)).flatMap(actionsOf);
      // test/infra/key-custody.test.ts checks which secret each reads.
      const signs = Object.keys(environmentOf(fn)).some((name) => name.endsWith('_SECRET_ID'));
      const keyRing = /^ApiKey(Ring|Schedule)Function/.test(id);
      expect({ id, reads: actions.includes('secretsmanager:GetSecretValue') }).toEqual({
        id,
        reads: signs || keyRing,
      });
      expect({ id, writes: actions.includes('secretsmanager:PutSecretValue') }).toEqual({
        id,
        writes: keyRing,
      });
    }
  });

  it('gives a function table writes only when its route declares them', () => {
    const writers = serviceFunctions().filter(([, fn]) =>
      statementsOfRole(roleIdOf(fn)).flatMap(actionsOf).includes('dynamodb:PutItem'),
    );
    const declared = [
      ...httpRoutes,
      consoleRoute,
      consoleAuditRoute,
      ...webhookConsumers,
      ...pushConsumers,
    ].filter((row) => (row.access.table?.writes.length ?? 0) > 0).length;
    // The fallback signs (a jti write); the key ring function and its schedule (one role) publish public keys; the
    // announcement sweep claims answers (infra/announcement-sweep.ts).
    expect(writers).toHaveLength(declared + 4);
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing that is not acknowledged with a reason, with every option on', () => {
    const { app } = synthesize(
      {
        alarmEmail: 'ops@example.com',
        customDomain: {
          domainName: 'mfa.example.com',
          certificateArn:
            'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
        },
        stageName: 'prod',
        apiKeyBits: 3072,
      },
      true,
    );
    expect(() => app.synth()).not.toThrow();
  });
});
