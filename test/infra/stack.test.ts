import { mkdirSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { httpRoutes, webhookConsumers, webhookDelivery, webhookQueue } from '#infra/routes';
import { AuthorizationServiceStack } from '#infra/stack';

let template: Template;

interface FunctionResource {
  readonly Properties: { readonly Environment?: { readonly Variables?: Record<string, string> } };
}

beforeAll(() => {
  // Template.fromStack writes cdk.out folders under TMPDIR; keep them in the project's ignored scratch folder.
  mkdirSync('.tmp', { recursive: true });
  process.env.TMPDIR = '.tmp';
  // Skip bundling: the template is otherwise identical, and `cdk synth` in CI bundles for real.
  const app = new App({
    context: { 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
  });
  template = Template.fromStack(new AuthorizationServiceStack(app, 'Test'));
});

describe('the stack built from the route table', () => {
  it('has one function per route and per queue consumer plus the fallback, all alike', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    expect(Object.keys(functions)).toHaveLength(httpRoutes.length + webhookConsumers.length + 1);
    for (const fn of Object.values(functions)) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
    }
  });

  it('routes every row of the table, and everything else to the fallback', () => {
    for (const route of httpRoutes) {
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: `${route.method} ${route.path}`,
      });
    }
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: '$default' });
  });

  it('keeps the table on demand with TTL on `ttl` and point-in-time recovery', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      Replicas: [
        Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }),
      ],
    });
  });

  it('wires the webhook queue to a dead-letter queue', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: Match.anyValue() },
    });
  });

  it('gives the API key secret only to functions that sign', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const signers = Object.values(functions as Record<string, FunctionResource>).filter(
      (fn) => fn.Properties.Environment?.Variables?.API_KEYS_SECRET_ID,
    );
    // Every signed route, the webhook worker and the fallback sign; ping and the two public-key routes do not.
    expect(signers).toHaveLength(
      httpRoutes.filter((route) => route.access.apiKeys).length + webhookConsumers.length + 1,
    );
  });

  it('feeds the webhook worker from the queue with partial batch failures, https only, public addresses only', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
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
    // SQS requires the visibility timeout to cover the function's timeout.
    expect(webhookQueue.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(
      webhookDelivery.functionTimeoutSeconds,
    );
  });
});
