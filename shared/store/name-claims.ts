import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';
import type { ItemKey } from '#shared/store/keys';

/** A claim older than this whose owner never came to exist was left by a create that died half-way. */
const abandonedAfterMs = 60_000;

/**
 * Claims a unique name for `ownerId` with a conditional write: of any number of concurrent claims exactly one wins.
 * A claim whose owner does not exist (its create died after claiming) is taken over once it is old enough, so a crash
 * never blocks a name for good. Returns false when the name belongs to someone else.
 */
export async function claimName(
  claim: ItemKey,
  ownerId: string,
  ownerExists: (ownerId: string) => Promise<boolean>,
  now: Date,
): Promise<boolean> {
  const item = { ...claim, ownerId, claimedAt: now.getTime() };
  try {
    await dynamo.send(
      new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return true;
  } catch (error) {
    if (!isConditionalFailure(error)) throw error;
  }
  const { Item: existing } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: claim, ConsistentRead: true }),
  );
  if (!existing) return claimName(claim, ownerId, ownerExists, now);
  const holder = existing.ownerId as string;
  if (holder === ownerId) return true;
  if (now.getTime() - (existing.claimedAt as number) < abandonedAfterMs || (await ownerExists(holder)))
    return false;
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: item,
        ConditionExpression: 'ownerId = :abandoned',
        ExpressionAttributeValues: { ':abandoned': holder },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/** Releases a claim, but only if `ownerId` still holds it. */
export async function releaseName(claim: ItemKey, ownerId: string): Promise<void> {
  try {
    await dynamo.send(
      new DeleteCommand({
        TableName: tableName,
        Key: claim,
        ConditionExpression: 'ownerId = :owner',
        ExpressionAttributeValues: { ':owner': ownerId },
      }),
    );
  } catch (error) {
    if (!isConditionalFailure(error)) throw error;
  }
}
