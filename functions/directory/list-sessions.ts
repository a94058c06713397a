import { ok } from '#shared/http/reply';
import { identifierBody } from '#shared/http/schemas/users';
import { signedHandler } from '#shared/http/signed-handler';
import { listSessions } from '#shared/use-cases/sessions';

/** POST /directory/v3/sessions/list: the user's sessions (docs/protocol.md#objects); an unknown user is 404. */
export const handler = signedHandler({
  subject: 'dir',
  body: identifierBody,
  handle: async ({ caller, body, baseUrl }) =>
    ok(await listSessions({ directoryId: caller.subject.id, identifier: body.identifier }, baseUrl)),
});
