import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { noContent } from '#shared/http/reply';
import { usernameBody } from '#shared/http/schemas/auth-requests';
import { signedHandler } from '#shared/http/signed-handler';
import { endSession } from '#shared/use-cases/sessions';
import { requireServiceUser, subjectService } from '#shared/use-cases/users';

/** DELETE /service/v3/sessions: the user's session with this service ended; none to end is fine, no user is 404. */
export const handler = signedHandler({
  subject: 'svc',
  body: usernameBody,
  handle: async ({ caller, body }) => {
    const service = subjectService(caller);
    const { user } = await requireServiceUser(service, body.username, await currentHashKey());
    await endSession({ directoryId: user.directoryId, identifier: user.identifier }, service.id);
    return noContent();
  },
});
