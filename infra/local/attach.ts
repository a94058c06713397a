import { readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { engineEnvironment, startEngines } from '#infra/local/engines';
import { ensureTable } from '#infra/local/provision';

/** Written while a local runtime runs, so tools can use its engines instead of fighting over the LevelDB lock. */
interface RuntimeRecord {
  readonly pid: number;
  readonly dynamoEndpoint: string;
  readonly sqsEndpoint: string;
  readonly baseUrl: string;
  readonly tableName: string;
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
}

function recordPath(dataDir: string): string {
  return join(dataDir, 'runtime.json');
}

export async function writeRuntimeRecord(dataDir: string, record: RuntimeRecord): Promise<void> {
  // It names the embedded store's port, which takes any credentials: for this user only.
  await writeFile(recordPath(dataDir), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
}

export async function removeRuntimeRecord(dataDir: string): Promise<void> {
  await rm(recordPath(dataDir), { force: true });
}

/** The runtime that holds this data directory now, if any. */
export async function runningRuntime(dataDir: string): Promise<RuntimeRecord | undefined> {
  let record: RuntimeRecord;
  try {
    record = JSON.parse(await readFile(recordPath(dataDir), 'utf8')) as RuntimeRecord;
  } catch {
    return undefined;
  }
  try {
    process.kill(record.pid, 0);
    return record;
  } catch {
    return undefined;
  }
}

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
