import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { Access } from '#infra/routes';

export interface RouteFunctionResources {
  readonly table: ITableV2;
  readonly apiKeys: ISecret;
  readonly webhookQueue: IQueue;
  readonly webhookDeadLetterQueue: IQueue;
  /** The worker's environment: where webhooks may go, and how it retries (see webhookDelivery in routes.ts). */
  readonly webhookDeliveryEnvironment: Readonly<Record<string, string>>;
  readonly logRetention: RetentionDays;
}

export interface RouteFunctionProps {
  /** Module under functions/, without extension. */
  readonly handler: string;
  readonly access: Access;
  readonly resources: RouteFunctionResources;
  readonly memorySize?: number;
  readonly timeout?: Duration;
}

/**
 * A function of the route table with the project's defaults: a pinned Node runtime on arm64, a minified ESM bundle
 * with source maps made by the local esbuild, its own log group, and exactly the grants its row declares.
 */
export class RouteFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: RouteFunctionProps) {
    const { access, resources } = props;
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: resources.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      entry: fileURLToPath(new URL(`../functions/${props.handler}.ts`, import.meta.url)),
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      logGroup,
      environment: {
        TABLE_NAME: resources.table.tableName,
        POWERTOOLS_SERVICE_NAME: 'mfa-authorization',
        NODE_OPTIONS: '--enable-source-maps',
        ...(access.apiKeys ? { API_KEYS_SECRET_ID: resources.apiKeys.secretArn } : {}),
        ...(access.webhookQueue || access.webhookDelivery
          ? { WEBHOOK_QUEUE_URL: resources.webhookQueue.queueUrl }
          : {}),
        ...(access.webhookDelivery
          ? {
              WEBHOOK_DLQ_URL: resources.webhookDeadLetterQueue.queueUrl,
              ...resources.webhookDeliveryEnvironment,
            }
          : {}),
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        minify: true,
        sourceMap: true,
        mainFields: ['module', 'main'],
        // The Node 22 runtime ships AWS SDK v3; bundling another copy would add ~350 KB to every function and put
        // each over the 500 KB budget (architecture.md), for a cold start that parses it all.
        externalModules: ['@aws-sdk/*'],
        // CommonJS dependencies inside an ESM bundle still call require().
        banner:
          "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    });
    if (access.table === 'read') resources.table.grantReadData(this);
    if (access.table === 'write') resources.table.grantReadWriteData(this);
    if (access.apiKeys) resources.apiKeys.grantRead(this);
    if (access.webhookQueue || access.webhookDelivery) resources.webhookQueue.grantSendMessages(this);
    if (access.webhookDelivery) resources.webhookDeadLetterQueue.grantSendMessages(this);
  }
}
