import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { maxKeysPerEntity } from '#shared/domain/limits';
import type { Ownership } from '#shared/domain/subject';
import type { Entity } from '#shared/protocol/entity';
import { dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';
import { entityHeadKey } from '#shared/store/keys';

/**
 * An entity's head item as stored: it says the entity exists, who owns it, which keys it has, and for services and
 * devices everything the signed pipeline needs to know about them without another read.
 */
export type HeadItem = Readonly<Record<string, unknown>>;

/** Writes the head of a new entity; its key set starts empty (absent). */
export async function putEntityHead(
  entity: Entity,
  attributes: Readonly<Record<string, unknown>>,
): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...entityHeadKey(entity), ...attributes },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/**
 * Sets a device's link state on its head (and drops the purge time an unconfirmed link's head carries); false when the
 * device has no head (unlinked or refused meanwhile).
 */
export async function setDeviceHeadStatus(deviceId: string, status: number): Promise<boolean> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: entityHeadKey({ type: 'dev', id: deviceId }),
        UpdateExpression: 'SET #status = :status REMOVE #ttl',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':status': status },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

export async function deleteEntityHead(entity: Entity): Promise<void> {
  await dynamo.send(new DeleteCommand({ TableName: tableName, Key: entityHeadKey(entity) }));
}

export async function getHead(entity: Entity): Promise<HeadItem | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: entityHeadKey(entity), ConsistentRead: true }),
  );
  return Item;
}

/** Who owns a directory, service or device, from its head. */
export function ownershipOf(head: HeadItem | undefined): Ownership | undefined {
  if (!head || typeof head.organizationId !== 'string') return undefined;
  return {
    organizationId: head.organizationId,
    ...(typeof head.directoryId === 'string' ? { directoryId: head.directoryId } : {}),
  };
}

/**
 * Records a key in its entity's key set, the membership that guards against removing the last key, unless the set
 * already holds `maxKeysPerEntity` others ('full'): one conditional update decides, so concurrent adds cannot
 * overshoot. A key already in the set is recorded again whatever the count.
 */
export async function rememberKey(entity: Entity, kid: string): Promise<'remembered' | 'full'> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: entityHeadKey(entity),
        UpdateExpression: 'ADD kids :kid',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(kids) OR size(kids) < :max OR contains(kids, :member))',
        ExpressionAttributeValues: { ':kid': new Set([kid]), ':member': kid, ':max': maxKeysPerEntity },
      }),
    );
    return 'remembered';
  } catch (error) {
    if (isConditionalFailure(error) && (await getHead(entity))) return 'full';
    throw error;
  }
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
  const head = await getHead(entity);
  return (head?.kids as Set<string> | undefined)?.has(kid) ? 'last' : 'not-a-member';
}
