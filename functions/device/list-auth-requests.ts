import { ok } from '#shared/http/reply';
import { signedHandler } from '#shared/http/signed-handler';
import { listPendingForDevice } from '#shared/use-cases/device-auth-requests';

/** GET /device/v3/auths: the request this device may answer now, with what it needs to answer it. */
export const handler = signedHandler({
  subject: 'dev',
  body: 'none',
  handle: async ({ caller, receivedAt, passkeyOrigin }) =>
    ok(await listPendingForDevice(caller.subject, caller.subjectHead, receivedAt, passkeyOrigin)),
});
