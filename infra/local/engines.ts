import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createSqsServer } from 'local-aws-sqs';
import { closeLevelIteratorsOnReturn } from '#infra/local/close-level-iterators';
import { makeDataDirectoryPrivate } from '#infra/local/private-data-directory';
import { dynaliteWithTransactions } from '#infra/local/transact-write-items';
import { keyFileEnvironment, keyFilesBeside } from '#shared/api-keys/key-ring-storage';
import { closeServer } from '#infra/local/close-server';

/** The embedded stand-ins for DynamoDB and SQS, on loopback ports of their own. */
export interface LocalEngines {
  readonly dynamoEndpoint: string;
  readonly sqsEndpoint: string;
  /** Paths of the data directory that were readable or writable by other users and have been tightened. */
  readonly tightened: readonly string[];
  close(): Promise<void>;
}

/** Client settings for the embedded engines: they accept any credentials, but the SDK wants some, and a region. */
export function engineClientConfig(endpoint: string) {
  return { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
}

/**
 * The environment that makes this process's handlers and store talk to the embedded engines, as they would to AWS
 * from a Lambda: the same variables, other endpoints.
 */
export function engineEnvironment(settings: {
  readonly dynamoEndpoint: string;
  readonly sqsEndpoint?: string;
  readonly tableName: string;
  readonly apiKeysFile: string;
}): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: settings.dynamoEndpoint,
    ...(settings.sqsEndpoint ? { AWS_ENDPOINT_URL_SQS: settings.sqsEndpoint } : {}),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    TABLE_NAME: settings.tableName,
    // Each part of the keys in a file of its own, as each is a secret of its own in AWS.
    ...keyFileEnvironment(keyFilesBeside(settings.apiKeysFile)),
  };
}

/** DynamoDB data persists in `<dataDir>/dynamodb` (LevelDB), private to this user; the queues live in memory. */
export async function startEngines(dataDir: string): Promise<LocalEngines> {
  const tightened = await makeDataDirectoryPrivate(dataDir);
  const dynamoPath = join(dataDir, 'dynamodb');
  await mkdir(dynamoPath, { recursive: true, mode: 0o700 });
  closeLevelIteratorsOnReturn();
  const dynamo = dynaliteWithTransactions({
    path: dynamoPath,
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await listen(dynamo);
  const sqs = await createSqsServer({ port: 0, hostname: '127.0.0.1' });
  return {
    dynamoEndpoint: endpointOf(dynamo),
    sqsEndpoint: endpointOf(sqs),
    tightened,
    async close() {
      await Promise.all([closeServer(sqs), closeServer(dynamo)]);
    },
  };
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
}

function endpointOf(server: Server): string {
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}
