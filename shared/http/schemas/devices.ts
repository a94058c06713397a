import * as v from 'valibot';
import { httpUrl, optionalNullable, promptText, seconds, uuid } from '#shared/http/schemas/common';
import { publicKey } from '#shared/http/schemas/keys';
import { identifier } from '#shared/http/schemas/users';

export const startDeviceLinkBody = v.strictObject({
  identifier,
  ttl: optionalNullable(seconds(30, 3600)),
});

export const unlinkDeviceBody = v.strictObject({ identifier, device_id: uuid });

/** A device's name and type, which the directory's device list shows. */
const label = promptText(100);

/** The device's own link request (unsigned: it has no key registered yet). */
export const linkDeviceBody = v.strictObject({
  sdk_key: uuid,
  code: v.pipe(v.string(), v.regex(/^[A-Z0-9]{7,16}$/, 'must be the linking code')),
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

/**
 * PUT /device/v3/push: the device's push channel. Web Push takes the browser's `PushSubscription.toJSON()` as it is
 * (its `expirationTime` is read and ignored: an expired subscription shows as gone when it is used).
 */
export const registerPushBody = v.strictObject({
  webpush: v.strictObject({
    endpoint: httpUrl,
    // Milliseconds since 1970, as far as a Date reaches.
    expirationTime: optionalNullable(
      v.pipe(
        v.number(),
        v.minValue(0, 'must be a time'),
        v.maxValue(8_640_000_000_000_000, 'must be a time'),
      ),
    ),
    keys: v.strictObject({
      p256dh: base64urlBytes(65, 'an uncompressed P-256 point (65 bytes)', (point) => point[0] === 4),
      auth: base64urlBytes(16, 'a 16-byte authentication secret'),
    }),
  }),
});
