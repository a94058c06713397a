import * as v from 'valibot';
import { optionalNullable, promptText, seconds, uuid } from '#shared/http/schemas/common';
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
