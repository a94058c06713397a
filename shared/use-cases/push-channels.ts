import { apiKeyRing } from '#shared/api-keys/current-key-ring';
import type { UserKey } from '#shared/domain/user';
import { invalidArgument, notFound, serviceUnavailable } from '#shared/errors';
import type { PushChannel } from '#shared/push/channel';
import { getUser, removeDevicePushChannel, setDevicePushChannel } from '#shared/store/users';
import { isoSeconds } from '#shared/time';
import {
  type DestinationPolicy,
  DestinationRefused,
  type Resolver,
  resolveDestination,
} from '#shared/webhooks/destination';

export interface WebPushSubscription {
  readonly endpoint: string;
  readonly keys: { readonly p256dh: string; readonly auth: string };
}

/** What GET /device/v3/push answers: the key to subscribe with, and which channel the device has now. */
export interface PushSettingsView {
  readonly vapid_public_key: string;
  readonly channel: PushChannel['type'] | null;
}

/** The deployment's VAPID public key, which a browser needs (`applicationServerKey`) before it can subscribe. */
export async function vapidPublicKey(): Promise<string> {
  const { vapid } = await apiKeyRing();
  if (!vapid)
    throw serviceUnavailable('The API has no VAPID key yet; an operator must update the deployment');
  return vapid.publicKey;
}

export async function describePushSettings(key: UserKey, deviceId: string): Promise<PushSettingsView> {
  const [publicKey, user] = await Promise.all([vapidPublicKey(), getUser(key)]);
  const device = user?.devices.find((each) => each.id === deviceId);
  if (!device) throw notFound('The device is not linked');
  return { vapid_public_key: publicKey, channel: device.push?.type ?? null };
}

/**
 * PUT /device/v3/push: the endpoint passes the webhook address guard now (and again at each delivery, as DNS may
 * change), then replaces the device's channel.
 */
export async function registerWebPush(
  key: UserKey,
  deviceId: string,
  subscription: WebPushSubscription,
  policy: DestinationPolicy,
  now: Date,
  resolve?: Resolver,
): Promise<void> {
  try {
    await resolveDestination(subscription.endpoint, policy, resolve);
  } catch (error) {
    if (!(error instanceof DestinationRefused)) throw error;
    throw invalidArgument(`webpush.endpoint is refused: ${error.message}`);
  }
  const channel: PushChannel = {
    type: 'webpush',
    endpoint: subscription.endpoint,
    p256dh: subscription.keys.p256dh,
    auth: subscription.keys.auth,
    registered: isoSeconds(now),
  };
  if (!(await setDevicePushChannel(key, deviceId, channel))) throw notFound('The device is not linked');
}

/** DELETE /device/v3/push: idempotent; a device without a channel has nothing to remove. */
export async function removePushChannel(key: UserKey, deviceId: string): Promise<void> {
  await removeDevicePushChannel(key, deviceId);
}
