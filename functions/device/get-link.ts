import { ok } from '#shared/http/reply';
import { signedHandler } from '#shared/http/signed-handler';
import { linkState } from '#shared/use-cases/device-confirmation';

/** GET /device/v3/link: how this device's link stands; a device awaiting confirmation may ask this too. */
export const handler = signedHandler({
  subject: 'dev',
  body: 'none',
  awaitingDevice: true,
  handle: async ({ caller, receivedAt }) =>
    ok(await linkState(caller.subject, caller.subjectHead, receivedAt)),
});
