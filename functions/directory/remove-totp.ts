import { noContent } from '#shared/http/reply';
import { identifierBody } from '#shared/http/schemas/users';
import { signedHandler } from '#shared/http/signed-handler';
import { removeTotp } from '#shared/use-cases/totp';

/** DELETE /directory/v3/totp: remove the user's TOTP; succeeds for an unknown identifier too. */
export const handler = signedHandler({
  subject: 'dir',
  body: identifierBody,
  handle: async ({ caller, body }) => {
    await removeTotp(caller.subject.id, body.identifier);
    return noContent();
  },
});
