import { join, resolve } from 'node:path';
import { engineEnvironment, startEngines } from '#infra/local/engines';
import { ensureTable } from '#infra/local/provision';
import { runningRuntime } from '#infra/local/runtime-record';

// The record lives on its own so that reading it loads neither engine; these names stay importable from here.
export {
  removeRuntimeRecord,
  type RuntimeRecord,
  runningRuntime,
  writeRuntimeRecord,
} from '#infra/local/runtime-record';

/**
 * Points this process's store at a local data directory: the running runtime's engine if there is one, otherwise an
 * engine of its own on the same files. Sets the environment the store reads, so call it before importing the store.
 */
export async function attachLocalStore(
  dataDir: string,
  tableName: string,
): Promise<{ apiKeysFile: string; close(): Promise<void> }> {
  const directory = resolve(dataDir);
  const running = await runningRuntime(directory);
  let endpoint = running?.dynamoEndpoint;
  let close = async (): Promise<void> => undefined;
  if (!endpoint) {
    const engines = await startEngines(directory);
    endpoint = engines.dynamoEndpoint;
    close = () => engines.close();
    await ensureTable(endpoint, tableName);
  }
  const apiKeysFile = join(directory, 'api-keys.json');
  Object.assign(
    process.env,
    engineEnvironment({ dynamoEndpoint: endpoint, tableName: running?.tableName ?? tableName, apiKeysFile }),
  );
  return { apiKeysFile, close };
}
