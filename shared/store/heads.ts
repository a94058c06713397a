import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Ownership } from '#shared/domain/subject';
import type { Entity } from '#shared/protocol/entity';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';
import { entityHeadKey } from '#shared/store/keys';

/** Writes the head of a new directory or service: who owns it; its key set starts empty (absent). */
export async function putEntityHead(entity: Entity, ownership: Ownership): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...entityHeadKey(entity), ...ownership },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

export async function deleteEntityHead(entity: Entity): Promise<void> {
  await dynamo.send(new DeleteCommand({ TableName: tableName, Key: entityHeadKey(entity) }));
}

/** Who owns a directory or service; undefined for organizations and for entities that do not exist. */
export async function getOwnership(subject: Entity): Promise<Ownership | undefined> {
  if (subject.type === 'org') return undefined;
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: entityHeadKey(subject),
      ProjectionExpression: 'organizationId, directoryId',
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  return {
    organizationId: Item.organizationId as string,
    ...(Item.directoryId ? { directoryId: Item.directoryId as string } : {}),
  };
}

/** Records a key in its entity's key set, the membership that guards against removing the last key. */
export async function rememberKey(entity: Entity, kid: string): Promise<void> {
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName,
      Key: entityHeadKey(entity),
      UpdateExpression: 'ADD kids :kid',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':kid': new Set([kid]) },
    }),
  );
}

/**
 * Takes a key out of its entity's key set unless it is the last one. One conditional update decides, so concurrent
 * removals can never leave an entity without keys. 'not-a-member' means the set does not hold the key.
 */
export async function forgetKey(entity: Entity, kid: string): Promise<'forgotten' | 'last' | 'not-a-member'> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: entityHeadKey(entity),
        UpdateExpression: 'DELETE kids :kid',
        ConditionExpression: 'contains(kids, :member) AND size(kids) > :one',
        ExpressionAttributeValues: { ':kid': new Set([kid]), ':member': kid, ':one': 1 },
      }),
    );
    return 'forgotten';
  } catch (error) {
    if (!isConditionalFailure(error)) throw error;
  }
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: entityHeadKey(entity),
      ProjectionExpression: 'kids',
      ConsistentRead: true,
    }),
  );
  return (Item?.kids as Set<string> | undefined)?.has(kid) ? 'last' : 'not-a-member';
}
