/**
 * A device's push channel, kept on the device's record: at most one per device, and a new one replaces the old. Web
 * Push is the browser's PushSubscription; its keys are what RFC 8291 encrypts each message to.
 */
export interface WebPushChannel {
  readonly type: 'webpush';
  readonly endpoint: string;
  /** The subscription's P-256 public key, uncompressed, base64url. */
  readonly p256dh: string;
  /** The subscription's 16-byte authentication secret, base64url. */
  readonly auth: string;
  /**
   * The web authenticator's page under the API the subscription was registered at, which a declarative notification
   * opens; absent on channels registered before, which get the plain payload.
   */
  readonly page?: string;
  /** ISO 8601 UTC. */
  readonly registered: string;
}

/** A directory's own iOS app on one device: its APNs device token, sent with the directory's credentials. */
export interface ApnsChannel {
  readonly type: 'apns';
  /** Lower-case hex, as the app gets it from `didRegisterForRemoteNotificationsWithDeviceToken`. */
  readonly token: string;
  /** Which APNs the token belongs to: a development build's tokens work only with the sandbox. */
  readonly environment: 'production' | 'sandbox';
  /** ISO 8601 UTC. */
  readonly registered: string;
}

/** A directory's own Android app on one device: its FCM registration token. */
export interface FcmChannel {
  readonly type: 'fcm';
  readonly token: string;
  /** ISO 8601 UTC. */
  readonly registered: string;
}

export type PushChannel = WebPushChannel | ApnsChannel | FcmChannel;

/**
 * What a log may say of a channel: a Web Push endpoint's origin (the path is the subscription's capability), the
 * push service otherwise; never a token.
 */
export function describeChannel(channel: PushChannel): string {
  switch (channel.type) {
    case 'webpush':
      try {
        return new URL(channel.endpoint).origin;
      } catch {
        return '(unparseable URL)';
      }
    case 'apns':
      return `APNs ${channel.environment}`;
    case 'fcm':
      return 'FCM';
  }
}
