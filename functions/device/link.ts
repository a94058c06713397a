import { recordDeviceLink } from '#shared/audit/device-link-record';
import { invalidArgument } from '#shared/errors';
import { callerAddress } from '#shared/http/caller-address';
import { acceptedBody } from '#shared/http/event';
import { json, publicHandler } from '#shared/http/public-handler';
import { linkDeviceBody } from '#shared/http/schemas/devices';
import { validateBody } from '#shared/http/schemas/validate-body';
import { linkDeviceWithinLimits } from '#shared/use-cases/link-attempts';

/**
 * POST /device/v3/link: a device links itself with a linking code, its own public key and, from an app of the
 * directory, one of its SDK keys. It has no key registered yet, so the request is plain JSON (over TLS); every later
 * request of the device is signed by it. Failed attempts are limited per address, per directory and per code.
 */
export const handler = publicHandler(async (event) => {
  const body = acceptedBody(event);
  let value: unknown;
  try {
    value = JSON.parse(body?.toString('utf8') ?? '');
  } catch {
    throw invalidArgument('body: must be JSON');
  }
  const input = validateBody(linkDeviceBody, value);
  const receivedAt = new Date();
  const linked = await linkDeviceWithinLimits(
    {
      sdkKey: input.sdk_key,
      code: input.code,
      publicKey: input.public_key,
      name: input.name,
      type: input.type,
    },
    callerAddress(event),
    receivedAt,
    (link) => recordDeviceLink(event, link, receivedAt),
  );
  return json(201, linked);
});
