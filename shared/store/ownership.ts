import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Ownership } from '#shared/domain/subject';
import type { Entity } from '#shared/protocol/entity';
import { dynamo, tableName } from '#shared/store/dynamo';
import { directoryOwnerKey, serviceOwnerKey } from '#shared/store/keys';

/** Reads who owns a directory or service; undefined for organizations and for entities that do not exist. */
export async function getOwnership(subject: Entity): Promise<Ownership | undefined> {
  if (subject.type === 'org') return undefined;
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: subject.type === 'dir' ? directoryOwnerKey(subject.id) : serviceOwnerKey(subject.id),
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
