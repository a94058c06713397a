import { ok } from '#shared/http/reply';
import { signedHandler } from '#shared/http/signed-handler';
import { listLinkRequests } from '#shared/use-cases/device-confirmation';

/** GET /device/v3/link-requests: the user's new devices waiting for this device to confirm them. */
export const handler = signedHandler({
  subject: 'dev',
  body: 'none',
  handle: async ({ caller, receivedAt }) =>
    ok(await listLinkRequests(caller.subject, caller.subjectHead, receivedAt)),
});
