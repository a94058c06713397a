import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { nameKey } from '#shared/domain/names';
import type { Service, ServiceChanges } from '#shared/domain/service';
import type { Entity } from '#shared/protocol/entity';
import { addDirectoryService } from '#shared/store/directories';
import { batchGetAll, dynamo, queryAll, tableName } from '#shared/store/dynamo';
import { deleteEntityHead, getOwnership, putEntityHead } from '#shared/store/heads';
import {
  entityPartition,
  serviceNameClaimKey,
  serviceRecordKey,
  serviceRecordPrefix,
} from '#shared/store/keys';
import { claimName, releaseName } from '#shared/store/name-claims';
import { updateExistingItem } from '#shared/store/update-expression';

/** Whether a service of this id exists anywhere: its head names the partition its record lives in. */
async function serviceExists(serviceId: string): Promise<boolean> {
  const ownership = await getOwnership({ type: 'svc', id: serviceId });
  if (!ownership) return false;
  const owner: Entity = ownership.directoryId
    ? { type: 'dir', id: ownership.directoryId }
    : { type: 'org', id: ownership.organizationId };
  return (await getService(owner, serviceId)) !== undefined;
}

/**
 * Creates a service under its globally unique name. Returns false when any service already has that name. Order:
 * name claim, head, record, then the directory's `service_ids`; a failure undoes what was written, and a create that
 * dies half-way leaves at most a claim that `claimName` recognises as abandoned.
 */
export async function createService(service: Service, now: Date): Promise<boolean> {
  const claim = serviceNameClaimKey(nameKey(service.name));
  if (!(await claimName(claim, service.id, serviceExists, now))) return false;
  const entity = { type: 'svc', id: service.id } as const;
  const directoryId = service.owner.type === 'dir' ? service.owner.id : undefined;
  try {
    await putEntityHead(entity, {
      organizationId: service.organizationId,
      ...(directoryId === undefined ? {} : { directoryId }),
    });
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...serviceRecordKey(service.owner, service.id), ...toItem(service) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    if (directoryId !== undefined) await addDirectoryService(service.organizationId, directoryId, service.id);
  } catch (error) {
    await Promise.allSettled([deleteEntityHead(entity), releaseName(claim, service.id)]);
    throw error;
  }
  return true;
}

export async function getService(owner: Entity, serviceId: string): Promise<Service | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: serviceRecordKey(owner, serviceId), ConsistentRead: true }),
  );
  return Item ? toService(owner, Item) : undefined;
}

/** A directory's or an organization's services: one Query on the owner's partition, followed page by page. */
export async function listServices(owner: Entity): Promise<Service[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': entityPartition(owner), ':prefix': serviceRecordPrefix },
    ConsistentRead: true,
  });
  return items.map((item) => toService(owner, item));
}

/** The owner's services among `serviceIds`, keyed by id; an id absent from the result is not the owner's. */
export async function getServices(
  owner: Entity,
  serviceIds: readonly string[],
): Promise<Map<string, Service>> {
  const items = await batchGetAll([...new Set(serviceIds)].map((id) => serviceRecordKey(owner, id)));
  return new Map(items.map((item) => [item.id as string, toService(owner, item)]));
}

const serviceAttributes: Readonly<Record<keyof ServiceChanges, string>> = {
  name: 'name',
  description: 'description',
  icon: 'icon',
  callbackUrl: 'callbackUrl',
  active: 'active',
};

/**
 * Applies the changes present. A new name is claimed before the record changes and the old claim released after, so
 * two renames to one name cannot both win. Returns 'name-taken' or 'missing' instead of writing when those apply.
 */
export async function updateService(
  service: Service,
  changes: ServiceChanges,
  now: Date,
): Promise<'updated' | 'name-taken' | 'missing'> {
  const renaming = changes.name !== undefined && nameKey(changes.name) !== nameKey(service.name);
  const newClaim = renaming ? serviceNameClaimKey(nameKey(changes.name)) : undefined;
  if (newClaim && !(await claimName(newClaim, service.id, serviceExists, now))) return 'name-taken';
  let updated: boolean;
  try {
    updated = await updateExistingItem(
      serviceRecordKey(service.owner, service.id),
      changes,
      serviceAttributes,
    );
  } catch (error) {
    if (newClaim) await releaseName(newClaim, service.id);
    throw error;
  }
  if (!updated) {
    if (newClaim) await releaseName(newClaim, service.id);
    return 'missing';
  }
  if (newClaim) await releaseName(serviceNameClaimKey(nameKey(service.name)), service.id);
  return 'updated';
}

function toItem(service: Service): Record<string, unknown> {
  return {
    id: service.id,
    name: service.name,
    active: service.active,
    created: service.created,
    organizationId: service.organizationId,
    ...(service.description === null ? {} : { description: service.description }),
    ...(service.icon === null ? {} : { icon: service.icon }),
    ...(service.callbackUrl === null ? {} : { callbackUrl: service.callbackUrl }),
  };
}

function toService(owner: Entity, item: Record<string, unknown>): Service {
  return {
    id: item.id as string,
    name: item.name as string,
    description: (item.description as string | undefined) ?? null,
    icon: (item.icon as string | undefined) ?? null,
    callbackUrl: (item.callbackUrl as string | undefined) ?? null,
    active: item.active as boolean,
    created: item.created as string,
    owner,
    organizationId: item.organizationId as string,
  };
}
