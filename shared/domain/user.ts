import { type AuthAnswer, answerOutcome, type ShownAuthRequest } from '#shared/domain/auth-request';
import type { PushChannel } from '#shared/push/channel';

/** Device link states on the wire (docs/protocol.md#objects). */
export const DeviceStatus = { linkPending: 0, linked: 1, unlinkPending: 2 } as const;
export type DeviceStatus = (typeof DeviceStatus)[keyof typeof DeviceStatus];

export interface UserDevice {
  readonly id: string;
  readonly name: string | null;
  readonly type: string | null;
  readonly status: DeviceStatus;
  /** ISO 8601 UTC. */
  readonly created: string;
  readonly updated: string;
  /**
   * Epoch seconds: when the linking code of a LINK_PENDING device expires, after which it can never link and may be
   * removed to make room. Not shown in the device list; absent on devices recorded before it was, which are never removed this way.
   */
  readonly linkExpiresAt?: number;
  /** Where the service pushes to this device, if it registered a channel (PUT /device/v3/push). */
  readonly push?: PushChannel;
  /**
   * Set while a device that presented its code waits for one of the user's linked devices to confirm it
   * (docs/protocol.md#device-confirmation); it stays LINK_PENDING until then.
   */
  readonly confirmation?: PendingConfirmation;
  /**
   * Epoch seconds: a device linked within the cooling-off period after the user's linked devices were unlinked is
   * not offered requests, and confirms no other device, before then.
   */
  readonly answersFrom?: number;
  /** The last auth request this device ended, noted with the answer itself; absent until it answers one. */
  readonly lastAnswer?: DeviceLastAnswer;
}

/**
 * A device's last answer, as much of it as the service can know: the package is sealed to the requester, so an
 * approval and a denial are both `answered`; `denied` is a denial the device said in the clear or reported as fraud,
 * `failed` the end of a request by wrong number-matching codes.
 */
export interface DeviceLastAnswer {
  /** ISO 8601 UTC. */
  readonly at: string;
  readonly outcome: 'answered' | 'denied' | 'failed';
  readonly fraud?: true;
  readonly authRequestId: string;
  readonly serviceId: string;
}

/** What a device's answer to `authRequestId` (of `serviceId`) leaves as its last answer. */
export function deviceLastAnswer(
  authRequestId: string,
  serviceId: string,
  answer: AuthAnswer,
  failed = false,
): DeviceLastAnswer {
  const fraud = answer.fraud === true || answer.clearDenial?.fraud === true;
  return {
    at: answer.answeredAt,
    outcome: failed ? 'failed' : answerOutcome(answer),
    ...(fraud ? { fraud: true as const } : {}),
    authRequestId,
    serviceId,
  };
}

/** What a link waiting for confirmation keeps until it is confirmed: who to tell then, and until when it may be. */
export interface PendingConfirmation {
  /** ISO 8601 UTC: when the device presented its code. */
  readonly requested: string;
  /** Epoch seconds: after this the link can no longer be confirmed by a device. */
  readonly expiresAt: number;
  /** The entity that started the link, the identity it addressed and its key: whom the completion webhook is for. */
  readonly requester: string;
  readonly identity: 'api' | 'lka';
  readonly requesterKid?: string;
}

export interface UserSession {
  readonly serviceId: string;
  readonly authRequest: string | null;
  readonly created: string;
  /** The entity that started the session and the identity it addressed: whom its Session Ended webhook is for. */
  readonly requester: string;
  readonly identity: 'api' | 'lka';
}

/** The request that holds a user's one pending slot. */
export interface PendingSlot {
  readonly authId: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
  readonly serviceId: string;
  /** What its devices are shown; absent from slots claimed before it was kept here. */
  readonly shown?: ShownAuthRequest;
}

export interface StoredTotp {
  /** The base32 secret, sealed under the hash key. */
  readonly sealedSecret: string;
  readonly algorithm: 'SHA1' | 'SHA256' | 'SHA512';
  readonly digits: number;
  readonly period: number;
  /** The last time step a code was accepted for: each code works once. */
  readonly lastStep?: number;
  /** Verifications counted since the last success or the last lock; each is counted before its code is checked. */
  readonly failedAttempts?: number;
  /** Epoch seconds: the end of the lock the last counted failure set. Cleared by the first attempt after it. */
  readonly lockedUntil?: number;
}

/**
 * The TOTP attempt limit, the server throttling of RFC 4226 §7.3 that RFC 6238 inherits: the 5th consecutive failed
 * verification locks the user's TOTP for 15 minutes. While it is locked every verification answers not valid without
 * its code being checked, the right code too, so at most `maxFailures` codes are checked per lock. A success resets
 * the count; generating a new secret or removing it clears the count and the lock. Codes that are not all digits, or
 * not of the right length, count as failures.
 */
export const totpAttemptLimit = { maxFailures: 5, lockSeconds: 15 * 60 } as const;

/** A user's TOTP attempt state at `nowSeconds`: a lock that has ended is no lock, and its failures are forgotten. */
export function totpAttempts(
  totp: StoredTotp,
  nowSeconds: number,
): { readonly failedAttempts: number; readonly lockedUntil: number | undefined } {
  if (totp.lockedUntil !== undefined && totp.lockedUntil <= nowSeconds) {
    return { failedAttempts: 0, lockedUntil: undefined };
  }
  return { failedAttempts: totp.failedAttempts ?? 0, lockedUntil: totp.lockedUntil };
}

/** A directory user: identified there by the implementer's identifier, everywhere else by an opaque id. */
export interface User {
  readonly userId: string;
  readonly identifier: string;
  readonly directoryId: string;
  readonly organizationId: string;
  readonly created: string;
  readonly devices: readonly UserDevice[];
  readonly sessions: readonly UserSession[];
  readonly pending: PendingSlot | undefined;
  readonly totp: StoredTotp | undefined;
  /** Epoch seconds: when an application last unlinked one of the user's linked devices. */
  readonly linkedDeviceUnlinkedAt?: number;
}

/** Where a user's record is: the directory and the identifier. */
export interface UserKey {
  readonly directoryId: string;
  readonly identifier: string;
}

export function linkedDevices(user: User): readonly UserDevice[] {
  return user.devices.filter((device) => device.status === DeviceStatus.linked);
}

/** The linked devices that may answer requests and confirm new devices at `nowSeconds`: none still cooling off. */
export function answeringDevices(user: User, nowSeconds: number): readonly UserDevice[] {
  return linkedDevices(user).filter(
    (device) => device.answersFrom === undefined || device.answersFrom <= nowSeconds,
  );
}

/** The user's LINK_PENDING devices whose linking code has expired by `nowSeconds`: they can never link. */
export function expiredLinks(user: User, nowSeconds: number): readonly UserDevice[] {
  return user.devices.filter(
    (device) =>
      device.status === DeviceStatus.linkPending &&
      device.linkExpiresAt !== undefined &&
      device.linkExpiresAt <= nowSeconds,
  );
}

/** Whether the user's slot is held by a request that has not yet expired (it may still have been answered since). */
export function slotHeld(user: User, now: number): boolean {
  return user.pending !== undefined && user.pending.expiresAt > now;
}
