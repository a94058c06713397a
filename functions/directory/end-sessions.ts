import { noContent } from '#shared/http/reply';
import { identifierBody } from '#shared/http/schemas/users';
import { signedHandler } from '#shared/http/signed-handler';
import { endAllSessions } from '#shared/use-cases/sessions';

/** DELETE /directory/v3/sessions: end all of the user's sessions; an unknown user is 404. */
export const handler = signedHandler({
  subject: 'dir',
  body: identifierBody,
  handle: async ({ caller, body }) => {
    await endAllSessions({ directoryId: caller.subject.id, identifier: body.identifier });
    return noContent();
  },
});
