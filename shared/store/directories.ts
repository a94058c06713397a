import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DirectoryChanges, DirectoryRecord, SealedAndroidKey } from '#shared/domain/directory';
import { maxSdkKeysPerDirectory, maxServicesPerDirectory } from '#shared/domain/limits';
import { nameKey } from '#shared/domain/names';
import { isoSeconds } from '#shared/time';
import { batchGetAll, dynamo, isConditionalFailure, queryAll, tableName } from '#shared/store/dynamo';
import { deleteEntityHead, putEntityHead } from '#shared/store/heads';
import {
  directoryNameClaimKey,
  directoryRecordKey,
  directoryRecordPrefix,
  organizationKey,
  sdkKeyLookupKey,
} from '#shared/store/keys';
import { claimName, releaseName } from '#shared/store/name-claims';
import { updateExistingItem } from '#shared/store/update-expression';

/**
 * Creates a directory under its unique name. Returns false when the organization already has a directory of that name.
 * The name is claimed first and the record written last, so a create that dies half-way leaves only a claim that
 * `claimName` recognises as abandoned, and an unreachable head.
 */
export async function createDirectory(
  organizationId: string,
  directory: { readonly id: string; readonly name: string },
  now: Date,
): Promise<boolean> {
  const claim = directoryNameClaimKey(organizationId, nameKey(directory.name));
  const exists = async (directoryId: string) =>
    (await getDirectory(organizationId, directoryId)) !== undefined;
  if (!(await claimName(claim, directory.id, exists, now))) return false;
  const entity = { type: 'dir', id: directory.id } as const;
  try {
    await putEntityHead(entity, { organizationId });
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...directoryRecordKey(organizationId, directory.id),
          id: directory.id,
          name: directory.name,
          active: true,
          denialContextInquiryEnabled: true,
          created: isoSeconds(now),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    await Promise.allSettled([deleteEntityHead(entity), releaseName(claim, directory.id)]);
    throw error;
  }
  return true;
}

export async function getDirectory(
  organizationId: string,
  directoryId: string,
): Promise<DirectoryRecord | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: directoryRecordKey(organizationId, directoryId),
      ConsistentRead: true,
    }),
  );
  return Item ? directoryFromItem(Item) : undefined;
}

/** An organization's directories: one Query on its partition, however many there are. */
export async function listDirectories(organizationId: string): Promise<DirectoryRecord[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': organizationKey(organizationId).pk,
      ':prefix': directoryRecordPrefix,
    },
    ConsistentRead: true,
  });
  return items.map(directoryFromItem);
}

/**
 * The organization's directories among `directoryIds`, keyed by id. An id that is absent from the result is not a
 * directory of this organization, whether it exists elsewhere or not.
 */
export async function getDirectories(
  organizationId: string,
  directoryIds: readonly string[],
): Promise<Map<string, DirectoryRecord>> {
  const items = await batchGetAll(
    [...new Set(directoryIds)].map((id) => directoryRecordKey(organizationId, id)),
  );
  return new Map(items.map((item) => [item.id as string, directoryFromItem(item)]));
}

const directoryAttributes: Readonly<Record<keyof DirectoryChanges, string>> = {
  active: 'active',
  // A service account's description (a string), or a map holding the caller's own string sealed: one attribute, so
  // a directory never has both.
  androidKey: 'androidKey',
  iosCertificateFingerprint: 'iosCertificateFingerprint',
  denialContextInquiryEnabled: 'denialContextInquiryEnabled',
  webhookUrl: 'webhookUrl',
};

/** Applies the changes present; a null removes the attribute. Returns false when there is no such directory. */
export async function updateDirectory(
  organizationId: string,
  directoryId: string,
  changes: DirectoryChanges,
): Promise<boolean> {
  return updateExistingItem(directoryRecordKey(organizationId, directoryId), changes, directoryAttributes);
}

/**
 * Adds an SDK key to a directory unless it has `maxSdkKeysPerDirectory` already ('full'). The lookup the authenticator
 * uses is written first: a key is only ever valid once it is in the directory's set, so a lookup left by a failed add
 * points at nothing usable, and one whose add is refused is taken back.
 */
export async function addSdkKey(
  organizationId: string,
  directoryId: string,
  sdkKey: string,
): Promise<'added' | 'full'> {
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...sdkKeyLookupKey(sdkKey), organizationId, directoryId },
    }),
  );
  const outcome = await addToBoundedSet(
    organizationId,
    directoryId,
    'sdkKeys',
    sdkKey,
    maxSdkKeysPerDirectory,
  );
  if (outcome === 'full') {
    await dynamo.send(new DeleteCommand({ TableName: tableName, Key: sdkKeyLookupKey(sdkKey) }));
  }
  return outcome;
}

/** The directory an SDK key was issued for, from its lookup; the directory's own set says whether it still counts. */
export async function getSdkKeyDirectory(
  sdkKey: string,
): Promise<{ organizationId: string; directoryId: string } | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: sdkKeyLookupKey(sdkKey), ConsistentRead: true }),
  );
  return Item && { organizationId: Item.organizationId as string, directoryId: Item.directoryId as string };
}

/**
 * Removes an SDK key unless it is not the directory's (ORG-006) or its last (ORG-005): one conditional update decides,
 * so concurrent removals can never leave a directory without a key.
 */
export async function removeSdkKey(
  organizationId: string,
  directoryId: string,
  sdkKey: string,
): Promise<'removed' | 'not-a-member' | 'last'> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: directoryRecordKey(organizationId, directoryId),
        UpdateExpression: 'DELETE sdkKeys :key',
        ConditionExpression: 'contains(sdkKeys, :member) AND size(sdkKeys) > :one',
        ExpressionAttributeValues: { ':key': new Set([sdkKey]), ':member': sdkKey, ':one': 1 },
      }),
    );
  } catch (error) {
    if (!isConditionalFailure(error)) throw error;
    const directory = await getDirectory(organizationId, directoryId);
    return directory?.sdk_keys.includes(sdkKey) ? 'last' : 'not-a-member';
  }
  await dynamo.send(new DeleteCommand({ TableName: tableName, Key: sdkKeyLookupKey(sdkKey) }));
  return 'removed';
}

/** Adds a service to its directory's `service_ids` unless it has `maxServicesPerDirectory` already ('full'). */
export function addDirectoryService(
  organizationId: string,
  directoryId: string,
  serviceId: string,
): Promise<'added' | 'full'> {
  return addToBoundedSet(organizationId, directoryId, 'serviceIds', serviceId, maxServicesPerDirectory);
}

/**
 * Adds `member` to a string set of a directory's record unless the set holds `max` others: the count is checked by the
 * update itself, so concurrent adds cannot overshoot. Throws the conditional failure when there is no such directory.
 */
async function addToBoundedSet(
  organizationId: string,
  directoryId: string,
  attribute: 'sdkKeys' | 'serviceIds',
  member: string,
  max: number,
): Promise<'added' | 'full'> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName,
        Key: directoryRecordKey(organizationId, directoryId),
        UpdateExpression: 'ADD #set :member',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(#set) OR size(#set) < :max OR contains(#set, :value))',
        ExpressionAttributeNames: { '#set': attribute },
        ExpressionAttributeValues: { ':member': new Set([member]), ':value': member, ':max': max },
      }),
    );
    return 'added';
  } catch (error) {
    if (isConditionalFailure(error) && (await getDirectory(organizationId, directoryId))) return 'full';
    throw error;
  }
}

/** A directory from its record. */
export function directoryFromItem(item: Record<string, unknown>): DirectoryRecord {
  return {
    id: item.id as string,
    name: item.name as string,
    active: item.active as boolean,
    premium: false,
    service_ids: [...((item.serviceIds as Set<string> | undefined) ?? [])].sort(),
    sdk_keys: [...((item.sdkKeys as Set<string> | undefined) ?? [])].sort(),
    android_key: (item.androidKey as string | SealedAndroidKey | undefined) ?? null,
    ios_certificate_fingerprint: (item.iosCertificateFingerprint as string | undefined) ?? null,
    denial_context_inquiry_enabled: (item.denialContextInquiryEnabled as boolean | undefined) ?? true,
    webhook_url: (item.webhookUrl as string | undefined) ?? null,
  };
}
