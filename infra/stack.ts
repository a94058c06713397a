import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { AttributeType, Billing, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { RouteFunction, type RouteFunctionResources } from '#infra/route-function';
import {
  consumerId,
  fallbackRoute,
  httpRoutes,
  routeId,
  webhookConsumers,
  webhookDelivery,
  webhookQueue,
} from '#infra/routes';
import { partitionKeyName, sortKeyName, timeToLiveAttribute } from '#shared/store/table-definition';

export interface AuthorizationServiceStackProps extends StackProps {
  /** Keep the table when the stack is deleted, and refuse its deletion (default true). */
  readonly protectData?: boolean;
  readonly logRetention?: RetentionDays;
  /**
   * Networks (comma-separated CIDRs) webhooks may reach although they are private, e.g. receivers inside a VPC the
   * worker is attached to. None by default: only public addresses.
   */
  readonly webhookAllowedNetworks?: string;
  /** Let webhooks go to plain http URLs (default false: https only). */
  readonly allowHttpWebhooks?: boolean;
}

/** The service in AWS: one function per route of the route table behind an HTTP API, the table, the webhook queue. */
export class AuthorizationServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: AuthorizationServiceStackProps = {}) {
    super(scope, id, props);
    const protectData = props.protectData ?? true;

    const table = new TableV2(this, 'Table', {
      partitionKey: { name: partitionKeyName, type: AttributeType.STRING },
      sortKey: { name: sortKeyName, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: protectData,
      removalPolicy: protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    const deadLetterQueue = new Queue(this, 'WebhookDeadLetterQueue', {
      retentionPeriod: Duration.days(webhookQueue.deadLetterRetentionDays),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const queue = new Queue(this, 'WebhookQueue', {
      visibilityTimeout: Duration.seconds(webhookQueue.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: webhookQueue.maxReceiveCount },
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });

    // The API's private key ring. Until the deploy issue adds a custom resource that generates it, an operator
    // writes it once with `npm run admin -- api-key rotate --table <table> --secret-id <arn>`.
    const apiKeys = new Secret(this, 'ApiKeyRing', {
      description: 'Private key ring of the MFA authorization API (JSON; written by `admin api-key rotate`)',
    });

    const resources: RouteFunctionResources = {
      table,
      apiKeys,
      webhookQueue: queue,
      webhookDeadLetterQueue: deadLetterQueue,
      webhookDeliveryEnvironment: {
        WEBHOOK_TIMEOUT_MS: String(webhookDelivery.timeoutMs),
        WEBHOOK_MAX_ATTEMPTS: String(webhookDelivery.maxAttempts),
        WEBHOOK_RETRY_BASE_SECONDS: String(webhookDelivery.retryBaseSeconds),
        WEBHOOK_ALLOW_HTTP: String(props.allowHttpWebhooks ?? false),
        WEBHOOK_ALLOWED_NETWORKS: props.webhookAllowedNetworks ?? '',
      },
      logRetention: props.logRetention ?? RetentionDays.ONE_MONTH,
    };

    const fallback = new RouteFunction(this, 'Fallback', { ...fallbackRoute, resources });
    const api = new HttpApi(this, 'HttpApi', {
      description: 'MFA authorization service (LaunchKey / TruValidate v3 protocol)',
      defaultIntegration: new HttpLambdaIntegration('FallbackIntegration', fallback),
    });
    for (const route of httpRoutes) {
      const id = routeId(route);
      const handler = new RouteFunction(this, id, {
        handler: route.handler,
        access: route.access,
        resources,
      });
      api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${id}Integration`, handler),
      });
    }

    for (const consumer of webhookConsumers) {
      const worker = new RouteFunction(this, consumerId(consumer), {
        handler: consumer.handler,
        access: consumer.access,
        resources,
        timeout: Duration.seconds(webhookDelivery.functionTimeoutSeconds),
      });
      worker.addEventSource(
        new SqsEventSource(queue, {
          batchSize: consumer.batchSize,
          maxBatchingWindow: Duration.seconds(consumer.maxBatchingWindowSeconds),
          reportBatchItemFailures: true,
        }),
      );
    }

    new CfnOutput(this, 'BaseUrl', { value: api.apiEndpoint, description: 'Base URL to give the SDKs' });
    new CfnOutput(this, 'TableName', { value: table.tableName, description: 'For `admin --table`' });
    new CfnOutput(this, 'ApiKeySecretArn', {
      value: apiKeys.secretArn,
      description: 'For `admin --secret-id`',
    });
    new CfnOutput(this, 'WebhookQueueUrl', { value: queue.queueUrl, description: 'For `admin webhooks`' });
    new CfnOutput(this, 'WebhookDeadLetterQueueUrl', {
      value: deadLetterQueue.queueUrl,
      description: 'For `admin webhooks`',
    });
  }
}
