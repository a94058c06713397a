import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';
import { type ItemKey, linkCodeKey } from '#shared/store/keys';

/**
 * Counts one attempt on a window's counter unless `limit` are counted already: one conditional ADD decides, so
 * concurrent attempts can never overshoot. False when the limit is reached. The counter outlives its window briefly
 * and is then purged.
 */
export async function countAttempt(key: ItemKey, limit: number, windowEnd: number): Promise<boolean> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'ADD #count :one SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
        ExpressionAttributeNames: { '#count': 'attempts', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': windowEnd + 3600 },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/** Gives back an attempt `countAttempt` counted: it did not fail. */
export async function uncountAttempt(key: ItemKey): Promise<void> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'ADD #count :minusOne',
        ConditionExpression: '#count > :zero',
        ExpressionAttributeNames: { '#count': 'attempts' },
        ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
      }),
    );
  } catch (error) {
    // Purged meanwhile: nothing left to give back.
    if (!isConditionalFailure(error)) throw error;
  }
}

/**
 * Counts a wrong presentation of a linking code that is still valid, and uses the code up at the `limit`th: one ADD
 * decides which attempt that is. Nothing happens to a code that is gone.
 */
export async function countCodeRefusal(code: string, limit: number, nowSeconds: number): Promise<void> {
  let refusals: number;
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: linkCodeKey(code),
        UpdateExpression: 'ADD refusals :one',
        ConditionExpression: 'expiresAt > :now',
        ExpressionAttributeValues: { ':one': 1, ':now': nowSeconds },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    refusals = Attributes?.refusals as number;
  } catch (error) {
    if (isConditionalFailure(error)) return;
    throw error;
  }
  if (refusals >= limit)
    await dynamo.send(new DeleteCommand({ TableName: tableName, Key: linkCodeKey(code) }));
}
