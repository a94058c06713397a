import { currentVapidKeys } from '#shared/api-keys/current-vapid-keys';
import type { UserKey } from '#shared/domain/user';
import { notFound } from '#shared/errors';
import type { PushChannel } from '#shared/push/channel';
import { getUser } from '#shared/store/users';

// Apart from the channels' registration: only what serves the VAPID public key reads the VAPID keys.

/** What GET /device/v3/push answers: the key to subscribe with, and which channel the device has now. */
export interface PushSettingsView {
  readonly vapid_public_key: string;
  readonly channel: PushChannel['type'] | null;
}

/** The deployment's VAPID public key, which a browser needs (`applicationServerKey`) before it can subscribe. */
export async function vapidPublicKey(): Promise<string> {
  return (await currentVapidKeys()).publicKey;
}

export async function describePushSettings(key: UserKey, deviceId: string): Promise<PushSettingsView> {
  const [publicKey, user] = await Promise.all([vapidPublicKey(), getUser(key)]);
  const device = user?.devices.find((each) => each.id === deviceId);
  if (!device) throw notFound('The device is not linked');
  return { vapid_public_key: publicKey, channel: device.push?.type ?? null };
}
