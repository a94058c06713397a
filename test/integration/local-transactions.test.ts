import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  announcementDueAttribute,
  announcementIndexName,
  announcementShardAttribute,
} from '#shared/store/table-definition';
import { type EngineTable, startEngineTable } from '#test/support/engine-table';

const TableName = 'transactions';
let table: EngineTable;
let store: DynamoDBDocumentClient;

beforeAll(async () => {
  table = await startEngineTable(TableName);
  store = table.store;
});
afterAll(async () => {
  await table?.close();
});

const get = async (pk: string, sk = 'HEAD') =>
  (await store.send(new GetCommand({ TableName, Key: { pk, sk }, ConsistentRead: true }))).Item;

/** The error a transaction fails with, or undefined if it commits. */
async function transact(input: TransactWriteCommand['input']): Promise<unknown> {
  return store.send(new TransactWriteCommand(input)).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('TransactWriteItems in the embedded DynamoDB engine', () => {
  it('applies every operation of a transaction whose conditions hold', async () => {
    await store.send(new PutCommand({ TableName, Item: { pk: 'A1', sk: 'HEAD', count: 1 } }));
    await store.send(new PutCommand({ TableName, Item: { pk: 'A2', sk: 'HEAD' } }));
    await store.send(new PutCommand({ TableName, Item: { pk: 'A4', sk: 'HEAD', state: 'open' } }));
    const error = await transact({
      TransactItems: [
        {
          Update: {
            TableName,
            Key: { pk: 'A1', sk: 'HEAD' },
            UpdateExpression: 'SET #count = #count + :one',
            ConditionExpression: '#count = :one',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':one': 1 },
          },
        },
        { Delete: { TableName, Key: { pk: 'A2', sk: 'HEAD' }, ConditionExpression: 'attribute_exists(pk)' } },
        {
          Put: {
            TableName,
            Item: { pk: 'A3', sk: 'HEAD', name: 'new' },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          ConditionCheck: {
            TableName,
            Key: { pk: 'A4', sk: 'HEAD' },
            ConditionExpression: '#state = :open',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':open': 'open' },
          },
        },
      ],
    });
    expect(error).toBeUndefined();
    expect(await get('A1')).toEqual({ pk: 'A1', sk: 'HEAD', count: 2 });
    expect(await get('A2')).toBeUndefined();
    expect(await get('A3')).toEqual({ pk: 'A3', sk: 'HEAD', name: 'new' });
    expect(await get('A4')).toEqual({ pk: 'A4', sk: 'HEAD', state: 'open' });
  });

  it('applies none when a condition fails, and names the failed operation with its item when asked', async () => {
    await store.send(new PutCommand({ TableName, Item: { pk: 'B1', sk: 'HEAD', state: 'answered' } }));
    const error = await transact({
      TransactItems: [
        { Put: { TableName, Item: { pk: 'B2', sk: 'HEAD' } } },
        {
          Update: {
            TableName,
            Key: { pk: 'B1', sk: 'HEAD' },
            UpdateExpression: 'SET #state = :answered',
            ConditionExpression: '#state = :pending',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':answered': 'answered', ':pending': 'pending' },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        { Delete: { TableName, Key: { pk: 'B3', sk: 'HEAD' }, ConditionExpression: 'attribute_exists(pk)' } },
      ],
    });
    expect(error).toBeInstanceOf(TransactionCanceledException);
    const cancelled = error as TransactionCanceledException;
    expect(cancelled.message).toBe(
      'Transaction cancelled, please refer cancellation reasons for specific reasons ' +
        '[None, ConditionalCheckFailed, ConditionalCheckFailed]',
    );
    expect(cancelled.CancellationReasons).toEqual([
      { Code: 'None' },
      {
        Code: 'ConditionalCheckFailed',
        Message: 'The conditional request failed',
        Item: { pk: { S: 'B1' }, sk: { S: 'HEAD' }, state: { S: 'answered' } },
      },
      { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' },
    ]);
    expect(await get('B2')).toBeUndefined();
  });

  it('applies none when a later operation cannot be applied to its item', async () => {
    await store.send(new PutCommand({ TableName, Item: { pk: 'C3', sk: 'HEAD', count: 'not a number' } }));
    const error = await transact({
      TransactItems: [
        { Put: { TableName, Item: { pk: 'C1', sk: 'HEAD' } } },
        { Delete: { TableName, Key: { pk: 'C3', sk: 'OTHER' } } },
        {
          Update: {
            TableName,
            Key: { pk: 'C3', sk: 'HEAD' },
            UpdateExpression: 'SET #count = #count + :one',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':one': 1 },
          },
        },
      ],
    });
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons).toEqual([
      { Code: 'None' },
      { Code: 'None' },
      { Code: 'ValidationError', Message: 'An operand in the update expression has an incorrect data type' },
    ]);
    expect(await get('C1')).toBeUndefined();
    expect(await get('C3')).toEqual({ pk: 'C3', sk: 'HEAD', count: 'not a number' });
  });

  it('refuses two operations on one item, and requests DynamoDB would refuse, writing nothing', async () => {
    const twice = await transact({
      TransactItems: [
        { Put: { TableName, Item: { pk: 'D1', sk: 'HEAD' } } },
        { Delete: { TableName, Key: { pk: 'D1', sk: 'HEAD' } } },
      ],
    });
    expect(twice).toMatchObject({
      name: 'ValidationException',
      message: 'Transaction request cannot include multiple operations on one item',
    });
    const empty = await transact({ TransactItems: [] });
    expect(empty).toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/transactItems/),
    });
    const tooMany = await transact({
      TransactItems: Array.from({ length: 101 }, (_, index) => ({
        Put: { TableName, Item: { pk: `D${index}`, sk: 'MANY' } },
      })),
    });
    expect(tooMany).toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/length less than or equal to 100/),
    });
    const noTable = await transact({ TransactItems: [{ Put: { TableName: 'absent', Item: { pk: 'D1' } } }] });
    expect(noTable).toMatchObject({ name: 'ResourceNotFoundException' });
    const badExpression = await transact({
      TransactItems: [
        { Put: { TableName, Item: { pk: 'D1', sk: 'HEAD' } } },
        { Update: { TableName, Key: { pk: 'D2', sk: 'HEAD' }, UpdateExpression: 'SET' } },
      ],
    });
    expect(badExpression).toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/^Invalid UpdateExpression/),
    });
    expect(await get('D1')).toBeUndefined();
    expect(await get('D0', 'MANY')).toBeUndefined();
  });

  it('maintains the secondary index as plain writes do', async () => {
    const indexed = { [announcementShardAttribute]: 'due#e', [announcementDueAttribute]: 1000 };
    await store.send(new PutCommand({ TableName, Item: { pk: 'E2', sk: 'HEAD', ...indexed } }));
    const error = await transact({
      TransactItems: [
        { Put: { TableName, Item: { pk: 'E1', sk: 'HEAD', ...indexed } } },
        {
          Update: {
            TableName,
            Key: { pk: 'E2', sk: 'HEAD' },
            UpdateExpression: 'REMOVE #shard, #due',
            ExpressionAttributeNames: {
              '#shard': announcementShardAttribute,
              '#due': announcementDueAttribute,
            },
          },
        },
      ],
    });
    expect(error).toBeUndefined();
    const { Items } = await store.send(
      new QueryCommand({
        TableName,
        IndexName: announcementIndexName,
        KeyConditionExpression: '#shard = :shard',
        ExpressionAttributeNames: { '#shard': announcementShardAttribute },
        ExpressionAttributeValues: { ':shard': 'due#e' },
      }),
    );
    expect(Items).toEqual([{ pk: 'E1', sk: 'HEAD', ...indexed }]);
  });

  it('never lets a transaction and a plain write both succeed when their conditions exclude each other', async () => {
    for (let round = 0; round < 20; round++) {
      const pk = `F${round}`;
      await store.send(new PutCommand({ TableName, Item: { pk, sk: 'HEAD', state: 'pending' } }));
      const answer = (by: string) => ({
        TableName,
        Key: { pk, sk: 'HEAD' },
        UpdateExpression: 'SET #state = :answered, #by = :by',
        ConditionExpression: '#state = :pending',
        ExpressionAttributeNames: { '#state': 'state', '#by': 'by' },
        ExpressionAttributeValues: { ':answered': 'answered', ':pending': 'pending', ':by': by },
      });
      const [viaTransaction, plain] = await Promise.allSettled([
        store.send(
          new TransactWriteCommand({
            TransactItems: [
              { Update: answer('transaction') },
              { Put: { TableName, Item: { pk, sk: 'ANSWER', by: 'transaction' } } },
            ],
          }),
        ),
        store.send(new UpdateCommand(answer('plain'))),
      ]);
      const winners = [viaTransaction, plain].filter(({ status }) => status === 'fulfilled');
      expect(winners).toHaveLength(1);
      const by = viaTransaction.status === 'fulfilled' ? 'transaction' : 'plain';
      expect(await get(pk)).toMatchObject({ state: 'answered', by });
      expect(Boolean(await get(pk, 'ANSWER'))).toBe(by === 'transaction');
    }
  });

  describe('with a ClientRequestToken', () => {
    const increment = (pk: string, ClientRequestToken: string, by = 1): TransactWriteCommand['input'] => ({
      ClientRequestToken,
      TransactItems: [
        {
          Update: {
            TableName,
            Key: { pk, sk: 'HEAD' },
            UpdateExpression: 'ADD #count :by',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':by': by },
          },
        },
      ],
    });

    it('applies a transaction sent again with its token once, and answers both as committed', async () => {
      const token = crypto.randomUUID();
      expect(await transact(increment('T1', token))).toBeUndefined();
      expect(await transact(increment('T1', token))).toBeUndefined();
      expect(await get('T1')).toEqual({ pk: 'T1', sk: 'HEAD', count: 1 });
      expect(await transact(increment('T1', crypto.randomUUID()))).toBeUndefined();
      expect(await get('T1')).toEqual({ pk: 'T1', sk: 'HEAD', count: 2 });
    });

    it('refuses the token while its transaction is being applied, so two sent at once apply once', async () => {
      const token = crypto.randomUUID();
      const answers = await Promise.all([transact(increment('T4', token)), transact(increment('T4', token))]);
      // The second is refused while the first is applied, or, once the SDK's retry finds it committed, answered so.
      const names = answers.map((answer) => (answer === undefined ? 'committed' : (answer as Error).name));
      for (const name of names) expect(['committed', 'TransactionInProgressException']).toContain(name);
      expect(await get('T4')).toEqual({ pk: 'T4', sk: 'HEAD', count: 1 });
    });

    it('refuses the token with other parameters, and applies nothing', async () => {
      const token = crypto.randomUUID();
      expect(await transact(increment('T2', token))).toBeUndefined();
      expect(await transact(increment('T2', token, 5))).toMatchObject({
        name: 'IdempotentParameterMismatchException',
      });
      expect(await get('T2')).toEqual({ pk: 'T2', sk: 'HEAD', count: 1 });
    });

    it('keeps no token of a cancelled transaction: sent again once its condition holds, it commits', async () => {
      const token = crypto.randomUUID();
      const guarded: TransactWriteCommand['input'] = {
        ClientRequestToken: token,
        TransactItems: [
          { Put: { TableName, Item: { pk: 'T3', sk: 'DONE' }, ConditionExpression: 'attribute_exists(pk)' } },
        ],
      };
      expect(await transact(guarded)).toBeInstanceOf(TransactionCanceledException);
      await store.send(new PutCommand({ TableName, Item: { pk: 'T3', sk: 'DONE', first: true } }));
      expect(await transact(guarded)).toBeUndefined();
      expect(await get('T3', 'DONE')).toEqual({ pk: 'T3', sk: 'DONE' });
    });
  });
});
