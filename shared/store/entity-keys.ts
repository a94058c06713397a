import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { EntityKey, KeyType } from '#shared/domain/entity-key';
import { ApiError } from '#shared/errors';
import type { Entity } from '#shared/protocol/entity';
import { dynamo, isConditionalFailure, queryAll, tableName } from '#shared/store/dynamo';
import { entityKeyKey, entityKeyPrefix, entityPartition } from '#shared/store/keys';

/** Adds a public key to an entity; the same key twice on one entity is KEY-002. */
export async function putEntityKey(entity: Entity, key: EntityKey): Promise<void> {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...entityKeyKey(entity, key.kid),
          kid: key.kid,
          publicKey: key.publicKeyPem,
          keyType: key.keyType,
          active: key.active,
          created: key.created,
          expires: key.expires,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (isConditionalFailure(error)) throw new ApiError('KEY-002', `Key ${key.kid} is already registered`);
    throw error;
  }
}

/** All of an entity's keys in one strongly consistent Query: a deactivated key must stop working at once. */
export async function listEntityKeys(entity: Entity): Promise<EntityKey[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': entityPartition(entity), ':prefix': entityKeyPrefix },
    ConsistentRead: true,
  });
  return items.map((item) => ({
    kid: item.kid as string,
    publicKeyPem: item.publicKey as string,
    keyType: item.keyType as KeyType,
    active: item.active as boolean,
    created: item.created as string,
    expires: (item.expires as string | null | undefined) ?? null,
  }));
}
