import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import {
  type AssemblyStack,
  assetFolder,
  resourcesOfType,
  type TemplateResource,
} from '#infra/assembly/cloud-assembly';
import { type CustomResourceRun, CustomResources } from '#infra/assembly/custom-resources';
import { type DeployedFunction, FunctionPool, type PoolSettings } from '#infra/assembly/function-pool';
import { type ResolvedResources, resolveString, resolveValue } from '#infra/assembly/intrinsics';
import {
  apiId,
  functionArn,
  generatedName,
  localAccount,
  localRegion,
  resourceArn,
  secretArn,
  stableUuid,
} from '#infra/assembly/physical-names';
import { generatedSecretValue } from '#infra/assembly/secret-values';
import { ensureQueue, ensureTableDefinition } from '#infra/local/provision';
import { type LocalSecret, type SecretsEngine, startSecretsEngine } from '#infra/local/secrets-engine';

/** What a resource is once deployed: its `Ref` and its attributes. */
interface Physical {
  readonly ref: string;
  readonly attributes: Readonly<Record<string, string>>;
}

export interface LocalDeploymentSettings {
  readonly stacks: readonly AssemblyStack[];
  readonly dataDir: string;
  readonly engines: { readonly dynamoEndpoint: string; readonly sqsEndpoint: string };
  /**
   * Where CloudFront's distribution is reached here: the runner's own address. What the template builds from the
   * distribution's domain (`https://<domain>`, the functions' public base URL) is this URL.
   */
  readonly edgeUrl: string;
  /** Physical names for tables and secrets the local tools know by name, keyed by the stack output that names them. */
  readonly namedByOutput: Readonly<Record<string, string>>;
  /** Files for the key secrets, keyed by the key ring resource's property that names the secret. */
  readonly keyFilesByProperty: Readonly<Record<string, string>>;
  readonly pool: Omit<PoolSettings, 'endpoints'>;
  readonly log: (line: string) => void;
}

/** Lambda's limit on a function's environment: the keys and values of its variables together. */
export const environmentLimitBytes = 4096;

/**
 * A stack of the cloud assembly deployed to the local engines the way CloudFormation deploys it to AWS: each resource
 * made when first needed (tables and queues in the engines from their template definitions, secrets in the local
 * secrets engine, functions as pools of execution environments), every intrinsic function resolved against what was
 * made. What has no local counterpart (IAM, KMS, alarms, WAF) is only named.
 */
export class LocalDeployment {
  readonly pools = new Map<string, FunctionPool>();
  readonly customResources: CustomResources;
  /** Custom resources whose provider is not CDK's provider framework (CDK's own cross-region ones): not run here. */
  readonly notRun: string[] = [];
  private readonly physical = new Map<string, Promise<Physical>>();
  private readonly functions = new Map<string, Promise<DeployedFunction>>();
  /** Which resource each physical id or ARN names. */
  private readonly owners = new Map<string, string>();
  private secrets!: SecretsEngine;

  private constructor(
    readonly stack: AssemblyStack,
    private readonly settings: LocalDeploymentSettings,
  ) {
    this.customResources = new CustomResources(
      join(settings.dataDir, 'assembly', `${stack.artifactId}.json`),
      (logicalId, payload) => this.invokeFunction(logicalId, payload),
    );
  }

  /** Deploys `stack`: its secrets engine first, then every table, queue and custom resource, in dependency order. */
  static async deploy(stack: AssemblyStack, settings: LocalDeploymentSettings): Promise<LocalDeployment> {
    const deployment = new LocalDeployment(stack, settings);
    await mkdir(join(settings.dataDir, 'assembly'), { recursive: true, mode: 0o700 });
    deployment.secrets = await startSecretsEngine(await deployment.localSecrets());
    for (const type of ['AWS::DynamoDB::GlobalTable', 'AWS::DynamoDB::Table', 'AWS::SQS::Queue']) {
      for (const [logicalId] of resourcesOfType(stack.template, type)) await deployment.resource(logicalId);
    }
    for (const [logicalId, resource] of Object.entries(stack.template.Resources)) {
      if (!isCustomResource(resource)) continue;
      if (deployment.providedByFramework(resource)) await deployment.resource(logicalId);
      else deployment.notRun.push(`${logicalId} (${resource.Type})`);
    }
    await deployment.customResources.deleteMissing(
      Object.keys(stack.template.Resources).filter((id) =>
        isCustomResource(stack.template.Resources[id] as TemplateResource),
      ),
    );
    return deployment;
  }

  /** The endpoints a function reaches the local engines at, as `AWS_ENDPOINT_URL_*` variables. */
  get endpoints(): Record<string, string> {
    return {
      AWS_ENDPOINT_URL_DYNAMODB: this.settings.engines.dynamoEndpoint,
      AWS_ENDPOINT_URL_SQS: this.settings.engines.sqsEndpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: this.secrets.endpoint,
    };
  }

  /** Resolves a value of the template: an intrinsic function, a dynamic reference, or a plain value. */
  resolve(value: unknown): Promise<unknown> {
    return resolveValue(value, this.resolver);
  }

  async resolveString(value: unknown): Promise<string> {
    return this.fromEdge(await resolveString(value, this.resolver));
  }

  /** The logical id of the resource a resolved ARN, name or URL names. */
  logicalIdOf(physical: string): string {
    const owner = this.owners.get(physical);
    if (!owner) throw new Error(`No resource of ${this.stack.stackName} is ${physical}`);
    return owner;
  }

  /** The logical id of the function a resolved ARN or name names. */
  functionNamed(arnOrName: string): string {
    const owner = this.logicalIdOf(arnOrName);
    if (this.typeOf(owner) !== 'AWS::Lambda::Function') throw new Error(`${arnOrName} is not a function`);
    return owner;
  }

  /** The pool of a function, made with its resolved configuration on first use. */
  async pool(logicalId: string): Promise<FunctionPool> {
    const known = this.pools.get(logicalId);
    if (known) return known;
    const definition = await this.deployedFunction(logicalId);
    const existing = this.pools.get(logicalId);
    if (existing) return existing;
    const pool = new FunctionPool(definition, { ...this.settings.pool, endpoints: this.endpoints });
    this.pools.set(logicalId, pool);
    return pool;
  }

  /** Every function's configuration, resolved: what Lambda would hold after the deploy. */
  async allFunctions(): Promise<DeployedFunction[]> {
    return Promise.all(
      resourcesOfType(this.stack.template, 'AWS::Lambda::Function').map(([logicalId]) =>
        this.deployedFunction(logicalId),
      ),
    );
  }

  async invokeFunction(logicalId: string, payload: unknown) {
    return (await this.pool(logicalId)).invoke(payload);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.stop()));
    await this.secrets?.close();
  }

  /** The stack's outputs, resolved, as `cdk deploy` prints them; an output that cannot be had here is left out. */
  async outputs(): Promise<Record<string, string>> {
    const outputs: Record<string, string> = {};
    for (const [name, output] of Object.entries(this.stack.template.Outputs ?? {})) {
      try {
        outputs[name] = await this.resolveString(output.Value);
      } catch (error) {
        this.settings.log(`Output ${name} is not available locally: ${(error as Error).message}`);
      }
    }
    return outputs;
  }

  private readonly resolver: ResolvedResources = {
    ref: async (logicalId) => {
      const pseudo = this.pseudoParameter(logicalId);
      if (pseudo !== undefined) return pseudo;
      const parameter = (this.stack.template as { Parameters?: Record<string, { Default?: unknown }> })
        .Parameters?.[logicalId];
      if (parameter)
        return typeof parameter.Default === 'string'
          ? parameter.Default
          : JSON.stringify(parameter.Default ?? '');
      return (await this.resource(logicalId)).ref;
    },
    attribute: async (logicalId, name) => {
      const { attributes } = await this.resource(logicalId);
      const value = attributes[name];
      if (value === undefined)
        throw new Error(`${logicalId} (${this.typeOf(logicalId)}) has no attribute ${name} here`);
      return value;
    },
    secretValue: async (secretId, jsonKey) => {
      const text = await this.secrets.value(secretId);
      if (jsonKey === undefined) return text;
      const value = (JSON.parse(text) as Record<string, unknown>)[jsonKey];
      if (value === undefined) throw new Error(`Secret ${secretId} has no key ${jsonKey}`);
      return typeof value === 'string' ? value : JSON.stringify(value);
    },
  };

  private pseudoParameter(name: string): string | undefined {
    return {
      'AWS::Region': localRegion,
      'AWS::AccountId': localAccount,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': this.stack.stackName,
      'AWS::StackId': `arn:aws:cloudformation:${localRegion}:${localAccount}:stack/${this.stack.stackName}/local`,
      'AWS::NoValue': '',
    }[name];
  }

  private typeOf(logicalId: string): string {
    const resource = this.stack.template.Resources[logicalId];
    if (!resource) throw new Error(`${this.stack.stackName} has no resource ${logicalId}`);
    return resource.Type;
  }

  /** The resource deployed, once, on first need. */
  resource(logicalId: string): Promise<Physical> {
    let made = this.physical.get(logicalId);
    if (!made) {
      made = this.make(logicalId).then((physical) => {
        for (const name of [physical.ref, ...Object.values(physical.attributes)])
          this.owners.set(name, logicalId);
        return physical;
      });
      this.physical.set(logicalId, made);
    }
    return made;
  }

  private async make(logicalId: string): Promise<Physical> {
    const resource = this.stack.template.Resources[logicalId];
    if (!resource) throw new Error(`${this.stack.stackName} has no resource ${logicalId}`);
    const properties = resource.Properties ?? {};
    const name = (property: string, maxLength?: number) =>
      typeof properties[property] === 'string'
        ? properties[property]
        : (this.settings.namedByOutput[logicalId] ??
          generatedName(this.stack.stackName, logicalId, maxLength));
    switch (resource.Type) {
      case 'AWS::DynamoDB::GlobalTable':
      case 'AWS::DynamoDB::Table': {
        const tableName = name('TableName', 255);
        await ensureTableDefinition(
          this.settings.engines.dynamoEndpoint,
          await this.tableDefinition(tableName, properties),
        );
        const arn = `arn:aws:dynamodb:${localRegion}:${localAccount}:table/${tableName}`;
        return { ref: tableName, attributes: { Arn: arn, StreamArn: `${arn}/stream/local` } };
      }
      case 'AWS::SQS::Queue': {
        const queueName = name('QueueName', 80);
        const attributes: Record<string, string> = {};
        for (const property of [
          'VisibilityTimeout',
          'MessageRetentionPeriod',
          'DelaySeconds',
          'MaximumMessageSize',
        ]) {
          if (properties[property] !== undefined)
            attributes[property] = await this.resolveString(properties[property]);
        }
        if (properties.RedrivePolicy !== undefined)
          attributes.RedrivePolicy = JSON.stringify(await this.resolve(properties.RedrivePolicy));
        const queue = await ensureQueue(this.settings.engines.sqsEndpoint, queueName, attributes);
        return { ref: queue.url, attributes: { Arn: queue.arn, QueueName: queueName, QueueUrl: queue.url } };
      }
      case 'AWS::SecretsManager::Secret': {
        const arn = secretArn(name('Name', 512));
        return { ref: arn, attributes: { Id: arn } };
      }
      case 'AWS::Lambda::Function': {
        const functionName = name('FunctionName');
        return { ref: functionName, attributes: { Arn: functionArn(functionName) } };
      }
      case 'AWS::Logs::LogGroup': {
        const logGroupName = name('LogGroupName', 512);
        return {
          ref: logGroupName,
          attributes: { Arn: resourceArn(resource.Type, `log-group:${logGroupName}:*`) },
        };
      }
      case 'AWS::ApiGatewayV2::Api': {
        const id = apiId(this.stack.stackName, logicalId);
        return {
          ref: id,
          attributes: { ApiId: id, ApiEndpoint: `https://${id}.execute-api.${localRegion}.amazonaws.com` },
        };
      }
      case 'AWS::CloudFront::Distribution': {
        // The distribution's address is the runner's: clients reach the API there, as they reach CloudFront.
        const { host } = new URL(this.settings.edgeUrl);
        return {
          ref: `E${apiId(this.stack.stackName, logicalId).toUpperCase()}`,
          attributes: { DomainName: host },
        };
      }
      case 'AWS::KMS::Key': {
        const keyId = stableUuid(`${this.stack.stackName}/${logicalId}`);
        return { ref: keyId, attributes: { Arn: resourceArn(resource.Type, `key/${keyId}`), KeyId: keyId } };
      }
      case 'AWS::SNS::Topic': {
        const arn = resourceArn(resource.Type, name('TopicName', 256));
        return { ref: arn, attributes: { TopicArn: arn, TopicName: name('TopicName', 256) } };
      }
      default: {
        if (isCustomResource(resource)) return this.runCustomResource(logicalId, resource);
        const physicalName = generatedName(this.stack.stackName, logicalId);
        return { ref: physicalName, attributes: { Arn: resourceArn(resource.Type, physicalName) } };
      }
    }
  }

  /** Whether a custom resource's service token is CDK's provider framework, whose onEvent function runs here. */
  private providedByFramework(resource: TemplateResource): boolean {
    const token = resource.Properties?.ServiceToken as { 'Fn::GetAtt'?: [string, string] } | undefined;
    const provider = token?.['Fn::GetAtt']?.[0];
    const variables = (
      this.stack.template.Resources[provider ?? '']?.Properties?.Environment as
        { Variables?: Record<string, unknown> } | undefined
    )?.Variables;
    return variables?.USER_ON_EVENT_FUNCTION_ARN !== undefined;
  }

  private async runCustomResource(logicalId: string, resource: TemplateResource): Promise<Physical> {
    const properties = (await this.resolve(resource.Properties ?? {})) as Record<string, unknown>;
    const serviceToken = String(properties.ServiceToken);
    const provider = await this.deployedFunction(this.functionNamed(serviceToken));
    // CDK's provider framework hands the event to the function it names; that function is what runs here.
    const onEvent = provider.environment.USER_ON_EVENT_FUNCTION_ARN;
    if (!onEvent)
      throw new Error(
        `${logicalId} (${resource.Type}) is not run locally: its provider is not CDK's provider framework`,
      );
    const run: CustomResourceRun = await this.customResources.apply({
      logicalId,
      resourceType: resource.Type,
      serviceToken,
      properties: stringified(properties),
      onEvent: this.functionNamed(onEvent),
      stackId: await this.resolver.ref('AWS::StackId'),
    });
    this.settings.log(`${logicalId} (${resource.Type}): ${run.action}`);
    return { ref: run.physicalResourceId, attributes: run.data };
  }

  private async tableDefinition(
    tableName: string,
    properties: Record<string, unknown>,
  ): Promise<CreateTableCommandInput> {
    const resolved = (await this.resolve(properties)) as Record<string, unknown>;
    const indexes = (resolved.GlobalSecondaryIndexes ?? []) as {
      IndexName: string;
      KeySchema: unknown;
      Projection: unknown;
    }[];
    return {
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: resolved.KeySchema as CreateTableCommandInput['KeySchema'],
      AttributeDefinitions: resolved.AttributeDefinitions as CreateTableCommandInput['AttributeDefinitions'],
      ...(indexes.length > 0
        ? {
            GlobalSecondaryIndexes: indexes.map(({ IndexName, KeySchema, Projection }) => ({
              IndexName,
              KeySchema,
              Projection,
            })) as CreateTableCommandInput['GlobalSecondaryIndexes'],
          }
        : {}),
    };
  }

  /** Every secret of the stack, the key ring's in the data directory's key files, as in the source runtime. */
  private async localSecrets(): Promise<LocalSecret[]> {
    const keyFiles = new Map<string, string>();
    for (const [, resource] of Object.entries(this.stack.template.Resources)) {
      if (!isCustomResource(resource)) continue;
      for (const [property, file] of Object.entries(this.settings.keyFilesByProperty)) {
        const reference = resource.Properties?.[property] as { Ref?: string } | undefined;
        if (reference?.Ref) keyFiles.set(reference.Ref, file);
      }
    }
    const secrets: LocalSecret[] = [];
    for (const [logicalId, resource] of resourcesOfType(this.stack.template, 'AWS::SecretsManager::Secret')) {
      const { ref: arn } = await this.resource(logicalId);
      const properties = resource.Properties ?? {};
      const initial =
        properties.SecretString !== undefined
          ? await resolveString(properties.SecretString, this.resolver)
          : undefined;
      secrets.push({
        name: arn.replace(/^.*:secret:(.*)-[^-]+$/, '$1'),
        arn,
        file: keyFiles.get(logicalId) ?? join(this.settings.dataDir, 'assembly', 'secrets', logicalId),
        initialValue: () => initial ?? generatedSecretValue(properties.GenerateSecretString ?? {}),
      });
    }
    return secrets;
  }

  private deployedFunction(logicalId: string): Promise<DeployedFunction> {
    let made = this.functions.get(logicalId);
    if (!made) {
      made = this.configure(logicalId);
      this.functions.set(logicalId, made);
    }
    return made;
  }

  private async configure(logicalId: string): Promise<DeployedFunction> {
    const resource = this.stack.template.Resources[logicalId];
    if (resource?.Type !== 'AWS::Lambda::Function')
      throw new Error(`${logicalId} is not a function of ${this.stack.stackName}`);
    const properties = resource.Properties ?? {};
    const { ref: name, attributes } = await this.resource(logicalId);
    const variables =
      (properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
    const environment: Record<string, string> = {};
    for (const [variable, value] of Object.entries(variables))
      environment[variable] = await this.resolveString(value);
    const size = Object.entries(environment).reduce(
      (sum, [key, value]) => sum + Buffer.byteLength(key + value),
      0,
    );
    if (size > environmentLimitBytes)
      throw new Error(
        `${logicalId}'s environment is ${size} bytes; Lambda refuses more than ${environmentLimitBytes}`,
      );
    const logging = (properties.LoggingConfig ?? {}) as { LogFormat?: string; LogGroup?: unknown };
    return {
      logicalId,
      name,
      arn: attributes.Arn as string,
      codeDirectory: assetFolder(this.stack, logicalId),
      handler: (properties.Handler as string | undefined) ?? 'index.handler',
      environment,
      memoryMb: Number(properties.MemorySize ?? 128),
      timeoutSeconds: Number(properties.Timeout ?? 3),
      ...(properties.ReservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrency: Number(properties.ReservedConcurrentExecutions) }),
      tracing: (properties.TracingConfig as { Mode?: string } | undefined)?.Mode === 'Active',
      logFormat: logging.LogFormat === 'JSON' ? 'JSON' : 'Text',
      logGroup:
        logging.LogGroup === undefined ? `/aws/lambda/${name}` : await this.resolveString(logging.LogGroup),
    };
  }

  /** CloudFront serves https; the runner plain http at the same address. */
  private fromEdge(text: string): string {
    const { host } = new URL(this.settings.edgeUrl);
    return text.replaceAll(`https://${host}`, this.settings.edgeUrl.replace(/\/$/, ''));
  }
}

export function isCustomResource(resource: TemplateResource): boolean {
  return resource.Type.startsWith('Custom::') || resource.Type === 'AWS::CloudFormation::CustomResource';
}

/** CloudFormation hands a custom resource its properties with every scalar as a string. */
function stringified(value: unknown): Record<string, unknown> {
  const convert = (each: unknown): unknown => {
    if (typeof each === 'number' || typeof each === 'boolean') return String(each);
    if (Array.isArray(each)) return each.map(convert);
    if (each !== null && typeof each === 'object')
      return Object.fromEntries(Object.entries(each).map(([key, inner]) => [key, convert(inner)]));
    return each;
  };
  return convert(value) as Record<string, unknown>;
}
