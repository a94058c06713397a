import { ok } from '#shared/http/reply';
import { identifierBody } from '#shared/http/schemas/users';
import { signedHandler } from '#shared/http/signed-handler';
import { listDevices } from '#shared/use-cases/devices';

/** POST /directory/v3/devices/list: the user's devices (docs/protocol.md#objects); an unknown user has none. */
export const handler = signedHandler({
  subject: 'dir',
  body: identifierBody,
  handle: async ({ caller, body }) => ok(await listDevices(caller.subject.id, body.identifier)),
});
