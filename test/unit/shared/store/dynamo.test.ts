import type { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { ApiError } from '#shared/errors';

process.env.TABLE_NAME ??= 'unit';

let store: typeof import('#shared/store/dynamo');
/** The document client's `send`, seen as taking the one command each test sends. */
type Send = (command: BatchGetCommand & QueryCommand) => Promise<unknown>;
let send: MockInstance<Send>;

beforeAll(async () => {
  store = await import('#shared/store/dynamo');
});
beforeEach(() => {
  send = vi.spyOn(store.dynamo, 'send');
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const key = (index: number) => ({ pk: `USER#${index}`, sk: 'HEAD' });

/** What one BatchGet answers: the items it read and the keys it left unprocessed. */
const batchAnswer = (read: object[], unprocessed: object[]) => ({
  Responses: { [store.tableName]: read },
  UnprocessedKeys: unprocessed.length > 0 ? { [store.tableName]: { Keys: unprocessed } } : {},
});

describe('batchGetAll', () => {
  it('retries unprocessed keys after growing waits and gathers every item', async () => {
    vi.useFakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const sentAt: number[] = [];
    const requested: unknown[] = [];
    const answers = [
      batchAnswer([key(1)], [key(2), key(3), key(4)]),
      batchAnswer([key(2)], [key(3), key(4)]),
      batchAnswer([key(3)], [key(4)]),
      batchAnswer([key(4)], []),
    ];
    send.mockImplementation(async (command) => {
      sentAt.push(Date.now());
      requested.push(command.input.RequestItems?.[store.tableName]?.Keys);
      return answers.shift();
    });

    const result = store.batchGetAll([key(1), key(2), key(3), key(4)]);
    await vi.runAllTimersAsync();

    expect(await result).toEqual([key(1), key(2), key(3), key(4)]);
    expect(requested).toEqual([
      [key(1), key(2), key(3), key(4)],
      [key(2), key(3), key(4)],
      [key(3), key(4)],
      [key(4)],
    ]);
    const waits = sentAt.slice(1).map((time, index) => time - (sentAt[index] as number));
    expect(waits).toEqual([50, 100, 200]);
  });

  it('fails with a 503 naming the keys still unprocessed after the last round', async () => {
    vi.useFakeTimers();
    send.mockImplementation(async () => {
      // A loop with no last round would never settle: stop it here so the test fails instead of hanging.
      if (send.mock.calls.length > 20) throw new Error('BatchGet retried without bound');
      return batchAnswer([key(1)], [key(2), key(3)]);
    });

    const failure = store.batchGetAll([key(1), key(2), key(3)]).then(
      () => undefined,
      (error: unknown) => error,
    );
    await vi.runAllTimersAsync();
    const error = await failure;

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      code: 'HTTP-503',
      detail: expect.stringContaining('left 2 keys unprocessed') as unknown,
    });
    expect(send).toHaveBeenCalledTimes(store.batchGetRounds);
  });

  it('reads keys in requests of 100', async () => {
    send.mockImplementation(async (command) =>
      batchAnswer(command.input.RequestItems?.[store.tableName]?.Keys ?? [], []),
    );
    const keys = Array.from({ length: 250 }, (_, index) => key(index));

    expect(await store.batchGetAll(keys)).toEqual(keys);
    expect(
      send.mock.calls.map(([command]) => command.input.RequestItems?.[store.tableName]?.Keys?.length),
    ).toEqual([100, 100, 50]);
  });
});

describe('queryAll', () => {
  it('follows LastEvaluatedKey page after page, keeping Limit as the page size', async () => {
    const pages = [
      { Items: [key(1), key(2)], LastEvaluatedKey: key(2) },
      { Items: [key(3), key(4)], LastEvaluatedKey: key(4) },
      { Items: [key(5)] },
    ];
    const inputs: unknown[] = [];
    send.mockImplementation(async (command) => {
      inputs.push({ ...command.input });
      return pages.shift();
    });

    const items = await store.queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'USERS' },
      Limit: 2,
    });

    expect(items).toEqual([key(1), key(2), key(3), key(4), key(5)]);
    expect(inputs).toEqual(
      [undefined, key(2), key(4)].map((startKey) => ({
        TableName: store.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'USERS' },
        Limit: 2,
        ExclusiveStartKey: startKey,
      })),
    );
  });

  it('sets no Limit unless the caller does', async () => {
    send.mockImplementation(async (command) => {
      expect(command.input.Limit).toBeUndefined();
      return { Items: [key(1)] };
    });

    expect(await store.queryAll({ KeyConditionExpression: 'pk = :pk' })).toEqual([key(1)]);
    expect(send).toHaveBeenCalledTimes(1);
  });
});
