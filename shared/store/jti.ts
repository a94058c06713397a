import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Entity } from '#shared/protocol/entity';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';
import { jtiKey } from '#shared/store/keys';

/**
 * Records a request's jti until `expiresAt` (epoch seconds). Returns false when it was already recorded and has not yet
 * expired, that is, when the request is a replay. An expired record that DynamoDB has not purged yet does not count.
 * The record carries a nonce of this attempt, which its condition accepts: when the store applied the put but its
 * answer was lost, the SDK sends the same put again and it succeeds, where a replay, with another nonce, is refused.
 */
export async function recordJti(
  issuer: Entity,
  jti: string,
  expiresAt: number,
  now: number,
): Promise<boolean> {
  const attempt = randomUUID();
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...jtiKey(issuer, jti), expiresAt, ttl: expiresAt, attempt },
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now OR #attempt = :attempt',
        ExpressionAttributeNames: { '#attempt': 'attempt' },
        ExpressionAttributeValues: { ':now': now, ':attempt': attempt },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}
