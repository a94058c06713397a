import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '#shared/config';
import { serviceUnavailable } from '#shared/errors';
import type { ItemKey } from '#shared/store/keys';

export const tableName = requireEnv('TABLE_NAME');

const client = new DynamoDBClient({
  maxAttempts: 3,
  // A store that does not answer must become a 503 well inside the function timeout, not a hung request.
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 },
});

// After the SDK's own retries, a failure that is the store's and not the request's becomes one 503 for the caller.
client.middlewareStack.add(
  (next) => async (args) => {
    try {
      return await next(args);
    } catch (error) {
      if (isTransient(error)) throw serviceUnavailable('The store is unavailable; retry the request', error);
      throw error;
    }
  },
  { step: 'initialize', name: 'mapTransientStoreFailures' },
);

export const dynamo = DynamoDBDocumentClient.from(client, {
  marshallOptions: { removeUndefinedValues: true },
});

/** Every item a Query matches, page after page: a partition past 1 MB must not be cut short. */
export async function queryAll(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({ ...input, TableName: tableName, ExclusiveStartKey: startKey }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** Strongly consistent reads of many items by key, 100 to a request, retrying what the store left unprocessed. */
export async function batchGetAll(keys: readonly ItemKey[]): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += 100) {
    let pending: Record<string, unknown>[] = keys.slice(start, start + 100).map((key) => ({ ...key }));
    while (pending.length > 0) {
      const { Responses, UnprocessedKeys } = await dynamo.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }),
      );
      items.push(...(Responses?.[tableName] ?? []));
      pending = UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  return items;
}

export function isConditionalFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error as Error | undefined)?.name === 'ConditionalCheckFailedException'
  );
}

const transientCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

function isTransient(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { $retryable?: unknown; $fault?: string; name?: string; code?: string };
  return (
    Boolean(e.$retryable) ||
    e.$fault === 'server' ||
    e.name === 'TimeoutError' ||
    e.name === 'RequestTimeout' ||
    (e.code !== undefined && transientCodes.has(e.code))
  );
}
