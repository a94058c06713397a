import { deviceLinked } from '#shared/domain/subject';
import {
  answeringDevices,
  DeviceStatus,
  type PendingConfirmation,
  type User,
  type UserDevice,
  type UserKey,
} from '#shared/domain/user';
import { notFound } from '#shared/errors';
import type { Entity } from '#shared/protocol/entity';
import { getDirectory } from '#shared/store/directories';
import { getOrganization } from '#shared/store/organizations';
import { type HeadItem, setDeviceHeadStatus } from '#shared/store/heads';
import { getDirectorySettings } from '#shared/store/push-fatigue';
import { getUser } from '#shared/store/users';
import { isoSeconds } from '#shared/time';
import { deviceUserKey } from '#shared/use-cases/device-user-key';

/**
 * How long a device that presented its code waits for a linked device to confirm it: time for the user to pick up the
 * phone they have, short enough that a link nobody confirms is soon gone. Fixed, not the code's remaining lifetime,
 * which may be seconds when the code was typed late.
 */
export const confirmationWindowSeconds = 600;

/** What a new device's link needs, besides its code (docs/protocol.md#device-confirmation). */
export type NewDeviceRequirement =
  | { readonly kind: 'none' }
  /** A linked device of the user must confirm it before `expiresAt`. */
  | { readonly kind: 'confirmation'; readonly expiresAt: number }
  /** The user's linked devices were unlinked lately: it links, but answers nothing before `answersFrom`. */
  | { readonly kind: 'cooling-off'; readonly answersFrom: number };

/**
 * What a new device's link needs: the first device of a user links at once; a further one waits until one of the
 * devices that may answer for the user confirms it; one that comes while an application's unlink of the user's
 * linked devices is recent links but cools off. The directory may turn both off.
 */
export async function newDeviceRequirement(
  key: UserKey,
  deviceId: string,
  nowSeconds: number,
): Promise<NewDeviceRequirement> {
  const [user, settings] = await Promise.all([getUser(key), getDirectorySettings(key.directoryId)]);
  if (!user || !settings.deviceConfirmation) return { kind: 'none' };
  if (answeringDevices(user, nowSeconds).some((device) => device.id !== deviceId))
    return { kind: 'confirmation', expiresAt: nowSeconds + confirmationWindowSeconds };
  const unlinkedAt = user.linkedDeviceUnlinkedAt;
  if (settings.coolingOffSeconds !== null && unlinkedAt !== undefined) {
    const answersFrom = unlinkedAt + settings.coolingOffSeconds;
    if (answersFrom > nowSeconds) return { kind: 'cooling-off', answersFrom };
  }
  return { kind: 'none' };
}

/** A link waiting for confirmation, as a device that may confirm it sees it: "a new device wants to join". */
export interface LinkRequestView {
  readonly device_id: string;
  readonly name: string | null;
  readonly type: string | null;
  readonly directory: { readonly id: string; readonly name: string };
  /** When the new device presented its code. */
  readonly requested: string;
  readonly expires: string;
}

/**
 * GET /device/v3/link-requests: the user's new devices waiting for confirmation, shown to a device that may confirm
 * them; a device that may not (still cooling off) is shown none.
 */
export async function listLinkRequests(
  device: Entity,
  head: HeadItem | undefined,
  now: Date,
): Promise<LinkRequestView[]> {
  const key = deviceUserKey(head);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const user = await getUser(key);
  if (!user || !mayConfirm(user, device.id, nowSeconds)) return [];
  const waiting = user.devices.filter((candidate) => awaitsConfirmation(candidate, nowSeconds));
  if (waiting.length === 0) return [];
  const directory = await getDirectory(user.organizationId, key.directoryId);
  return waiting.map((candidate) => ({
    device_id: candidate.id,
    name: candidate.name,
    type: candidate.type,
    directory: { id: key.directoryId, name: directory?.name ?? key.directoryId },
    requested: candidate.confirmation.requested,
    expires: isoSeconds(new Date(candidate.confirmation.expiresAt * 1000)),
  }));
}

export interface NamedEntity {
  readonly id: string;
  readonly name: string;
}

/** What a device is told of its own link (GET /device/v3/link). */
export interface LinkStateView {
  readonly device_id: string;
  readonly directory_id: string;
  readonly status: 'linked' | 'awaiting-confirmation' | 'expired';
  /**
   * The directory and organization a linked device answers for, by name, so the person sees names they know; a device
   * still waiting for confirmation is told no names, as no one has allowed it yet.
   */
  readonly directory?: NamedEntity;
  readonly organization?: NamedEntity;
  /** Until when a device awaiting confirmation may be confirmed. */
  readonly expires?: string;
  /** When a device cooling off may start answering. */
  readonly answers_from?: string;
}

/** GET /device/v3/link: how this device's link stands; a confirmed link's head is set linked if it was not yet. */
export async function linkState(
  device: Entity,
  head: HeadItem | undefined,
  now: Date,
): Promise<LinkStateView> {
  const key = deviceUserKey(head);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const user = await getUser(key);
  const entry = user?.devices.find((candidate) => candidate.id === device.id);
  if (!user || !entry) throw notFound('The device is not linked');
  const ids = { device_id: device.id, directory_id: key.directoryId };
  if (entry.status === DeviceStatus.linked) {
    const [directory, organization] = await Promise.all([
      getDirectory(user.organizationId, key.directoryId),
      getOrganization(user.organizationId),
      // A confirmation that stopped between the user's record and the head is finished here.
      head?.status === deviceLinked ? undefined : setDeviceHeadStatus(device.id, deviceLinked),
    ]);
    return {
      ...ids,
      status: 'linked',
      directory: { id: key.directoryId, name: directory?.name ?? key.directoryId },
      organization: { id: user.organizationId, name: organization?.name ?? user.organizationId },
      ...(entry.answersFrom !== undefined && entry.answersFrom > nowSeconds
        ? { answers_from: isoSeconds(new Date(entry.answersFrom * 1000)) }
        : {}),
    };
  }
  if (!entry.confirmation) throw notFound('The device is not linked');
  return {
    ...ids,
    status: entry.confirmation.expiresAt > nowSeconds ? 'awaiting-confirmation' : 'expired',
    expires: isoSeconds(new Date(entry.confirmation.expiresAt * 1000)),
  };
}

/** Only a linked device that may answer for the user confirms new devices; one still cooling off may not. */
export function mayConfirm(user: User, deviceId: string, nowSeconds: number): boolean {
  return answeringDevices(user, nowSeconds).some((device) => device.id === deviceId);
}

function awaitsConfirmation(
  device: UserDevice,
  nowSeconds: number,
): device is UserDevice & { confirmation: PendingConfirmation } {
  return (
    device.status === DeviceStatus.linkPending &&
    device.confirmation !== undefined &&
    device.confirmation.expiresAt > nowSeconds
  );
}
