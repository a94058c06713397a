import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Written while a local runtime runs, so tools can use its engines instead of fighting over the LevelDB lock. */
export interface RuntimeRecord {
  readonly pid: number;
  readonly dynamoEndpoint: string;
  readonly sqsEndpoint: string;
  readonly baseUrl: string;
  readonly tableName: string;
  readonly queueUrl: string;
  readonly deadLetterQueueUrl: string;
  /** The push queue and its DLQ; absent from records written before pushes existed. */
  readonly pushQueueUrl?: string;
  readonly pushDeadLetterQueueUrl?: string;
  /** What runs: the TypeScript sources, or the synthesized cloud assembly (`npm start -- --assembly`). */
  readonly source?: 'sources' | 'assembly';
  /** The Node version the functions run on. */
  readonly node?: string;
}

/** Where a data directory's runtime record lives. */
export function runtimeRecordPath(dataDir: string): string {
  return join(dataDir, 'runtime.json');
}

export async function writeRuntimeRecord(dataDir: string, record: RuntimeRecord): Promise<void> {
  // It names the embedded store's port, which takes any credentials: for this user only.
  await writeFile(runtimeRecordPath(dataDir), `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
}

export async function removeRuntimeRecord(dataDir: string): Promise<void> {
  await rm(runtimeRecordPath(dataDir), { force: true });
}

/**
 * The runtime that holds this data directory now, if any: a record whose process has gone (a runtime killed
 * without its shutdown) names nobody. Imports nothing heavy, so the CLIs can ask on every call.
 */
export async function runningRuntime(dataDir: string): Promise<RuntimeRecord | undefined> {
  let record: RuntimeRecord;
  try {
    record = JSON.parse(await readFile(runtimeRecordPath(dataDir), 'utf8')) as RuntimeRecord;
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
