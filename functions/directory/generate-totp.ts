import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { created } from '#shared/http/reply';
import { identifierBody } from '#shared/http/schemas/users';
import { signedHandler } from '#shared/http/signed-handler';
import { ownershipOf } from '#shared/store/heads';
import { generateTotp } from '#shared/use-cases/totp';

/** POST /directory/v3/totp: a new TOTP secret for the user, who is created if needed (docs/protocol.md#totp). */
export const handler = signedHandler({
  subject: 'dir',
  body: identifierBody,
  handle: async ({ caller, body, receivedAt }) =>
    created(
      await generateTotp(
        ownershipOf(caller.subjectHead)?.organizationId ?? '',
        caller.subject.id,
        body.identifier,
        receivedAt,
        await currentHashKey(),
      ),
    ),
});
