import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { engineClientConfig, type LocalEngines, startEngines } from '#infra/local/engines';
import { ensureTable } from '#infra/local/provision';

/** The embedded engines on a data directory of their own, with one table in the service's shape. */
export interface EngineTable {
  readonly engines: LocalEngines;
  /** lib-dynamodb's client on the engine, marshalling as the service's store does. */
  readonly store: DynamoDBDocumentClient;
  /** A new low-level client on the engine. */
  client(): DynamoDBClient;
  close(): Promise<void>;
}

export async function startEngineTable(tableName: string): Promise<EngineTable> {
  const dataDir = await mkdtemp(join(tmpdir(), `mfa-${tableName}-`));
  const engines = await startEngines(dataDir);
  await ensureTable(engines.dynamoEndpoint, tableName);
  const client = () => new DynamoDBClient(engineClientConfig(engines.dynamoEndpoint));
  const store = DynamoDBDocumentClient.from(client(), { marshallOptions: { removeUndefinedValues: true } });
  return {
    engines,
    store,
    client,
    async close() {
      store.destroy();
      await engines.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
