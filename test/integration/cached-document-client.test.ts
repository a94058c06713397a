import {
  BatchGetCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CachedDocumentClient, cachedDocumentClient } from '#shared/store/cached-document-client';
import { type EngineTable, startEngineTable } from '#test/support/engine-table';

/**
 * The store's cached client marshals document commands itself: whatever it writes and reads must be exactly what
 * lib-dynamodb's own client writes and reads, command by command, against the same engine.
 */
const TableName = 'documents';
let table: EngineTable;
let sdk: DynamoDBDocumentClient;
let cached: CachedDocumentClient;

beforeAll(async () => {
  table = await startEngineTable(TableName);
  sdk = table.store;
  cached = cachedDocumentClient(table.client(), { marshall: { removeUndefinedValues: true } });
});
afterAll(async () => {
  await table?.close();
});

/** Every kind of value the service stores, undefined members included (dropped, as removeUndefinedValues says). */
const item = (pk: string, sk: string) => ({
  pk,
  sk,
  text: 'é 🙂',
  count: 42,
  ratio: 0.25,
  flag: false,
  nothing: null,
  dropped: undefined,
  list: [1, 'two', { three: [3] }, null],
  map: { nested: { deeper: ['a', 'b'], empty: {} }, skip: undefined },
  bytes: new Uint8Array([0, 1, 255]),
  set: new Set(['x', 'y']),
});

type Writer = () => { send(command: PutCommand): Promise<unknown> };
const both: [string, Writer][] = [
  ['lib-dynamodb', () => sdk],
  ['cached', () => cached],
];

describe('the cached document client, beside lib-dynamodb', () => {
  it.each(both)('writes items that read back alike through either (%s writing)', async (name, writer) => {
    const key = { pk: `P#${name}`, sk: 'ITEM' };
    await writer().send(new PutCommand({ TableName, Item: item(key.pk, key.sk) }));
    const throughSdk = await sdk.send(new GetCommand({ TableName, Key: key, ConsistentRead: true }));
    const throughCached = await cached.send(new GetCommand({ TableName, Key: key, ConsistentRead: true }));
    expect(throughCached.Item).toEqual(throughSdk.Item);
    expect(throughSdk.Item).toEqual(
      expect.objectContaining({ text: 'é 🙂', count: 42, list: [1, 'two', { three: [3] }, null] }),
    );
    expect(throughSdk.Item).not.toHaveProperty('dropped');
  });

  it('answers queries page by page, with the same keys to go on from', async () => {
    for (let index = 0; index < 5; index++)
      await sdk.send(new PutCommand({ TableName, Item: item('Q', `ITEM#${index}`) }));
    const query = (start?: Record<string, unknown>) =>
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'Q' },
        Limit: 2,
        ExclusiveStartKey: start,
      });
    const [sdkPage, cachedPage] = [await sdk.send(query()), await cached.send(query())];
    expect(cachedPage.Items).toEqual(sdkPage.Items);
    expect(cachedPage.LastEvaluatedKey).toEqual({ pk: 'Q', sk: 'ITEM#1' });
    const next = await cached.send(query(cachedPage.LastEvaluatedKey));
    expect(next.Items?.map((each) => String(each.sk))).toEqual(['ITEM#2', 'ITEM#3']);
  });

  it('batch-reads, updates with values returned, deletes and writes together alike', async () => {
    await sdk.send(new PutCommand({ TableName, Item: item('B', 'ONE') }));
    await sdk.send(new PutCommand({ TableName, Item: item('B', 'TWO') }));
    const batch = () =>
      new BatchGetCommand({
        RequestItems: {
          [TableName]: {
            Keys: [
              { pk: 'B', sk: 'ONE' },
              { pk: 'B', sk: 'TWO' },
            ],
          },
        },
      });
    const sorted = (items: Record<string, unknown>[] | undefined) =>
      [...(items ?? [])].sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
    expect(sorted((await cached.send(batch())).Responses?.[TableName])).toEqual(
      sorted((await sdk.send(batch())).Responses?.[TableName]),
    );

    const updated = await cached.send(
      new UpdateCommand({
        TableName,
        Key: { pk: 'B', sk: 'ONE' },
        UpdateExpression: 'SET #map.#nested = :value ADD #count :one',
        ExpressionAttributeNames: { '#map': 'map', '#nested': 'nested', '#count': 'count' },
        ExpressionAttributeValues: { ':value': { replaced: [true] }, ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    expect(updated.Attributes).toEqual(
      expect.objectContaining({ count: 43, map: { nested: { replaced: [true] } } }),
    );

    await cached.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName, Key: { pk: 'B', sk: 'TWO' } } },
          {
            Put: {
              TableName,
              Item: item('B', 'THREE'),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
        ],
      }),
    );
    const after = await sdk.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'B' },
      }),
    );
    expect(after.Items?.map((each) => String(each.sk))).toEqual(['ONE', 'THREE']);
    await cached.send(new DeleteCommand({ TableName, Key: { pk: 'B', sk: 'THREE' } }));
    expect(
      (await sdk.send(new GetCommand({ TableName, Key: { pk: 'B', sk: 'THREE' } }))).Item,
    ).toBeUndefined();
  });

  it('fails a condition with the SDK error, and a middleware added after sends applies from the next one', async () => {
    const put = () =>
      new PutCommand({
        TableName,
        Item: { pk: 'C', sk: 'ONE' },
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    await cached.send(put());
    await expect(cached.send(put())).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });

    const seen: string[] = [];
    cached.middlewareStack.add(
      (next, context) => (args) => {
        seen.push(context.commandName ?? '');
        return next(args);
      },
      { step: 'initialize', name: 'seen' },
    );
    await cached.send(new GetCommand({ TableName, Key: { pk: 'C', sk: 'ONE' } }));
    expect(seen).toEqual(['GetItemCommand']);
  });
});
