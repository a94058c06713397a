import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { maxDevicesPerUser, maxSessionsPerUser } from '#shared/domain/limits';
import {
  type DeviceLastAnswer,
  DeviceStatus,
  type PendingConfirmation,
  type PendingSlot,
  type StoredTotp,
  type User,
  type UserDevice,
  type UserKey,
  type UserSession,
} from '#shared/domain/user';
import type { DirectoryRecord } from '#shared/domain/directory';
import type { PasskeyChallenge, StoredPasskey } from '#shared/domain/passkey';
import type { PushChannel } from '#shared/push/channel';
import { directoryFromItem } from '#shared/store/directories';
import { batchGetAll, dynamo, isConditionalFailure, tableName } from '#shared/store/dynamo';
import { type RequestGuards, requestGuardKeys, requestGuardsOf } from '#shared/store/push-fatigue';
import {
  directoryRecordKey,
  directoryRecordPrefix,
  organizationKey,
  organizationUserIndexKey,
  organizationUserIndexPrefix,
  userHeadKey,
  userRecordKey,
} from '#shared/store/keys';
import type { TableWrite } from '#shared/store/write-together';

/**
 * A directory user is one item under its directory, keyed by the implementer's identifier: its devices, sessions,
 * pending slot and TOTP all live on it, so an authorization request reads one item and claims the slot with one
 * conditional update. A head by user id and an organization index make it findable from a device and from an
 * Organization Service.
 */
const identifierHash = (identifier: string) => createHash('sha256').update(identifier).digest('hex');

/**
 * A directory and one of its users in one round trip: what an authorization request needs to read. With
 * `withRequestGuards`, the directory's settings and the user's lock come in the same round trip, for a create.
 */
export async function getDirectoryAndUser(
  organizationId: string,
  key: UserKey,
  withRequestGuards = false,
): Promise<{ directory: DirectoryRecord | undefined; user: User | undefined; guards?: RequestGuards }> {
  const items = await batchGetAll([
    directoryRecordKey(organizationId, key.directoryId),
    userRecordKey(key.directoryId, key.identifier),
    ...(withRequestGuards ? requestGuardKeys(key.directoryId, key.identifier) : []),
  ]);
  const directory = items.find((item) => (item.sk as string).startsWith(directoryRecordPrefix));
  const user = items.find((item) => (item.sk as string).startsWith('USER#'));
  return {
    directory: directory && directoryFromItem(directory),
    user: user && toUser(user),
    ...(withRequestGuards ? { guards: requestGuardsOf(items, key.directoryId, key.identifier) } : {}),
  };
}

export async function getUser(key: UserKey): Promise<User | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName,
      Key: userRecordKey(key.directoryId, key.identifier),
      ConsistentRead: true,
    }),
  );
  return Item ? toUser(Item) : undefined;
}

/** Where a user's record is, from the user's id. */
export async function getUserKey(userId: string): Promise<UserKey | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName, Key: userHeadKey(userId), ConsistentRead: true }),
  );
  return Item
    ? { directoryId: Item.directoryId as string, identifier: Item.identifier as string }
    : undefined;
}

/** The directories of an organization that have a user with this identifier. */
export async function findUserDirectories(organizationId: string, identifier: string): Promise<string[]> {
  const { Items = [] } = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': organizationKey(organizationId).pk,
        ':prefix': organizationUserIndexPrefix(identifierHash(identifier)),
      },
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => item.directoryId as string);
}

/**
 * The user, created if the directory has none by that identifier yet. Index and head are written before the record,
 * which is what makes a user exist, so a create that dies half-way leaves only pointers to a user nobody can see.
 */
export async function ensureUser(
  organizationId: string,
  key: UserKey,
  userId: string,
  now: Date,
): Promise<{ user: User; created: boolean }> {
  const existing = await getUser(key);
  if (existing) return { user: existing, created: false };
  const created = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  await dynamo.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...organizationUserIndexKey(organizationId, identifierHash(key.identifier), key.directoryId),
        directoryId: key.directoryId,
      },
    }),
  );
  await dynamo.send(new PutCommand({ TableName: tableName, Item: { ...userHeadKey(userId), ...key } }));
  const item = {
    ...userRecordKey(key.directoryId, key.identifier),
    userId,
    identifier: key.identifier,
    directoryId: key.directoryId,
    organizationId,
    created,
    devices: {},
    sessions: {},
  };
  try {
    await dynamo.send(
      new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return { user: toUser(item), created: true };
  } catch (error) {
    if (!isConditionalFailure(error)) throw error;
    // Someone created the same user meanwhile: theirs wins.
    const winner = await getUser(key);
    if (!winner) throw error;
    return { user: winner, created: false };
  }
}

interface UserUpdate {
  UpdateExpression: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** A conditional update of a user's record, which must exist. */
function userUpdate(key: UserKey, update: UserUpdate) {
  return {
    TableName: tableName,
    Key: userRecordKey(key.directoryId, key.identifier),
    ...update,
    ConditionExpression: update.ConditionExpression
      ? `attribute_exists(pk) AND (${update.ConditionExpression})`
      : 'attribute_exists(pk)',
  };
}

/** Runs one conditional update on a user's record; false when the condition fails. */
async function updateUser(key: UserKey, update: UserUpdate): Promise<boolean> {
  try {
    await dynamo.send(new UpdateCommand(userUpdate(key, update)));
    return true;
  } catch (error) {
    if (isConditionalFailure(error)) return false;
    throw error;
  }
}

/**
 * Adds a device to the user's record unless the user has `maxDevicesPerUser` already ('full'); the count is checked by
 * the update itself, so concurrent links cannot overshoot. 'missing' when there is no such user.
 */
export async function putUserDevice(key: UserKey, device: UserDevice): Promise<'added' | 'full' | 'missing'> {
  const added = await updateUser(key, {
    UpdateExpression: 'SET devices.#device = :device',
    ConditionExpression: 'attribute_not_exists(devices) OR size(devices) < :max',
    ExpressionAttributeNames: { '#device': device.id },
    ExpressionAttributeValues: { ':device': device, ':max': maxDevicesPerUser },
  });
  return added ? 'added' : fullOrMissing(key);
}

/** Devices removed by one update: each brings a condition of about 110 characters, and an expression may have 4 KB. */
const devicesPerSweep = 25;

/**
 * Removes the named LINK_PENDING devices whose linking code expired by `nowSeconds`. Each is removed only while it
 * still is pending and expired, so a device that linked meanwhile stays; one already gone is no obstacle.
 */
export async function removeExpiredLinks(
  key: UserKey,
  deviceIds: readonly string[],
  nowSeconds: number,
): Promise<void> {
  for (let start = 0; start < deviceIds.length; start += devicesPerSweep) {
    const batch = deviceIds.slice(start, start + devicesPerSweep);
    const names = Object.fromEntries(batch.map((id, index) => [`#d${index}`, id]));
    await updateUser(key, {
      UpdateExpression: `REMOVE ${batch.map((_, index) => `devices.#d${index}`).join(', ')}`,
      ConditionExpression: batch
        .map(
          (_, index) =>
            `(attribute_not_exists(devices.#d${index}) OR (devices.#d${index}.#status = :pending AND devices.#d${index}.#expires <= :now))`,
        )
        .join(' AND '),
      ExpressionAttributeNames: { ...names, '#status': 'status', '#expires': 'linkExpiresAt' },
      ExpressionAttributeValues: { ':pending': DeviceStatus.linkPending, ':now': nowSeconds },
    });
  }
}

/**
 * Marks a pending device linked with what it said about itself; false when the device is no longer the user's. Its
 * code's expiry goes: a linked device is never removed to make room. With `answersFrom`, it is not offered requests
 * before then (the cooling-off after an unlink).
 */
export function markDeviceLinked(
  key: UserKey,
  deviceId: string,
  details: {
    name: string | null;
    type: string | null;
    status: DeviceStatus;
    updated: string;
    answersFrom?: number;
  },
): Promise<boolean> {
  const hold = details.answersFrom === undefined ? '' : ', devices.#device.answersFrom = :answersFrom';
  return updateUser(key, {
    UpdateExpression: `SET devices.#device.#name = :name, devices.#device.#type = :type, devices.#device.#status = :status, devices.#device.updated = :updated${hold} REMOVE devices.#device.linkExpiresAt`,
    ConditionExpression: 'attribute_exists(devices.#device)',
    ExpressionAttributeNames: { '#device': deviceId, '#name': 'name', '#type': 'type', '#status': 'status' },
    ExpressionAttributeValues: {
      ':name': details.name,
      ':type': details.type,
      ':status': details.status,
      ':updated': details.updated,
      ...(details.answersFrom === undefined ? {} : { ':answersFrom': details.answersFrom }),
    },
  });
}

/**
 * Keeps a device that presented its code LINK_PENDING, waiting for confirmation until `confirmation.expiresAt`, which
 * is also when it may be removed to make room; false when the device is no longer the user's pending one.
 */
export function markDeviceAwaitingConfirmation(
  key: UserKey,
  deviceId: string,
  details: { name: string | null; type: string | null; updated: string },
  confirmation: PendingConfirmation,
): Promise<boolean> {
  return updateUser(key, {
    UpdateExpression:
      'SET devices.#device.#name = :name, devices.#device.#type = :type, devices.#device.updated = :updated, devices.#device.confirmation = :confirmation, devices.#device.linkExpiresAt = :expires',
    ConditionExpression:
      'devices.#device.#status = :pending AND attribute_not_exists(devices.#device.confirmation)',
    ExpressionAttributeNames: { '#device': deviceId, '#name': 'name', '#type': 'type', '#status': 'status' },
    ExpressionAttributeValues: {
      ':name': details.name,
      ':type': details.type,
      ':updated': details.updated,
      ':confirmation': confirmation,
      ':expires': confirmation.expiresAt,
      ':pending': DeviceStatus.linkPending,
    },
  });
}

/**
 * Confirms a link that waits for confirmation: the device becomes LINKED. With `nowSeconds`, only while the
 * confirmation has not expired (a device's approval); without, whenever it still waits (the operator's override).
 * One conditional update, so of an approval and a refusal racing exactly one decides; false when it lost or is gone.
 */
export function confirmPendingDevice(
  key: UserKey,
  deviceId: string,
  updated: string,
  nowSeconds?: number,
): Promise<boolean> {
  return updateUser(key, {
    UpdateExpression:
      'SET devices.#device.#status = :linked, devices.#device.updated = :updated REMOVE devices.#device.confirmation, devices.#device.linkExpiresAt',
    ConditionExpression: `devices.#device.#status = :pending AND attribute_exists(devices.#device.confirmation)${nowSeconds === undefined ? '' : ' AND devices.#device.confirmation.expiresAt > :now'}`,
    ExpressionAttributeNames: { '#device': deviceId, '#status': 'status' },
    ExpressionAttributeValues: {
      ':linked': DeviceStatus.linked,
      ':pending': DeviceStatus.linkPending,
      ':updated': updated,
      ...(nowSeconds === undefined ? {} : { ':now': nowSeconds }),
    },
  });
}

/** Removes a device that waits for confirmation (refused); false when it no longer waits. */
export function removePendingConfirmation(key: UserKey, deviceId: string): Promise<boolean> {
  return updateUser(key, {
    UpdateExpression: 'REMOVE devices.#device',
    ConditionExpression:
      'devices.#device.#status = :pending AND attribute_exists(devices.#device.confirmation)',
    ExpressionAttributeNames: { '#device': deviceId, '#status': 'status' },
    ExpressionAttributeValues: { ':pending': DeviceStatus.linkPending },
  });
}

/** Ends a linked device's cooling-off at once (the operator's override); false when it has none. */
export function liftDeviceHold(key: UserKey, deviceId: string): Promise<boolean> {
  return updateUser(key, {
    UpdateExpression: 'REMOVE devices.#device.answersFrom',
    ConditionExpression:
      'devices.#device.#status = :linked AND attribute_exists(devices.#device.answersFrom)',
    ExpressionAttributeNames: { '#device': deviceId, '#status': 'status' },
    ExpressionAttributeValues: { ':linked': DeviceStatus.linked },
  });
}

/** Sets a linked device's push channel, replacing the one it had; false when the device is not a linked one. */
export function setDevicePushChannel(key: UserKey, deviceId: string, channel: PushChannel): Promise<boolean> {
  return setOnLinkedDevice(key, deviceId, 'push', channel);
}

/** Sets one attribute of a device's entry, only while the device is linked; false when it is not. */
function setOnLinkedDevice(
  key: UserKey,
  deviceId: string,
  attribute: string,
  value: unknown,
): Promise<boolean> {
  return updateUser(key, {
    UpdateExpression: 'SET devices.#device.#attribute = :value',
    ConditionExpression: 'devices.#device.#status = :linked',
    ExpressionAttributeNames: { '#device': deviceId, '#attribute': attribute, '#status': 'status' },
    ExpressionAttributeValues: { ':value': value, ':linked': DeviceStatus.linked },
  });
}

/**
 * Removes a device's push channel; with `channel`, only while the device's channel still is that one (same endpoint or
 * token), so that a push service saying an old channel is gone cannot remove the one the device registered since.
 * False when nothing was removed.
 */
export function removeDevicePushChannel(
  key: UserKey,
  deviceId: string,
  channel?: PushChannel,
): Promise<boolean> {
  const identity =
    channel && (channel.type === 'webpush' ? ['endpoint', channel.endpoint] : ['token', channel.token]);
  return updateUser(key, {
    UpdateExpression: 'REMOVE devices.#device.#push',
    ConditionExpression: `attribute_exists(devices.#device.#push)${identity ? ' AND devices.#device.#push.#identity = :identity' : ''}`,
    ExpressionAttributeNames: {
      '#device': deviceId,
      '#push': 'push',
      ...(identity ? { '#identity': identity[0] } : {}),
    },
    ...(identity ? { ExpressionAttributeValues: { ':identity': identity[1] } } : {}),
  });
}

/** Gives a linked device a passkey registration challenge, replacing any it had; false when it is not a linked one. */
export function setPasskeyChallenge(
  key: UserKey,
  deviceId: string,
  challenge: PasskeyChallenge,
): Promise<boolean> {
  return setOnLinkedDevice(key, deviceId, 'passkeyChallenge', challenge);
}

/**
 * Keeps a device's passkey, replacing the one it had, and uses up the challenge it was registered over: only while
 * the device is linked and still holds that challenge unexpired, so a registration counts once.
 */
export function putDevicePasskey(
  key: UserKey,
  deviceId: string,
  passkey: StoredPasskey,
  challenge: string,
  nowSeconds: number,
): Promise<boolean> {
  return updateUser(key, {
    UpdateExpression: 'SET devices.#device.#passkey = :passkey REMOVE devices.#device.#challenge',
    ConditionExpression:
      'devices.#device.#status = :linked AND devices.#device.#challenge.challenge = :challenge AND devices.#device.#challenge.expiresAt > :now',
    ExpressionAttributeNames: {
      '#device': deviceId,
      '#passkey': 'passkey',
      '#challenge': 'passkeyChallenge',
      '#status': 'status',
    },
    ExpressionAttributeValues: {
      ':passkey': passkey,
      ':challenge': challenge,
      ':now': nowSeconds,
      ':linked': DeviceStatus.linked,
    },
  });
}

/**
 * Moves a passkey's signature counter to `counter` after an accepted assertion: only while the device still has that
 * credential and the counter grows (or stays 0 for an authenticator that keeps none), so of two answers with one
 * assertion at most one gets through. False otherwise.
 */
export function advancePasskeyCounter(
  key: UserKey,
  deviceId: string,
  credentialId: string,
  counter: number,
): Promise<boolean> {
  return updateUser(key, {
    UpdateExpression: 'SET devices.#device.#passkey.#counter = :counter',
    ConditionExpression: `devices.#device.#passkey.#id = :id AND devices.#device.#passkey.#counter ${counter === 0 ? '= :counter' : '< :counter'}`,
    ExpressionAttributeNames: {
      '#device': deviceId,
      '#passkey': 'passkey',
      '#id': 'id',
      '#counter': 'counter',
    },
    ExpressionAttributeValues: { ':id': credentialId, ':counter': counter },
  });
}

/**
 * Removes a device from the user. With `unlinkedAt` (an application unlinking), a LINKED device's removal is recorded
 * on the user in the same write, which starts the cooling-off for new devices; a never-linked device's is not.
 */
export async function removeUserDevice(
  key: UserKey,
  deviceId: string,
  unlinkedAt?: number,
): Promise<boolean> {
  if (
    unlinkedAt !== undefined &&
    (await updateUser(key, {
      UpdateExpression: 'REMOVE devices.#device SET linkedDeviceUnlinkedAt = :at',
      ConditionExpression: 'devices.#device.#status = :linked',
      ExpressionAttributeNames: { '#device': deviceId, '#status': 'status' },
      ExpressionAttributeValues: { ':at': unlinkedAt, ':linked': DeviceStatus.linked },
    }))
  )
    return true;
  return updateUser(key, {
    UpdateExpression: 'REMOVE devices.#device',
    ConditionExpression: 'attribute_exists(devices.#device)',
    ExpressionAttributeNames: { '#device': deviceId },
  });
}

/**
 * Starts or restarts the user's session with a service. A new one is refused when the user has sessions with
 * `maxSessionsPerUser` services already ('full'), checked by the update itself; 'missing' when there is no such user.
 */
export async function putUserSession(
  key: UserKey,
  session: UserSession,
): Promise<'started' | 'full' | 'missing'> {
  const started = await updateUser(key, {
    UpdateExpression: 'SET sessions.#service = :session',
    ConditionExpression:
      'attribute_not_exists(sessions) OR attribute_exists(sessions.#service) OR size(sessions) < :max',
    ExpressionAttributeNames: { '#service': session.serviceId },
    ExpressionAttributeValues: { ':session': session, ':max': maxSessionsPerUser },
  });
  return started ? 'started' : fullOrMissing(key);
}

/** Why a bounded add to a user's record was refused: the user is gone, or the list is full. */
async function fullOrMissing(key: UserKey): Promise<'full' | 'missing'> {
  return (await getUser(key)) ? 'full' : 'missing';
}

/** Ends a user's session with a service; false when there was none. */
export function removeUserSession(key: UserKey, serviceId: string): Promise<boolean> {
  return updateUser(key, {
    UpdateExpression: 'REMOVE sessions.#service',
    ConditionExpression: 'attribute_exists(sessions.#service)',
    ExpressionAttributeNames: { '#service': serviceId },
  });
}

export function removeAllUserSessions(key: UserKey): Promise<boolean> {
  return updateUser(key, {
    UpdateExpression: 'SET sessions = :none',
    ExpressionAttributeValues: { ':none': {} },
  });
}

/**
 * The claim of the user's one pending slot for a new request, as one write of the create's transaction: it holds
 * when the slot is free, when its request has expired, or when it still names `stale`, a request the caller found
 * answered or cancelled.
 */
export function claimPendingSlotWrite(
  key: UserKey,
  slot: PendingSlot,
  nowSeconds: number,
  stale?: string,
): TableWrite {
  return {
    Update: userUpdate(key, {
      UpdateExpression: 'SET pending = :slot',
      ConditionExpression: `attribute_not_exists(pending) OR pending.expiresAt <= :now${stale ? ' OR pending.authId = :stale' : ''}`,
      ExpressionAttributeValues: { ':slot': slot, ':now': nowSeconds, ...(stale ? { ':stale': stale } : {}) },
    }),
  };
}

/** Frees the slot if `authId` still holds it; an answered or cancelled request lets the user be asked again. */
const pendingSlotRelease = (authId: string): UserUpdate => ({
  UpdateExpression: 'REMOVE pending',
  ConditionExpression: 'pending.authId = :auth',
  ExpressionAttributeValues: { ':auth': authId },
});

export async function releasePendingSlot(key: UserKey, authId: string): Promise<void> {
  await updateUser(key, pendingSlotRelease(authId));
}

/**
 * The release as one write of a transaction, with the request's own end; for a device's answer, also noted as that
 * device's last answer, where the device is still the user's (if it is not, the release fails with the condition and
 * the caller frees the slot on its own).
 */
export function releasePendingSlotWrite(
  key: UserKey,
  authId: string,
  answered?: { readonly deviceId: string; readonly lastAnswer: DeviceLastAnswer },
): TableWrite {
  const release = pendingSlotRelease(authId);
  if (!answered) return { Update: userUpdate(key, release) };
  return {
    Update: userUpdate(key, {
      UpdateExpression: `${release.UpdateExpression} SET devices.#device.lastAnswer = :last`,
      ConditionExpression: `${release.ConditionExpression} AND attribute_exists(devices.#device)`,
      ExpressionAttributeNames: { '#device': answered.deviceId },
      ExpressionAttributeValues: { ...release.ExpressionAttributeValues, ':last': answered.lastAnswer },
    }),
  };
}

export function putUserTotp(key: UserKey, totp: StoredTotp): Promise<boolean> {
  return updateUser(key, {
    UpdateExpression: 'SET totp = :totp',
    ExpressionAttributeValues: { ':totp': totp },
  });
}

export function removeUserTotp(key: UserKey): Promise<boolean> {
  return updateUser(key, { UpdateExpression: 'REMOVE totp' });
}

/**
 * Counts a verification before its code is checked, so that concurrent guesses cannot overtake the count: false when
 * the user's TOTP is locked (or gone) and the code must not be checked. Each write is a conditional update that applies
 * in one state only: below the last attempt it adds one; the last attempt also sets the lock, until `lockUntil`. A lock
 * that has ended is cleared, with its count, and the attempt tried again. A verification that still loses to
 * concurrent ones is refused, which errs on the safe side.
 */
export async function reserveTotpAttempt(
  key: UserKey,
  limit: { maxFailures: number; nowSeconds: number; lockUntil: number },
): Promise<boolean> {
  const unlocked = 'attribute_exists(totp) AND attribute_not_exists(totp.lockedUntil)';
  const last = limit.maxFailures - 1;
  const reserve = async () =>
    (await updateUser(key, {
      UpdateExpression: 'SET totp.failedAttempts = if_not_exists(totp.failedAttempts, :zero) + :one',
      ConditionExpression: `${unlocked} AND (attribute_not_exists(totp.failedAttempts) OR totp.failedAttempts < :last)`,
      ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':last': last },
    })) ||
    updateUser(key, {
      UpdateExpression: 'SET totp.failedAttempts = :max, totp.lockedUntil = :until',
      ConditionExpression: `${unlocked} AND totp.failedAttempts = :last`,
      ExpressionAttributeValues: { ':max': limit.maxFailures, ':until': limit.lockUntil, ':last': last },
    });
  if (await reserve()) return true;
  await updateUser(key, {
    UpdateExpression: 'SET totp.failedAttempts = :zero REMOVE totp.lockedUntil',
    ConditionExpression: 'totp.lockedUntil <= :now',
    ExpressionAttributeValues: { ':zero': 0, ':now': limit.nowSeconds },
  });
  // Whoever cleared an ended lock, this verification may now be counted; under a lock this fails again.
  return reserve();
}

/**
 * Records that a code of time step `step` was accepted for the secret sealed as `sealedSecret`, resets the count and
 * lifts a lock set while the code was being checked; false when that step or a later one was used already, or the
 * secret has been replaced since.
 */
export function recordTotpSuccess(key: UserKey, sealedSecret: string, step: number): Promise<boolean> {
  return updateUser(key, {
    UpdateExpression: 'SET totp.lastStep = :step, totp.failedAttempts = :zero REMOVE totp.lockedUntil',
    ConditionExpression:
      'totp.sealedSecret = :secret AND (attribute_not_exists(totp.lastStep) OR totp.lastStep < :step)',
    ExpressionAttributeValues: { ':step': step, ':zero': 0, ':secret': sealedSecret },
  });
}

function toUser(item: Record<string, unknown>): User {
  const devices = Object.values((item.devices as Record<string, UserDevice> | undefined) ?? {});
  const sessions = Object.values((item.sessions as Record<string, UserSession> | undefined) ?? {});
  return {
    userId: item.userId as string,
    identifier: item.identifier as string,
    directoryId: item.directoryId as string,
    organizationId: item.organizationId as string,
    created: item.created as string,
    devices: devices.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id)),
    sessions: sessions.sort((a, b) => a.created.localeCompare(b.created)),
    pending: item.pending as PendingSlot | undefined,
    totp: item.totp as StoredTotp | undefined,
    ...(typeof item.linkedDeviceUnlinkedAt === 'number'
      ? { linkedDeviceUnlinkedAt: item.linkedDeviceUnlinkedAt }
      : {}),
  };
}
