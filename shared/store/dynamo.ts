import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  type DynamoDBClientConfig,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { requireEnv } from '#shared/config';
import { serviceUnavailable } from '#shared/errors';
import type { ItemKey } from '#shared/store/keys';
import { traced } from '#shared/tracing';
import { type CachedDocumentClient, cachedDocumentClient } from '#shared/store/cached-document-client';
import { checkTableAccess } from '#shared/store/table-grant-check';
import { tableCommandNamed } from '#shared/store/table-commands';
import { firstUseEstablished } from '#shared/first-use';
import { inRequestClientConfig } from '#shared/aws/in-request-client-config';
import { removeMiddleware } from '#shared/aws/lean-middleware';

export const tableName = requireEnv('TABLE_NAME');

/**
 * Middleware the SDK runs on every call that the store has no use for: the logger's, which filters each input and
 * answer for a logger that logs nothing; the user agent's, which rebuilds a header AWS keeps only for its statistics;
 * and recursion detection, which forwards the invocation's trace header, for loops through queues, not a table.
 * Together about a sixth of the client's CPU per round trip (`npm run bench -- --only store-client`).
 */
export const unusedMiddleware = [
  'loggerMiddleware',
  'getUserAgentMiddleware',
  'recursionDetectionMiddleware',
] as const;

/** What the store's code sends its document commands through: lib-dynamodb's client, or the cached one. */
export type StoreClient = Pick<CachedDocumentClient, 'send' | 'middlewareStack' | 'config'>;

/**
 * The store's document client as every handler uses it: without the SDK middleware it has no use for, with its own
 * three, and each command's middleware resolved once (cached-document-client.ts). The bench builds its candidates
 * through here too: other settings over these (`config`), other middleware removed (`remove`; none is the SDK's full
 * stack), lib-dynamodb's own client (`sdkDocumentClient`: with `remove: []`, the setup before), the service's own
 * middleware always the same.
 */
export function createDocumentClient(
  options: {
    readonly config?: DynamoDBClientConfig;
    readonly remove?: readonly string[];
    readonly sdkDocumentClient?: boolean;
  } = {},
): StoreClient {
  const client = traced(new DynamoDBClient({ ...inRequestClientConfig(), ...options.config }));
  removeMiddleware(client, options.remove ?? unusedMiddleware, 'store');

  // After the SDK's own retries, a failure that is the store's and not the request's becomes one 503 for the caller.
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (isTransient(error))
          throw serviceUnavailable('The store is unavailable; retry the request', error);
        throw error;
      }
    },
    { step: 'initialize', name: 'mapTransientStoreFailures' },
  );

  // A write waits for its request's jti to be recorded, and fails if the request is a replay (first-use.ts).
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (tableCommandNamed(context.commandName ?? '')?.mode !== 'reads') await firstUseEstablished();
      return next(args);
    },
    { step: 'initialize', name: 'awaitFirstUse' },
  );

  // The local runtime's stand-in for IAM (a no-op in AWS): after the document client has marshalled the input.
  client.middlewareStack.add(
    (next, context) => (args) => {
      checkTableAccess(context.commandName ?? '', args.input, tableName);
      return next(args);
    },
    { step: 'build', name: 'checkTableGrant' },
  );

  const marshallOptions = { removeUndefinedValues: true };
  return options.sdkDocumentClient
    ? DynamoDBDocumentClient.from(client, { marshallOptions })
    : cachedDocumentClient(client, { marshall: marshallOptions });
}

export const dynamo = createDocumentClient();

/**
 * Every item a Query matches, page after page: a partition past 1 MB must not be cut short. A `Limit` in `input` sizes
 * each page, not the total.
 */
export async function queryAll(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({ ...input, TableName: tableName, ExclusiveStartKey: start }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Requests per chunk of keys: the first, then retries of what the store left unprocessed. */
export const batchGetRounds = 6;
const batchGetBaseDelayMs = 50;

/**
 * Strongly consistent reads of many items by key, 100 to a request. Keys the store leaves unprocessed (it is
 * throttling) are retried after a growing, jittered wait, so a throttled table is not hammered in a tight loop; keys
 * still unprocessed after the last round make the read fail with a 503.
 */
export async function batchGetAll(keys: readonly ItemKey[]): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let start = 0; start < keys.length; start += 100) {
    let pending: Record<string, unknown>[] = keys.slice(start, start + 100).map((key) => ({ ...key }));
    for (let round = 0; pending.length > 0; round++) {
      if (round === batchGetRounds) {
        throw serviceUnavailable(
          `The store left ${pending.length} keys unprocessed after ${batchGetRounds} attempts; retry the request`,
        );
      }
      if (round > 0) await sleep(backoffDelay(round));
      const { Responses, UnprocessedKeys } = await dynamo.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }),
      );
      items.push(...(Responses?.[tableName] ?? []));
      pending = UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  }
  return items;
}

// Equal jitter: the wait doubles each round and is never shorter than half of it, so retries from many functions
// throttled at once spread out instead of arriving together.
function backoffDelay(round: number): number {
  const ceiling = batchGetBaseDelayMs * 2 ** (round - 1);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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

// The store's throttling errors: the SDK retries them by name, as they are not modelled retryable, so a throttle
// that outlasts the retries must be recognised by name too.
const throttlingNames = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);

function isTransient(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { $retryable?: unknown; $fault?: string; name?: string; code?: string };
  return (
    Boolean(e.$retryable) ||
    (e.name !== undefined && throttlingNames.has(e.name)) ||
    e.$fault === 'server' ||
    e.name === 'TimeoutError' ||
    e.name === 'RequestTimeout' ||
    (e.code !== undefined && transientCodes.has(e.code))
  );
}
