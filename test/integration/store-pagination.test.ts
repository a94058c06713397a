import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from '#test/support/runtime';

let service: TestRuntime;

beforeAll(async () => {
  service = await startTestRuntime();
});
afterAll(async () => {
  await service?.stop();
});

describe('queryAll', () => {
  it('follows LastEvaluatedKey until the partition is exhausted', async () => {
    const { dynamo, queryAll, tableName } = await import('#shared/store/dynamo');
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const partition = `PAGINATION#${Date.now()}`;
    await Promise.all(
      Array.from({ length: 23 }, (_, index) =>
        dynamo.send(
          new PutCommand({
            TableName: tableName,
            Item: { pk: partition, sk: `ITEM#${String(index).padStart(2, '0')}` },
          }),
        ),
      ),
    );
    const items = await queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': partition },
      // Pages of five make the loop run five times.
      Limit: 5,
    });
    expect(items.map((item) => item.sk)).toEqual(
      Array.from({ length: 23 }, (_, index) => `ITEM#${String(index).padStart(2, '0')}`),
    );
  });
});
