/** Device link states on the wire (sdk-compatibility §7.4). */
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
}

export interface StoredTotp {
  /** The base32 secret, sealed under the hash key. */
  readonly sealedSecret: string;
  readonly algorithm: 'SHA1' | 'SHA256' | 'SHA512';
  readonly digits: number;
  readonly period: number;
  /** The last time step a code was accepted for: each code works once. */
  readonly lastStep?: number;
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
}

/** Where a user's record is: the directory and the identifier. */
export interface UserKey {
  readonly directoryId: string;
  readonly identifier: string;
}

export function linkedDevices(user: User): readonly UserDevice[] {
  return user.devices.filter((device) => device.status === DeviceStatus.linked);
}

/** Whether the user's slot is held by a request that has not yet expired (it may still have been answered since). */
export function slotHeld(user: User, now: number): boolean {
  return user.pending !== undefined && user.pending.expiresAt > now;
}
