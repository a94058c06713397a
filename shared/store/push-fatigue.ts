import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  defaultCoolingOffSeconds,
  defaultDirectorySettings,
  type DirectorySettings,
  type RateLimit,
} from '#shared/domain/push-fatigue';
import { dynamo, isConditionalFailure, queryAll, tableName } from '#shared/store/dynamo';
import {
  directorySettingsKey,
  entityPartition,
  fraudLockKey,
  fraudLockPrefix,
  type ItemKey,
  rateCounterKey,
} from '#shared/store/keys';
import type { TableWrite } from '#shared/store/write-together';

export interface FraudLock {
  readonly identifier: string;
  /** Epoch seconds. */
  readonly lockedUntil: number;
}

/** What a create needs to know about a user before it claims the user's slot: the directory's settings and any lock. */
export interface RequestGuards {
  readonly settings: DirectorySettings;
  readonly lock: FraudLock | undefined;
}

/** The items a create reads for the guards, in the same batch as the user's. */
export const requestGuardKeys = (directoryId: string, identifier: string) => [
  directorySettingsKey(directoryId),
  fraudLockKey(directoryId, identifier),
];

/** The guards among the items a batch read returned. */
export function requestGuardsOf(
  items: readonly Record<string, unknown>[],
  directoryId: string,
  identifier: string,
): RequestGuards {
  const [settingsKey, lockKey] = requestGuardKeys(directoryId, identifier);
  const found = (key: ItemKey | undefined) =>
    items.find((item) => item.pk === key?.pk && item.sk === key?.sk);
  const settings = found(settingsKey);
  const lock = found(lockKey);
  return { settings: settingsFromItem(settings), lock: lock && lockFromItem(lock) };
}

export async function getDirectorySettings(directoryId: string): Promise<DirectorySettings> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: directorySettingsKey(directoryId), ConsistentRead: true }),
  );
  return settingsFromItem(Item);
}

/** Replaces the directory's settings. */
export async function putDirectorySettings(directoryId: string, settings: DirectorySettings): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...directorySettingsKey(directoryId),
        rateLimitCount: settings.rateLimit.count,
        rateLimitWindow: settings.rateLimit.windowSeconds,
        ...(settings.fraudLockSeconds === null ? {} : { fraudLockSeconds: settings.fraudLockSeconds }),
        // Kept only when off: an item written before the setting existed reads as on.
        ...(settings.webLinking ? {} : { webLinking: false }),
        ...(settings.deviceConfirmation ? {} : { deviceConfirmation: false }),
        // 0 stands for off: an item without it reads as the default.
        ...(settings.coolingOffSeconds === defaultCoolingOffSeconds
          ? {}
          : { coolingOffSeconds: settings.coolingOffSeconds ?? 0 }),
      },
    }),
  );
}

function settingsFromItem(item: Record<string, unknown> | undefined): DirectorySettings {
  if (!item) return defaultDirectorySettings;
  return {
    rateLimit: { count: item.rateLimitCount as number, windowSeconds: item.rateLimitWindow as number },
    fraudLockSeconds: (item.fraudLockSeconds as number | undefined) ?? null,
    webLinking: item.webLinking !== false,
    deviceConfirmation: item.deviceConfirmation !== false,
    coolingOffSeconds:
      item.coolingOffSeconds === undefined
        ? defaultCoolingOffSeconds
        : (item.coolingOffSeconds as number) || null,
  };
}

/**
 * Counts one request for a user in the window starting at `windowStart`, unless `limit.count` were counted already:
 * one conditional ADD decides, so concurrent creates can never overshoot. A write of the create's transaction, so a
 * request that is not made is not counted. The counter outlives its window briefly and is then purged.
 */
export function countUserRequestWrite(
  directoryId: string,
  identifier: string,
  limit: RateLimit,
  windowStart: number,
): TableWrite {
  return {
    Update: {
      TableName: tableName,
      Key: rateCounterKey(directoryId, identifier, windowStart),
      UpdateExpression: 'ADD #count :one SET #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': 'requests', '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':one': 1,
        ':limit': limit.count,
        ':ttl': windowStart + limit.windowSeconds + 3600,
      },
    },
  };
}

/** Locks a user until `lockedUntil`; a later lock extends an earlier one, never shortens it. */
export async function lockUser(directoryId: string, identifier: string, lockedUntil: number): Promise<void> {
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...fraudLockKey(directoryId, identifier),
          identifier,
          lockedUntil,
          ttl: lockedUntil + 86_400,
        },
        ConditionExpression: 'attribute_not_exists(lockedUntil) OR lockedUntil < :until',
        ExpressionAttributeValues: { ':until': lockedUntil },
      }),
    );
  } catch (error) {
    if (!isConditionalFailure(error)) throw error;
  }
}

/** The directory's locks, ended ones included until they are purged (callers compare with the time). */
export async function listFraudLocks(directoryId: string): Promise<FraudLock[]> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: {
      ':pk': entityPartition({ type: 'dir', id: directoryId }),
      ':prefix': fraudLockPrefix,
    },
    ConsistentRead: true,
  });
  return items.map(lockFromItem);
}

/** Removes a user's lock; false when there was none. */
export async function clearFraudLock(directoryId: string, identifier: string): Promise<boolean> {
  const { Attributes } = await dynamo.send(
    new DeleteCommand({
      TableName: tableName,
      Key: fraudLockKey(directoryId, identifier),
      ReturnValues: 'ALL_OLD',
    }),
  );
  return Attributes !== undefined;
}

function lockFromItem(item: Record<string, unknown>): FraudLock {
  return { identifier: item.identifier as string, lockedUntil: item.lockedUntil as number };
}
