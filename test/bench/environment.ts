import { fork } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { engineEnvironment } from '#infra/local/engines';
import { lambdaContext } from '#infra/local/lambda-context';
import { ensurePushQueues, ensureQueues, ensureTable } from '#infra/local/provision';
import type { ApiKeySize } from '#shared/api-keys/key-ring';
import { ApiClient, type ApiClientOptions, type PreparedRequest } from '#shared/client/api-client';
import type { HttpEvent } from '#shared/http/event';
import type { SignedContext } from '#shared/http/signed-state';
import { toHttpEvent } from '#test/support/events';
import { projectRoot } from '#test/support/service-process';

export type Handler = (
  event: HttpEvent,
  context: SignedContext,
) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * What the in-process benches share: the store and the queue in a process of their own (their CPU is not the
 * service's), this process
 * configured like a Lambda, an API key ring and an organization. The store client is made once per process, so one
 * environment serves every bench of a run.
 */
export interface BenchEnvironment {
  readonly dataDir: string;
  readonly apiKeysFile: string;
  readonly organizationId: string;
  readonly issuer: string;
  readonly organizationPem: string;
  /** A client of the organization whose requests are handed to handlers directly, never sent. */
  client(options?: Partial<ApiClientOptions>): ApiClient;
  invoke(handler: Handler, request: PreparedRequest): Promise<APIGatewayProxyStructuredResultV2>;
  close(): Promise<void>;
}

export async function startBenchEnvironment(apiKeyBits: ApiKeySize = 2048): Promise<BenchEnvironment> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mfa-bench-'));
  const engines = fork(join(projectRoot, 'test/bench/engines-process.ts'), [dataDir], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  const { dynamoEndpoint, sqsEndpoint } = await new Promise<{ dynamoEndpoint: string; sqsEndpoint: string }>(
    (resolve) => engines.once('message', resolve as never),
  );
  const apiKeysFile = join(dataDir, 'api-keys.json');
  await ensureTable(dynamoEndpoint, 'bench');
  // Handlers that announce what they did read the queues' URLs when they load.
  const { queueUrl, deadLetterQueueUrl } = await ensureQueues(sqsEndpoint, 'bench');
  // Creates and answers queue their pushes as in AWS, so their figures include the send.
  const pushQueues = await ensurePushQueues(sqsEndpoint, 'bench');
  Object.assign(process.env, {
    PUSH_QUEUE_URL: pushQueues.queueUrl,
    ...engineEnvironment({ dynamoEndpoint, sqsEndpoint, tableName: 'bench', apiKeysFile }),
    WEBHOOK_QUEUE_URL: queueUrl,
    WEBHOOK_DLQ_URL: deadLetterQueueUrl,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    // As the local runtime: metrics are log lines in AWS, and here they would only be printed.
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  const { ensureApiKeys, ensureDemoOrganization } = await import('#infra/local/bootstrap');
  await ensureApiKeys(dataDir, apiKeyBits);
  const organization = await ensureDemoOrganization(dataDir);
  const organizationPem = await readFile(organization.privateKeyPath, 'utf8');
  const { getCurrentApiPublicKey } = await import('#shared/store/api-keys');
  const apiPublic = await getCurrentApiPublicKey();
  if (!apiPublic) throw new Error('no API key');
  const issuer = `org:${organization.organizationId}`;

  return {
    dataDir,
    apiKeysFile,
    organizationId: organization.organizationId,
    issuer,
    organizationPem,
    client: (options = {}) =>
      new ApiClient({
        baseUrl: 'http://bench.invalid',
        issuer,
        privateKeyPem: organizationPem,
        // Requests are signed ahead of a measured run and must outlive it.
        tokenLifetimeSeconds: 60,
        // No HTTP server here: the client's API key and clock come straight from the store and this process.
        fetch: async (input) => {
          const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
          if (url.endsWith('/public/v3/ping')) return Response.json({ api_time: new Date().toISOString() });
          return new Response(apiPublic.publicKeyPem, { headers: { 'x-iov-key-id': apiPublic.kid } });
        },
        ...options,
      }),
    invoke: (handler, request) =>
      handler(toHttpEvent(request), lambdaContext('bench', 10_000) as SignedContext),
    async close() {
      engines.disconnect();
      await new Promise((resolve) => engines.once('exit', resolve));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
