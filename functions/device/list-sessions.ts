import { ok } from '#shared/http/reply';
import { signedHandler } from '#shared/http/signed-handler';
import { deviceUserKey } from '#shared/use-cases/device-user-key';
import { listSessions } from '#shared/use-cases/sessions';

/** GET /device/v3/sessions: the services the device's user has sessions with. */
export const handler = signedHandler({
  subject: 'dev',
  body: 'none',
  handle: async ({ caller, baseUrl }) => ok(await listSessions(deviceUserKey(caller.subjectHead), baseUrl)),
});
