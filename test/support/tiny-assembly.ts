import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A function of the tiny assembly: its handler's source (an ES module), and what the template gives it. */
export interface TinyFunction {
  readonly source: string;
  readonly timeoutSeconds?: number;
  readonly environment?: Record<string, unknown>;
  readonly tracing?: boolean;
}

const getAtt = (logicalId: string, attribute: string) => ({ 'Fn::GetAtt': [logicalId, attribute] });
const ref = (logicalId: string) => ({ Ref: logicalId });
const join_ = (...parts: unknown[]) => ({ 'Fn::Join': ['', parts] });

/**
 * A cloud assembly written by hand in the shapes `cdk synth` writes: a manifest, one stack's template, an asset folder
 * a function. Small enough to deploy in a second, it holds what the service's own stack holds: a table and an audit
 * table, queues with a redrive policy and an event source mapping, secrets (one generated, read by dynamic reference),
 * a provider-framework custom resource whose data a function's environment takes, an HTTP API with routes and a
 * `$default`, and CloudFront in front with an origin secret.
 */
export async function writeTinyAssembly(
  directory: string,
  options: {
    readonly routes: Readonly<Record<string, TinyFunction>>;
    readonly consumer: TinyFunction;
    readonly onEvent: TinyFunction;
    /** Properties of the custom resource beside its service token; absent: no custom resource. */
    readonly customResource?: Record<string, unknown>;
  },
): Promise<void> {
  const resources: Record<string, unknown> = {};
  const assets: Record<string, string> = {};
  const fn = (logicalId: string, tiny: TinyFunction, extra: Record<string, unknown> = {}) => {
    assets[logicalId] = tiny.source;
    resources[logicalId] = {
      Type: 'AWS::Lambda::Function',
      Properties: {
        Handler: 'index.handler',
        Runtime: 'nodejs24.x',
        MemorySize: 256,
        Timeout: tiny.timeoutSeconds ?? 5,
        Environment: { Variables: { ...tiny.environment, ...extra } },
        LoggingConfig: { LogFormat: 'JSON' },
        ...(tiny.tracing === false ? {} : { TracingConfig: { Mode: 'Active' } }),
      },
      Metadata: { 'aws:asset:path': `asset.${logicalId}` },
    };
  };
  const table = (logicalId: string) => {
    resources[logicalId] = {
      Type: 'AWS::DynamoDB::GlobalTable',
      Properties: {
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      },
    };
  };
  table('Table');
  table('AuditTable');
  for (const name of ['Webhook', 'Push']) {
    resources[`${name}DeadLetterQueue`] = { Type: 'AWS::SQS::Queue', Properties: {} };
    resources[`${name}Queue`] = {
      Type: 'AWS::SQS::Queue',
      Properties: {
        // Longer than a consumer's cold start on a loaded machine: a message seen again before its invocation ran
        // would be counted as a second receive.
        VisibilityTimeout: 3,
        RedrivePolicy: { deadLetterTargetArn: getAtt(`${name}DeadLetterQueue`, 'Arn'), maxReceiveCount: 2 },
      },
    };
  }
  resources.OriginSecret = {
    Type: 'AWS::SecretsManager::Secret',
    Properties: { GenerateSecretString: { PasswordLength: 40, ExcludePunctuation: true } },
  };
  const originSecret = join_('{{resolve:secretsmanager:', ref('OriginSecret'), ':SecretString:::}}');

  fn('Consumer', options.consumer, { TABLE_NAME: ref('Table') });
  resources.ConsumerMapping = {
    Type: 'AWS::Lambda::EventSourceMapping',
    Properties: {
      EventSourceArn: getAtt('WebhookQueue', 'Arn'),
      FunctionName: ref('Consumer'),
      BatchSize: 5,
      MaximumBatchingWindowInSeconds: 0,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 2 },
    },
  };

  fn('OnEvent', options.onEvent);
  assets.Provider = 'export const handler = () => { throw new Error("the provider framework is not run"); };';
  resources.Provider = {
    Type: 'AWS::Lambda::Function',
    Properties: {
      Handler: 'framework.onEvent',
      Runtime: 'nodejs24.x',
      Environment: { Variables: { USER_ON_EVENT_FUNCTION_ARN: getAtt('OnEvent', 'Arn') } },
    },
    Metadata: { 'aws:asset:path': 'asset.Provider' },
  };
  if (options.customResource) {
    resources.Widget = {
      Type: 'Custom::Widget',
      Properties: { ServiceToken: getAtt('Provider', 'Arn'), ...options.customResource },
    };
  }

  const routeEnvironment = {
    TABLE_NAME: ref('Table'),
    QUEUE_URL: ref('WebhookQueue'),
    ORIGIN_VERIFY_SECRETS: originSecret,
    PUBLIC_BASE_URL: join_('https://', getAtt('Distribution', 'DomainName')),
    ...(options.customResource ? { WIDGET: getAtt('Widget', 'Value') } : {}),
  };
  resources.HttpApi = { Type: 'AWS::ApiGatewayV2::Api', Properties: { Name: 'tiny', ProtocolType: 'HTTP' } };
  resources.Stage = {
    Type: 'AWS::ApiGatewayV2::Stage',
    Properties: { ApiId: ref('HttpApi'), StageName: '$default', AutoDeploy: true },
  };
  for (const [routeKey, tiny] of Object.entries(options.routes)) {
    const id = routeKey === '$default' ? 'Default' : routeKey.replace(/[^A-Za-z0-9]/g, '');
    fn(`${id}Function`, tiny, routeEnvironment);
    resources[`${id}Integration`] = {
      Type: 'AWS::ApiGatewayV2::Integration',
      Properties: {
        ApiId: ref('HttpApi'),
        IntegrationType: 'AWS_PROXY',
        IntegrationUri: getAtt(`${id}Function`, 'Arn'),
        PayloadFormatVersion: '2.0',
      },
    };
    resources[`${id}Route`] = {
      Type: 'AWS::ApiGatewayV2::Route',
      Properties: {
        ApiId: ref('HttpApi'),
        RouteKey: routeKey,
        Target: join_('integrations/', ref(`${id}Integration`)),
      },
    };
  }
  resources.Distribution = {
    Type: 'AWS::CloudFront::Distribution',
    Properties: {
      DistributionConfig: {
        Enabled: true,
        Origins: [
          {
            Id: 'api',
            DomainName: join_(
              ref('HttpApi'),
              '.execute-api.',
              ref('AWS::Region'),
              '.',
              ref('AWS::URLSuffix'),
            ),
            OriginCustomHeaders: [{ HeaderName: 'X-Origin-Verify', HeaderValue: originSecret }],
          },
        ],
      },
    },
  };

  const outputs = {
    BaseUrl: { Value: join_('https://', getAtt('Distribution', 'DomainName')) },
    TableName: { Value: ref('Table') },
    AuditTableName: { Value: ref('AuditTable') },
    WebhookQueueUrl: { Value: ref('WebhookQueue') },
    WebhookDeadLetterQueueUrl: { Value: ref('WebhookDeadLetterQueue') },
    PushQueueUrl: { Value: ref('PushQueue') },
    PushDeadLetterQueueUrl: { Value: ref('PushDeadLetterQueue') },
  };
  await mkdir(directory, { recursive: true });
  for (const [logicalId, source] of Object.entries(assets)) {
    await mkdir(join(directory, `asset.${logicalId}`), { recursive: true });
    await writeFile(join(directory, `asset.${logicalId}`, 'index.mjs'), source);
  }
  await writeFile(
    join(directory, 'Tiny.template.json'),
    JSON.stringify({ Resources: resources, Outputs: outputs }),
  );
  await writeFile(
    join(directory, 'manifest.json'),
    JSON.stringify({
      version: '55.0.0',
      artifacts: {
        Tiny: { type: 'aws:cloudformation:stack', properties: { templateFile: 'Tiny.template.json' } },
      },
    }),
  );
}
