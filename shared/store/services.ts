import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { nameSkeleton } from '#shared/domain/name-skeleton';
import { nameKey } from '#shared/domain/names';
import type { Service, ServiceChanges } from '#shared/domain/service';
import type { Entity } from '#shared/protocol/entity';
import { addDirectoryService } from '#shared/store/directories';
import { batchGetAll, dynamo, isConditionalFailure, queryAll, tableName } from '#shared/store/dynamo';
import { deleteEntityHead, getHead, type HeadItem, putEntityHead } from '#shared/store/heads';
import {
  entityHeadKey,
  entityPartition,
  type ItemKey,
  serviceNameClaimKey,
  serviceRecordKey,
  serviceRecordPrefix,
  serviceSkeletonClaimKey,
} from '#shared/store/keys';
import { claimName, releaseName } from '#shared/store/name-claims';
import { serviceFromHead } from '#shared/store/service-heads';
import { updateExpression } from '#shared/store/update-expression';

/**
 * A service lives in two items. Its head (`SVC#<id>`/`HEAD`) is the record: every read by id, and the signed
 * pipeline, which loads it with the service's keys, use it; it also holds the key set and the policy. A copy of the
 * listed fields in the owner's partition makes a directory's or an organization's services one Query. Writes go to the
 * head first; the copy is rewritten whole on each change, so a copy lost to a crash comes back with the next one.
 */
const serviceEntity = (serviceId: string): Entity => ({ type: 'svc', id: serviceId });

/** Whether the service a name claim names exists: its head is its record. */
const serviceExists = async (serviceId: string) => (await getHead(serviceEntity(serviceId))) !== undefined;

/**
 * What a service's name holds unique across all services: its comparison form and its look-alike form, in that order.
 * Services named before look-alikes were claimed hold only the first until `claimServiceSkeleton` runs for them.
 */
function nameClaims(name: string): readonly [ItemKey, ItemKey] {
  return [serviceNameClaimKey(nameKey(name)), serviceSkeletonClaimKey(nameSkeleton(name))];
}

const sameClaim = (a: ItemKey, b: ItemKey) => a.pk === b.pk && a.sk === b.sk;

/** Takes each claim in turn for `serviceId`; at the first another holds, gives back those it took and says false. */
async function claimAll(claims: readonly ItemKey[], serviceId: string, now: Date): Promise<boolean> {
  const taken: ItemKey[] = [];
  for (const claim of claims) {
    if (!(await claimName(claim, serviceId, serviceExists, now))) {
      await Promise.all(taken.map((held) => releaseName(held, serviceId)));
      return false;
    }
    taken.push(claim);
  }
  return true;
}

/**
 * Creates a service under its globally unique name: 'name-taken' when any service already has that name or one that
 * looks like it, 'full' when its directory has `maxServicesPerDirectory` services. Order: name claims, head, listing
 * copy, then the directory's `service_ids`, which decides the count; a refusal or a failure undoes what was written,
 * and a create that dies half-way leaves at most claims that `claimName` recognises as abandoned (its owner's head
 * does not exist).
 */
export async function createService(service: Service, now: Date): Promise<'created' | 'name-taken' | 'full'> {
  const claims = nameClaims(service.name);
  if (!(await claimAll(claims, service.id, now))) return 'name-taken';
  const entity = serviceEntity(service.id);
  const undo = () =>
    Promise.allSettled([
      deleteEntityHead(entity),
      deleteListing(service),
      ...claims.map((claim) => releaseName(claim, service.id)),
    ]);
  try {
    await putEntityHead(entity, toItem(service));
    await putListing(service);
    if (
      service.owner.type === 'dir' &&
      (await addDirectoryService(service.organizationId, service.owner.id, service.id)) === 'full'
    ) {
      await undo();
      return 'full';
    }
  } catch (error) {
    await undo();
    throw error;
  }
  return 'created';
}

/** A service by id, if `owner` owns it directly (its directory, or the organization for an Organization Service). */
export async function getService(owner: Entity, serviceId: string): Promise<Service | undefined> {
  const head = await getHead(serviceEntity(serviceId));
  return head ? ownedService(owner, head) : undefined;
}

/** A service from its head, if `owner` owns it directly. */
export function ownedService(owner: Entity, head: HeadItem): Service | undefined {
  const service = serviceFromHead(head);
  const directOwner = service.owner;
  return directOwner.type === owner.type && directOwner.id === owner.id ? service : undefined;
}

/** A directory's or an organization's services: one Query on the owner's partition, followed page by page. */
export async function listServices(owner: Entity): Promise<Service[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': entityPartition(owner), ':prefix': serviceRecordPrefix },
    ConsistentRead: true,
  });
  return items.map(serviceFromHead);
}

/** The owner's services among `serviceIds`, keyed by id; an id absent from the result is not the owner's. */
export async function getServices(
  owner: Entity,
  serviceIds: readonly string[],
): Promise<Map<string, Service>> {
  const heads = await batchGetAll([...new Set(serviceIds)].map((id) => entityHeadKey(serviceEntity(id))));
  const found = new Map<string, Service>();
  for (const head of heads) {
    const service = ownedService(owner, head);
    if (service) found.set(service.id, service);
  }
  return found;
}

const serviceAttributes: Readonly<Record<keyof ServiceChanges, string>> = {
  name: 'name',
  description: 'description',
  icon: 'icon',
  callbackUrl: 'callbackUrl',
  active: 'active',
};

/**
 * Applies the changes present. A new name's claims (each form that changed) are taken before the record changes and
 * the old ones released after, so two renames to one name, or to two that look alike, cannot both win. Returns
 * 'name-taken' or 'missing' instead of writing when those apply.
 */
export async function updateService(
  service: Service,
  changes: ServiceChanges,
  now: Date,
): Promise<'updated' | 'name-taken' | 'missing'> {
  const before = nameClaims(service.name);
  const after = changes.name === undefined ? before : nameClaims(changes.name);
  const changed = [0, 1].filter((index) => !sameClaim(before[index] as ItemKey, after[index] as ItemKey));
  const fresh = changed.map((index) => after[index] as ItemKey);
  if (!(await claimAll(fresh, service.id, now))) return 'name-taken';
  const release = (claims: readonly ItemKey[]) =>
    Promise.all(claims.map((claim) => releaseName(claim, service.id)));
  let updated: Service | undefined;
  try {
    updated = await updateHead(service.id, updateExpression(changes, serviceAttributes));
  } catch (error) {
    await release(fresh);
    throw error;
  }
  if (!updated) {
    await release(fresh);
    return 'missing';
  }
  await putListing(updated);
  await release(changed.map((index) => before[index] as ItemKey));
  return 'updated';
}

/**
 * Claims the look-alike form of a service named before look-alikes were claimed, which until then a new service
 * could take. Undefined once the service holds it; else the id of the service that does: both keep their names,
 * and neither form can be taken by a third.
 */
export async function claimServiceSkeleton(service: Service, now: Date): Promise<string | undefined> {
  const claim = nameClaims(service.name)[1];
  if (await claimName(claim, service.id, serviceExists, now)) return undefined;
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: claim, ConsistentRead: true }),
  );
  // Released since: try again.
  return Item ? (Item.ownerId as string) : claimServiceSkeleton(service, now);
}

/** Stores a service's policy (printed docs/protocol.md#policies form) on its head, or removes it with null. */
export async function setServicePolicy(
  serviceId: string,
  policy: Record<string, unknown> | null,
): Promise<boolean> {
  const update =
    policy === null
      ? { UpdateExpression: 'REMOVE #policy', ExpressionAttributeNames: { '#policy': 'policy' } }
      : {
          UpdateExpression: 'SET #policy = :policy',
          ExpressionAttributeNames: { '#policy': 'policy' },
          ExpressionAttributeValues: { ':policy': policy },
        };
  return (await updateHead(serviceId, update)) !== undefined;
}

async function updateHead(
  serviceId: string,
  update: ReturnType<typeof updateExpression>,
): Promise<Service | undefined> {
  if (!update) {
    const head = await getHead(serviceEntity(serviceId));
    return head ? serviceFromHead(head) : undefined;
  }
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: entityHeadKey(serviceEntity(serviceId)),
        ConditionExpression: 'attribute_exists(pk)',
        ReturnValues: 'ALL_NEW',
        ...update,
      }),
    );
    return Attributes ? serviceFromHead(Attributes) : undefined;
  } catch (error) {
    if (isConditionalFailure(error)) return undefined;
    throw error;
  }
}

async function putListing(service: Service): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...serviceRecordKey(service.owner, service.id), ...toItem(service) },
    }),
  );
}

async function deleteListing(service: Service): Promise<void> {
  await dynamo.send(
    new DeleteCommand({ TableName: tableName, Key: serviceRecordKey(service.owner, service.id) }),
  );
}

function toItem(service: Service): Record<string, unknown> {
  return {
    id: service.id,
    name: service.name,
    active: service.active,
    created: service.created,
    organizationId: service.organizationId,
    ...(service.owner.type === 'dir' ? { directoryId: service.owner.id } : {}),
    ...(service.description === null ? {} : { description: service.description }),
    ...(service.icon === null ? {} : { icon: service.icon }),
    ...(service.callbackUrl === null ? {} : { callbackUrl: service.callbackUrl }),
  };
}
