import * as v from 'valibot';
import { optionalNullable, seconds, uuid } from '#shared/http/schemas/common';
import { identifier } from '#shared/http/schemas/users';

export const startDeviceLinkBody = v.strictObject({
  identifier,
  ttl: optionalNullable(seconds(30, 3600)),
});

export const unlinkDeviceBody = v.strictObject({ identifier, device_id: uuid });

const label = v.pipe(v.string(), v.maxLength(100, 'must be at most 100 characters'));

/** The device's own link request (unsigned: it has no key registered yet). */
export const linkDeviceBody = v.strictObject({
  sdk_key: uuid,
  code: v.pipe(v.string(), v.regex(/^[A-Z0-9]{7,16}$/, 'must be the linking code')),
  public_key: v.pipe(v.string(), v.maxLength(16_384, 'is too long for a PEM public key')),
  name: optionalNullable(label),
  type: optionalNullable(label),
});

export const endDeviceSessionBody = v.strictObject({ service_id: uuid });
