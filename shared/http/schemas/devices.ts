import * as v from 'valibot';
import { linkCodeShape } from '#shared/domain/link-code';
import { httpUrl, optionalNullable, promptText, seconds, uuid } from '#shared/http/schemas/common';
import { publicKey } from '#shared/http/schemas/keys';
import { identifier } from '#shared/http/schemas/users';
import { passkeyRegistration } from '#shared/http/schemas/webauthn';

export const startDeviceLinkBody = v.strictObject({
  identifier,
  ttl: optionalNullable(seconds(30, 3600)),
});

export const unlinkDeviceBody = v.strictObject({ identifier, device_id: uuid });

/** A device's name and type, which the directory's device list shows. */
const label = promptText(100);

/** The device's own link request (unsigned: it has no key registered yet); the web authenticator has no SDK key. */
export const linkDeviceBody = v.strictObject({
  sdk_key: optionalNullable(uuid),
  code: v.pipe(v.string(), v.regex(linkCodeShape, 'must be the linking code')),
  public_key: publicKey,
  name: optionalNullable(label),
  type: optionalNullable(label),
});

export const endDeviceSessionBody = v.strictObject({ service_id: uuid });

/** Base64url (padding tolerated) that decodes to exactly `bytes` bytes, and passes `more` when given. */
const base64urlBytes = (bytes: number, what: string, more: (decoded: Buffer) => boolean = () => true) =>
  v.pipe(
    v.string(),
    v.maxLength(Math.ceil(bytes / 3) * 4, `must be ${what}`),
    v.regex(/^[A-Za-z0-9_-]+={0,2}$/, 'must be base64url'),
    v.check((value) => {
      const decoded = Buffer.from(value, 'base64url');
      return decoded.length === bytes && more(decoded);
    }, `must be ${what}`),
  );

/** A browser's `PushSubscription.toJSON()` as it is (its `expirationTime` is read and ignored: an expired subscription
 * shows as gone when it is used). */
const webPushSubscription = v.strictObject({
  endpoint: httpUrl,
  // Milliseconds since 1970, as far as a Date reaches.
  expirationTime: optionalNullable(
    v.pipe(v.number(), v.minValue(0, 'must be a time'), v.maxValue(8_640_000_000_000_000, 'must be a time')),
  ),
  keys: v.strictObject({
    p256dh: base64urlBytes(65, 'an uncompressed P-256 point (65 bytes)', (point) => point[0] === 4),
    auth: base64urlBytes(16, 'a 16-byte authentication secret'),
  }),
});

/** An APNs device token: hex, 32 bytes today; Apple allows for longer ones (up to 100 bytes). */
const apnsRegistration = v.strictObject({
  token: v.pipe(
    v.string(),
    v.maxLength(200, 'must be an APNs device token (hex, at most 100 bytes)'),
    v.regex(/^(?:[0-9a-fA-F]{2}){32,100}$/, 'must be an APNs device token (hex, at most 100 bytes)'),
  ),
  environment: v.optional(
    v.picklist(['production', 'sandbox'], 'must be "production" or "sandbox"'),
    'production',
  ),
});

/** An FCM registration token: about 160 URL-safe characters today. */
const fcmRegistration = v.strictObject({
  token: v.pipe(
    v.string(),
    v.maxLength(1024, 'must be an FCM registration token (at most 1 024 characters)'),
    v.regex(/^[A-Za-z0-9_:.-]+$/, 'must be an FCM registration token'),
  ),
});

/** PUT /device/v3/push: the device's push channel, exactly one of Web Push, APNs (the directory's iOS app) or FCM. */
export const registerPushBody = v.pipe(
  v.strictObject({
    webpush: v.optional(webPushSubscription),
    apns: v.optional(apnsRegistration),
    fcm: v.optional(fcmRegistration),
  }),
  v.check(
    (body) => [body.webpush, body.apns, body.fcm].filter((channel) => channel !== undefined).length === 1,
    'must hold exactly one of webpush, apns and fcm',
  ),
);

/** PUT /device/v3/passkey: the registration, over the challenge POST /device/v3/passkey/options gave. */
export const registerPasskeyBody = v.strictObject({ registration: passkeyRegistration });

/** An existing device's answer to a new device's link request: approve, or refuse. */
export const answerLinkRequestBody = v.strictObject({ approve: v.boolean('must be true or false') });
