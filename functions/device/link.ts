import * as v from 'valibot';
import { invalidArgument } from '#shared/errors';
import { rawBody } from '#shared/http/event';
import { describeIssues } from '#shared/http/middlewares/decrypt-body';
import { json, publicHandler } from '#shared/http/public-handler';
import { linkDeviceBody } from '#shared/http/schemas/devices';
import { linkDevice } from '#shared/use-cases/link-device';

/**
 * POST /device/v3/link: a device links itself with a directory SDK key, a linking code and its own public key. It has
 * no key registered yet, so the request is plain JSON (over TLS); every later request of the device is signed by it.
 */
export const handler = publicHandler(async (event) => {
  let value: unknown;
  try {
    value = JSON.parse(rawBody(event)?.toString('utf8') ?? '');
  } catch {
    throw invalidArgument('body: must be JSON');
  }
  const parsed = v.safeParse(linkDeviceBody, value);
  if (!parsed.success) throw invalidArgument(describeIssues(parsed.issues));
  const body = parsed.output;
  const linked = await linkDevice(
    { sdkKey: body.sdk_key, code: body.code, publicKey: body.public_key, name: body.name, type: body.type },
    new Date(),
  );
  return json(201, linked);
});
