import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  defaultCoolingOffSeconds,
  defaultDirectorySettings,
  type DirectorySettings,
  type RateLimit,
  requestAllowance,
  requestCounts,
  type StoredRequestCounts,
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

/**
 * What a create needs to know about a user before it claims the user's slot: the directory's settings, any lock, and
 * the user's request counter.
 */
export interface RequestGuards {
  readonly settings: DirectorySettings;
  readonly lock: FraudLock | undefined;
  readonly counts: StoredRequestCounts | undefined;
}

/** The items a create reads for the guards, in the same batch as the user's. */
export const requestGuardKeys = (directoryId: string, identifier: string) => [
  directorySettingsKey(directoryId),
  fraudLockKey(directoryId, identifier),
  rateCounterKey(directoryId, identifier),
];

/** The guards among the items a batch read returned. */
export function requestGuardsOf(
  items: readonly Record<string, unknown>[],
  directoryId: string,
  identifier: string,
): RequestGuards {
  const [settingsKey, lockKey, counterKey] = requestGuardKeys(directoryId, identifier);
  const found = (key: ItemKey | undefined) =>
    items.find((item) => item.pk === key?.pk && item.sk === key?.sk);
  const settings = found(settingsKey);
  const lock = found(lockKey);
  const counter = found(counterKey);
  return {
    settings: settingsFromItem(settings),
    lock: lock && lockFromItem(lock),
    counts: counter && countsFromItem(counter),
  };
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
        ...(settings.provenFactors ? { provenFactors: true } : {}),
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
    provenFactors: item.provenFactors === true,
    deviceConfirmation: item.deviceConfirmation !== false,
    coolingOffSeconds:
      item.coolingOffSeconds === undefined
        ? defaultCoolingOffSeconds
        : (item.coolingOffSeconds as number) || null,
  };
}

/**
 * Counts one request for a user, as a write of the create's transaction, so a request that is not made is not
 * counted; `stored` is the counter as the create read it, with the user. Within the counter's window one conditional
 * ADD decides against the allowance the previous window leaves (`requestAllowance`), so concurrent creates can never
 * overshoot. In a new window the counter starts over, keeping the count it had as the previous window's, on condition
 * that it is still as read: a create that raced it reads it again. Refuse before calling this when `mayRequest` says
 * no. The counter outlives the window after its own, where it still weighs, briefly, and is then purged.
 */
export function countUserRequestWrite(
  directoryId: string,
  identifier: string,
  limit: RateLimit,
  stored: StoredRequestCounts | undefined,
  nowSeconds: number,
): TableWrite {
  const counts = requestCounts(limit, stored, nowSeconds);
  const names = {
    '#start': 'windowStart',
    '#seconds': 'windowSeconds',
    '#requests': 'requests',
    '#ttl': 'ttl',
  };
  const common = {
    TableName: tableName,
    Key: rateCounterKey(directoryId, identifier),
  };
  const values = {
    ':start': counts.window.start,
    ':seconds': limit.windowSeconds,
    ':one': 1,
    ':ttl': counts.window.start + 2 * limit.windowSeconds + 3600,
  };
  if (stored?.windowStart === counts.window.start && stored.windowSeconds === limit.windowSeconds) {
    return {
      Update: {
        ...common,
        UpdateExpression: 'ADD #requests :one SET #ttl = :ttl',
        ConditionExpression: '#start = :start AND #seconds = :seconds AND #requests < :allowance',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ...values,
          ':allowance': requestAllowance(limit, counts.previous, nowSeconds),
        },
      },
    };
  }
  return {
    Update: {
      ...common,
      UpdateExpression:
        'SET #start = :start, #seconds = :seconds, #requests = :one, #previous = :previous, #ttl = :ttl',
      ConditionExpression: stored
        ? '#start = :readStart AND #seconds = :readSeconds AND #requests = :readRequests'
        : 'attribute_not_exists(#requests)',
      ExpressionAttributeNames: { ...names, '#previous': 'previousRequests' },
      ExpressionAttributeValues: {
        ...values,
        ':previous': counts.previous,
        ...(stored
          ? {
              ':readStart': stored.windowStart,
              ':readSeconds': stored.windowSeconds,
              ':readRequests': stored.requests,
            }
          : {}),
      },
    },
  };
}

/** The user's counter, read again after a create's count failed its condition. */
export async function getRequestCounts(
  directoryId: string,
  identifier: string,
): Promise<StoredRequestCounts | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: rateCounterKey(directoryId, identifier),
      ConsistentRead: true,
    }),
  );
  return Item && countsFromItem(Item);
}

function countsFromItem(item: Record<string, unknown>): StoredRequestCounts {
  return {
    windowStart: item.windowStart as number,
    windowSeconds: item.windowSeconds as number,
    requests: item.requests as number,
    previousRequests: (item.previousRequests as number | undefined) ?? 0,
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
