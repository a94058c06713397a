import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { EntityKey, KeyType } from '#shared/domain/entity-key';
import { ApiError } from '#shared/errors';
import type { Entity } from '#shared/protocol/entity';
import { dynamo, isConditionalFailure, queryAll, tableName } from '#shared/store/dynamo';
import { forgetKey, type HeadItem, rememberKey } from '#shared/store/heads';
import { entityKeyKey, entityKeyPrefix, entityPartition, headAndKeysRange } from '#shared/store/keys';
import { updateExistingItem } from '#shared/store/update-expression';

/**
 * Adds a public key to an entity and its key set; the same key twice on one entity is KEY-002. The key's item is
 * written first and taken back when the set is full ('full'), so the set decides, and of concurrent adds to an entity
 * one key short of its limit exactly one stays.
 */
export async function putEntityKey(entity: Entity, key: EntityKey): Promise<'added' | 'full'> {
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
          ...(key.expires === null ? {} : { expires: key.expires }),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (isConditionalFailure(error)) throw new ApiError('KEY-002', `Key ${key.kid} is already registered`);
    throw error;
  }
  if ((await rememberKey(entity, key.kid)) === 'remembered') return 'added';
  await deleteKeyItem(entity, key.kid);
  return 'full';
}

/**
 * An entity's keys and its head in one strongly consistent Query: a deactivated key must stop working at once, and the
 * signed pipeline needs the head of the entity it authenticates.
 */
export async function listEntityKeysAndHead(
  entity: Entity,
): Promise<{ keys: EntityKey[]; head: HeadItem | undefined }> {
  const range = headAndKeysRange(entity);
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': range.pk, ':from': range.from, ':to': range.to },
    ConsistentRead: true,
  });
  const head = items.find((item) => item.sk === 'HEAD');
  return { keys: items.filter((item) => item !== head).map(toEntityKey), head };
}

/** All of an entity's keys in one strongly consistent Query. */
export async function listEntityKeys(entity: Entity): Promise<EntityKey[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': entityPartition(entity), ':prefix': entityKeyPrefix },
    ConsistentRead: true,
  });
  return items.map(toEntityKey);
}

export async function getEntityKey(entity: Entity, kid: string): Promise<EntityKey | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: entityKeyKey(entity, kid), ConsistentRead: true }),
  );
  return Item ? toEntityKey(Item) : undefined;
}

/** Changes `active` and `expires` of a key; returns false when the entity has no such key. */
export async function updateEntityKey(
  entity: Entity,
  kid: string,
  changes: { readonly active?: boolean; readonly expires?: string | null },
): Promise<boolean> {
  return updateExistingItem(entityKeyKey(entity, kid), changes, { active: 'active', expires: 'expires' });
}

/**
 * Removes a key unless it is unknown (KEY-003) or the entity's last (KEY-004). The key leaves the entity's key set
 * first, conditionally, then its item goes: concurrent removals cannot leave an entity without keys. A key whose item
 * exists but that the set lacks (a process died between the two writes of an add) is put back in the set first.
 */
export async function removeEntityKey(entity: Entity, kid: string): Promise<'removed' | 'unknown' | 'last'> {
  if (!(await getEntityKey(entity, kid))) return 'unknown';
  let outcome = await forgetKey(entity, kid);
  if (outcome === 'not-a-member') {
    // A full set holds others, so a key left outside it is not the last and can simply go.
    if ((await rememberKey(entity, kid)) === 'full')
      return (await deleteKeyItem(entity, kid)) ? 'removed' : 'unknown';
    outcome = await forgetKey(entity, kid);
  }
  if (outcome === 'last') return 'last';
  if (outcome === 'not-a-member') return 'unknown';
  return (await deleteKeyItem(entity, kid)) ? 'removed' : 'unknown';
}

/** Deletes a key's item; false when it was already gone. */
async function deleteKeyItem(entity: Entity, kid: string): Promise<boolean> {
  try {
    await dynamo.send(
      new DeleteCommand({
        TableName: tableName,
        Key: entityKeyKey(entity, kid),
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

function toEntityKey(item: Record<string, unknown>): EntityKey {
  return {
    kid: item.kid as string,
    publicKeyPem: item.publicKey as string,
    keyType: item.keyType as KeyType,
    active: item.active as boolean,
    created: item.created as string,
    expires: (item.expires as string | undefined) ?? null,
  };
}
