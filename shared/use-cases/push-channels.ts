import type { UserKey } from '#shared/domain/user';
import { invalidArgument, notFound } from '#shared/errors';
import type { PushChannel } from '#shared/push/channel';
import { getSealedPushCredentials } from '#shared/store/push-credentials';
import { removeDevicePushChannel, setDevicePushChannel } from '#shared/store/users';
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

/** What a device registers: exactly one channel. */
export interface PushRegistration {
  readonly webpush?: WebPushSubscription;
  readonly apns?: { readonly token: string; readonly environment: 'production' | 'sandbox' };
  readonly fcm?: { readonly token: string };
}

/**
 * PUT /device/v3/push: replaces the device's channel. A Web Push endpoint passes the webhook address guard now (and
 * again at each delivery, as DNS may change) and keeps `page`, the web authenticator's address its notifications open;
 * an APNs or FCM token is taken only when the directory can send to it.
 */
export async function registerPushChannel(
  key: UserKey,
  deviceId: string,
  registration: PushRegistration,
  policy: DestinationPolicy,
  now: Date,
  options: { readonly page?: string; readonly resolve?: Resolver } = {},
): Promise<void> {
  const { page, resolve } = options;
  const registered = isoSeconds(now);
  let channel: PushChannel;
  if (registration.webpush) {
    const { endpoint, keys } = registration.webpush;
    try {
      await resolveDestination(endpoint, policy, resolve);
    } catch (error) {
      if (!(error instanceof DestinationRefused)) throw error;
      throw invalidArgument(`webpush.endpoint is refused: ${error.message}`);
    }
    channel = {
      type: 'webpush',
      endpoint,
      p256dh: keys.p256dh,
      auth: keys.auth,
      registered,
      ...(page ? { page } : {}),
    };
  } else if (registration.apns) {
    const credentials = await getSealedPushCredentials(key.directoryId);
    if (!credentials.apnsCertificate && !credentials.apnsToken)
      throw invalidArgument(
        'apns: the directory has no APNs credentials (an ios_p12 with a push certificate, or a token key)',
      );
    // Apple's tokens are hex; kept in one case so that a gone token matches the stored one.
    const { token, environment } = registration.apns;
    channel = { type: 'apns', token: token.toLowerCase(), environment, registered };
  } else if (registration.fcm) {
    const credentials = await getSealedPushCredentials(key.directoryId);
    if (!credentials.fcm) {
      throw invalidArgument(
        credentials.fcmUnusable
          ? 'fcm: the directory has no FCM credentials: its android_key is not a usable service-account file'
          : 'fcm: the directory has no FCM credentials (an android_key service account)',
      );
    }
    channel = { type: 'fcm', token: registration.fcm.token, registered };
  } else {
    throw invalidArgument('The body must hold exactly one of webpush, apns and fcm');
  }
  if (!(await setDevicePushChannel(key, deviceId, channel))) throw notFound('The device is not linked');
}

/** DELETE /device/v3/push: idempotent; a device without a channel has nothing to remove. */
export async function removePushChannel(key: UserKey, deviceId: string): Promise<void> {
  await removeDevicePushChannel(key, deviceId);
}
