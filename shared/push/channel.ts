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
  /** ISO 8601 UTC. */
  readonly registered: string;
}

export type PushChannel = WebPushChannel;

/** What a log may say of a push endpoint: its origin only, since the path is the subscription's capability. */
export function describeEndpoint(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return '(unparseable URL)';
  }
}
