import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { AbstractLevel, AbstractValueIterator } from 'abstract-level';
import dynalite from 'dynalite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineClientConfig } from '#infra/local/engines';
import { ensureTable } from '#infra/local/provision';
import { type EngineTable, startEngineTable } from '#test/support/engine-table';

/** Every LevelDB iterator the embedded store opens, and those it has closed. */
const opened = new Set<object>();
const closed = new Set<object>();
type Opening = (this: unknown, ...args: unknown[]) => object;

let table: EngineTable;
let store: DynamoDBDocumentClient;

beforeAll(async () => {
  const level = AbstractLevel.prototype as unknown as Record<'values' | 'keys' | 'iterator', Opening>;
  for (const method of ['values', 'keys', 'iterator'] as const) {
    const open = level[method];
    level[method] = function (...args) {
      const iterator = open.apply(this, args);
      opened.add(iterator);
      return iterator;
    };
  }
  const iterator = AbstractValueIterator.prototype as unknown as { close(): Promise<void> };
  const close = iterator.close;
  iterator.close = function (this: object) {
    closed.add(this);
    return close.call(this);
  };
  table = await startEngineTable('engines');
  store = table.store;
});
afterAll(async () => {
  await table?.close();
});

describe('the embedded DynamoDB engine', () => {
  it('closes every LevelDB iterator its reads open, so that a long run does not pin memory', async () => {
    const TableName = 'engines';
    for (let index = 0; index < 5; index++) {
      await store.send(new PutCommand({ TableName, Item: { pk: 'P', sk: `S${index}` } }));
    }
    for (let round = 0; round < 20; round++) {
      await store.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': 'P' },
          Limit: 2,
        }),
      );
      await store.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': 'P' },
        }),
      );
      await store.send(new GetCommand({ TableName, Key: { pk: 'P', sk: 'S1' } }));
      await store.send(
        new BatchGetCommand({ RequestItems: { [TableName]: { Keys: [{ pk: 'P', sk: 'S2' }] } } }),
      );
    }
    await sleep(50);
    const values = [...opened].filter((each) => each instanceof AbstractValueIterator);
    expect(values.length).toBeGreaterThan(20);
    expect(values.filter((each) => !closed.has(each))).toHaveLength(0);
  });
});

describe('provisioning the local table', () => {
  it('returns only once the table takes items, however long the engine spends creating it', async () => {
    const slow = dynalite({ createTableMs: 300 });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    const client = DynamoDBDocumentClient.from(new DynamoDBClient(engineClientConfig(endpoint)));
    try {
      await ensureTable(endpoint, 'slow');
      await client.send(new PutCommand({ TableName: 'slow', Item: { pk: 'P', sk: 'S' } }));
      const { Item } = await client.send(new GetCommand({ TableName: 'slow', Key: { pk: 'P', sk: 'S' } }));
      expect(Item).toEqual({ pk: 'P', sk: 'S' });
    } finally {
      client.destroy();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});
