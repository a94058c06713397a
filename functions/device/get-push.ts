import { ok } from '#shared/http/reply';
import { signedHandler } from '#shared/http/signed-handler';
import { deviceUserKey } from '#shared/use-cases/device-user-key';
import { describePushSettings } from '#shared/use-cases/push-settings';

/** GET /device/v3/push: the VAPID public key to subscribe with, and the device's channel type (or null). */
export const handler = signedHandler({
  subject: 'dev',
  body: 'none',
  handle: async ({ caller }) =>
    ok(await describePushSettings(deviceUserKey(caller.subjectHead), caller.subject.id)),
});
