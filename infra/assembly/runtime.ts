import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type AssemblyApi, assemblyApi } from '#infra/assembly/api-routes';
import { readCloudAssembly } from '#infra/assembly/cloud-assembly';
import { type Stop, startEventSourceMappings, startSchedules } from '#infra/assembly/event-sources';
import { type LambdaNode, prepareLambdaNode } from '#infra/assembly/lambda-node';
import { LocalDeployment } from '#infra/assembly/local-deployment';
import { ensureLocalAssembly } from '#infra/assembly/synthesize';
import { startXrayDaemon } from '#infra/assembly/xray-daemon';
import { removeRuntimeRecord, writeRuntimeRecord } from '#infra/local/attach';
import { engineEnvironment, startEngines } from '#infra/local/engines';
import type { Routing } from '#infra/local/http-server';
import {
  claimDataDirectory,
  type LocalRuntime,
  type LocalRuntimeOptions,
  localAuditTableName,
  localTableName,
  runtimeRecordOf,
} from '#infra/local/runtime';
import { keyFilesBeside } from '#shared/api-keys/key-ring-storage';
import { closeServer } from '#infra/local/close-server';

export interface AssemblyRuntimeOptions extends Omit<LocalRuntimeOptions, 'apiKeyBits' | 'logLevel'> {
  /** A cloud assembly to run as it is (a `cdk.out`); by default the local one, synthesized when stale. */
  readonly cloudAssembly?: string;
  /** Progress lines while preparing (synthesis, the runtime's first install). */
  readonly log?: (line: string) => void;
  /** The Node and runtime client the functions run on (default: Lambda's, prepared on first use). */
  readonly lambdaNode?: LambdaNode;
}

export interface AssemblyRuntime extends LocalRuntime {
  readonly cloudAssembly: string;
  readonly lambdaNode: LambdaNode;
  /** Every X-Ray segment the functions and Lambda sent, one JSON document a line. */
  readonly xraySegments: string;
  /** Each function's log, a file a function. */
  readonly logDirectory: string;
  readonly deployment: LocalDeployment;
  /** What the template holds that does not run here, for the banner. */
  readonly notes: readonly string[];
}

/**
 * `npm start -- --assembly`: the synthesized cloud assembly, run as deployed. Each function's asset runs in execution
 * environments of Lambda's Node with exactly the environment its template gives it, traced, behind the template's HTTP
 * API (and, with the edge on, CloudFront's forwarding, origin secret included); its queues' mappings, its schedules and
 * its custom resources run as Lambda, EventBridge and CloudFormation run them. Only the endpoints differ: the local
 * engines stand in for DynamoDB, SQS and Secrets Manager, the data directory's key files hold the key secrets.
 */
export async function startAssemblyRuntime(options: AssemblyRuntimeOptions): Promise<AssemblyRuntime> {
  const log = options.log ?? (() => undefined);
  const dataDir = await claimDataDirectory(options.dataDir);
  const [cloudAssembly, lambdaNode] = await Promise.all([
    options.cloudAssembly ? resolve(options.cloudAssembly) : ensureLocalAssembly(log),
    options.lambdaNode ?? prepareLambdaNode(log),
  ]);
  const stacks = await readCloudAssembly(cloudAssembly);
  const stack = stacks.find((each) =>
    Object.values(each.template.Resources).some((r) => r.Type === 'AWS::ApiGatewayV2::Api'),
  );
  if (!stack) throw new Error(`No stack of ${cloudAssembly} holds an HTTP API`);

  const engines = await startEngines(dataDir);
  const stops: Stop[] = [() => engines.close()];
  const stop = async () => {
    for (const step of stops.reverse()) await step();
  };
  try {
    const logDirectory = join(dataDir, 'logs');
    await mkdir(logDirectory, { recursive: true, mode: 0o700 });
    const xray = await startXrayDaemon(join(dataDir, 'xray-segments.ndjson'));
    stops.push(() => xray.close());

    // The API answers 503 until the deployment is done, as a stage does before its first deployment.
    const serving: { routing?: Routing; api?: AssemblyApi } = {};
    const { startGateway } = await import('#infra/local/http-server');
    const { server, url } = await startGateway({
      port: options.port,
      host: options.host ?? '127.0.0.1',
      routing: () => serving.routing,
      forwarding: (request, headers) => serving.api?.forwarding?.(request, headers),
      get api() {
        return serving.api && { id: serving.api.id, domainName: serving.api.domainName };
      },
    });
    stops.push(() => closeServer(server));

    const apiKeysFile = join(dataDir, 'api-keys.json');
    const keyFiles = keyFilesBeside(apiKeysFile);
    const deployment = await LocalDeployment.deploy(stack, {
      stacks,
      dataDir,
      engines,
      edgeUrl: url.replace('127.0.0.1', 'localhost'),
      namedByOutput: namesByOutput(stack.template.Outputs),
      keyFilesByProperty: {
        SecretId: keyFiles.apiKeys,
        HashKeySecretId: keyFiles.hashKey,
        VapidKeysSecretId: keyFiles.vapidKeys,
      },
      pool: {
        lambdaNode,
        xrayDaemonAddress: xray.address,
        recordSegment: (document) => xray.record(document),
        logDirectory,
      },
      log,
    });
    stops.push(() => deployment.stop());
    await deployment.allFunctions();
    const api = await assemblyApi(deployment);
    serving.api = api;
    const outputs = await deployment.outputs();

    // The operator's side (the demo organization, the CLIs) uses the same engines and tables, from the sources.
    Object.assign(process.env, {
      ...engineEnvironment({ ...engines, tableName: localTableName, apiKeysFile }),
      AUDIT_TABLE_NAME: localAuditTableName,
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'INFO',
      POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
    });
    const { ensureDemoOrganization } = await import('#infra/local/bootstrap');
    const organization = await ensureDemoOrganization(dataDir);

    for (const start of [startEventSourceMappings(deployment), startSchedules(deployment, log)])
      stops.push(...(await start));
    serving.routing = api.routing;

    const queues = {
      queueUrl: required(outputs, 'WebhookQueueUrl'),
      deadLetterQueueUrl: required(outputs, 'WebhookDeadLetterQueueUrl'),
    };
    const pushQueues = {
      queueUrl: required(outputs, 'PushQueueUrl'),
      deadLetterQueueUrl: required(outputs, 'PushDeadLetterQueueUrl'),
    };
    // Clients reach the API where the stack's BaseUrl output says, as after `cdk deploy`: the distribution's address.
    const baseUrl = outputs.BaseUrl ?? url;
    await writeRuntimeRecord(
      dataDir,
      runtimeRecordOf({ baseUrl, engines, queues, pushQueues, source: 'assembly', node: lambdaNode.version }),
    );
    stops.push(() => removeRuntimeRecord(dataDir));

    return {
      baseUrl,
      dataDir,
      tableName: localTableName,
      apiKeysFile,
      queues,
      pushQueues,
      engines: { dynamoEndpoint: engines.dynamoEndpoint, sqsEndpoint: engines.sqsEndpoint },
      organization,
      tightened: engines.tightened,
      cloudAssembly,
      lambdaNode,
      xraySegments: xray.file,
      logDirectory,
      deployment,
      notes: [
        ...lambdaNode.notes,
        ...(api.behindEdge
          ? ['CloudFront forwards as deployed; AWS WAF and its rate rules are not run here']
          : []),
        'IAM, KMS, alarms and the stage throttles are not run here',
        ...deployment.notRun.map(
          (resource) => `${resource} is not run here: its provider is not CDK's provider framework`,
        ),
      ],
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** The tables the local tools know by name, found by the stack outputs that name them. */
function namesByOutput(
  outputs: Record<string, { readonly Value: unknown }> | undefined,
): Record<string, string> {
  const names: Record<string, string> = {};
  const named = { TableName: localTableName, AuditTableName: localAuditTableName };
  for (const [output, name] of Object.entries(named)) {
    const reference = (outputs?.[output]?.Value as { Ref?: string } | undefined)?.Ref;
    if (reference) names[reference] = name;
  }
  return names;
}

function required(outputs: Record<string, string>, name: string): string {
  const value = outputs[name];
  if (!value) throw new Error(`The stack has no output ${name}`);
  return value;
}
