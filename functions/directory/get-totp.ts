import { ok } from '#shared/http/reply';
import { identifierBody } from '#shared/http/schemas/users';
import { signedHandler } from '#shared/http/signed-handler';
import { getTotpState } from '#shared/use-cases/totp';

/** POST /directory/v3/totp/item: the user's TOTP state, its failure count and lock; 404 for an unknown user. */
export const handler = signedHandler({
  subject: 'dir',
  body: identifierBody,
  handle: async ({ caller, body, receivedAt }) =>
    ok(await getTotpState(caller.subject.id, body.identifier, receivedAt)),
});
