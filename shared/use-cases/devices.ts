import { randomInt, randomUUID } from 'node:crypto';
import { maxDevicesPerUser } from '#shared/domain/limits';
import { DeviceStatus, expiredLinks, type UserDevice, type UserKey } from '#shared/domain/user';
import { invalidArgument, notFound } from '#shared/errors';
import { publishUnlinked } from '#shared/events/publish-push';
import type { ApiIdentity } from '#shared/protocol/dialect';
import { deleteEntityHead } from '#shared/store/heads';
import { type LinkCode, putLinkCode } from '#shared/store/link-codes';
import {
  ensureUser,
  getUser,
  putUserDevice,
  removeExpiredLinks,
  removeUserDevice,
} from '#shared/store/users';
import { isoSeconds } from '#shared/time';

/** Linking codes: 8 characters without look-alikes (0/O, 1/I), about 40 bits, typed or scanned once. */
const codeAlphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const codeLength = 8;
export const defaultLinkTtlSeconds = 300;

function newLinkCode(): string {
  return Array.from({ length: codeLength }, () => codeAlphabet[randomInt(codeAlphabet.length)]).join('');
}

/** Where the QR image of a linking code is served. */
export function qrCodeUrl(baseUrl: string, code: string): string {
  return `${baseUrl}/public/v3/qrcodes/${code}`;
}

export interface StartedLink {
  readonly qrcode: string;
  readonly code: string;
  readonly device_id: string;
}

/**
 * POST /directory/v3/devices: the user is created if the directory has none by that identifier, and gets a device in
 * LINK_PENDING with a linking code valid for `ttlSeconds`. A user with `maxDevicesPerUser` devices is ARG-001, once
 * the pending devices whose code has expired are gone.
 */
export async function startDeviceLink(
  input: {
    organizationId: string;
    directoryId: string;
    identifier: string;
    ttlSeconds: number;
    requester: string;
    identity: ApiIdentity;
    /** The requester's key the answer is encrypted to; the completion webhook prefers it. */
    requesterKid: string | undefined;
  },
  now: Date,
  baseUrl: string,
): Promise<StartedLink> {
  const key = { directoryId: input.directoryId, identifier: input.identifier };
  const { user } = await ensureUser(input.organizationId, key, randomUUID(), now);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const expiresAt = nowSeconds + input.ttlSeconds;
  const device: UserDevice = {
    id: randomUUID(),
    name: null,
    type: null,
    status: DeviceStatus.linkPending,
    created: isoSeconds(now),
    updated: isoSeconds(now),
    linkExpiresAt: expiresAt,
  };
  await addDevice(key, device, nowSeconds);
  const base: Omit<LinkCode, 'code'> = {
    deviceId: device.id,
    organizationId: input.organizationId,
    directoryId: input.directoryId,
    identifier: input.identifier,
    userId: user.userId,
    expiresAt,
    requester: input.requester,
    identity: input.identity,
    ...(input.requesterKid ? { requesterKid: input.requesterKid } : {}),
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    const code = newLinkCode();
    if (await putLinkCode({ ...base, code }))
      return { qrcode: qrCodeUrl(baseUrl, code), code, device_id: device.id };
  }
  throw new Error('No free linking code after 5 draws');
}

/**
 * Adds a device to the user; at `maxDevicesPerUser`, the user's pending devices whose code has expired are removed
 * first, and only a user still full is refused (ARG-001).
 */
async function addDevice(key: UserKey, device: UserDevice, nowSeconds: number): Promise<void> {
  let outcome = await putUserDevice(key, device);
  if (outcome === 'full') {
    const user = await getUser(key);
    const expired = user ? expiredLinks(user, nowSeconds) : [];
    if (expired.length > 0) {
      await removeExpiredLinks(
        key,
        expired.map((stale) => stale.id),
        nowSeconds,
      );
      outcome = await putUserDevice(key, device);
    }
  }
  if (outcome === 'full') {
    throw invalidArgument(
      `The user already has ${maxDevicesPerUser} devices, pending links included until their code expires; unlink one before linking another`,
    );
  }
}

/** A user's devices as the directory sees them (docs/protocol.md#objects); an unknown user has none. */
export async function listDevices(directoryId: string, identifier: string) {
  const user = await getUser({ directoryId, identifier });
  return (user?.devices ?? []).map((device) => ({
    id: device.id,
    name: device.name,
    type: device.type,
    status: device.status,
    created: device.created,
    updated: device.updated,
  }));
}

/**
 * DELETE /directory/v3/devices, and a device unlinking itself: gone from the list, and unable to sign at once. An
 * application's unlink of a linked device (`unlinkedAt`) starts the user's cooling-off for new devices
 * (docs/protocol.md#device-confirmation) and tells the device, and the user's other devices, through the push queue;
 * a device's own unlink, which only the device's key can sign, does neither.
 */
export async function unlinkDevice(
  directoryId: string,
  identifier: string,
  deviceId: string,
  unlinkedAt?: Date,
): Promise<void> {
  const at = unlinkedAt && Math.floor(unlinkedAt.getTime() / 1000);
  if (at !== undefined) {
    // Before the device goes, with its channel: a stolen application key's unlink is seen on the device it removed.
    const device = (await getUser({ directoryId, identifier }))?.devices.find((one) => one.id === deviceId);
    if (device?.status === DeviceStatus.linked)
      await publishUnlinked({ directoryId, identifier }, deviceId, device.push);
  }
  if (!(await removeUserDevice({ directoryId, identifier }, deviceId, at))) {
    throw notFound('There is no such device for this user');
  }
  await deleteEntityHead({ type: 'dev', id: deviceId });
}
