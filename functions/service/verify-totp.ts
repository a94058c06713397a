import { currentHashKey } from '#shared/api-keys/current-hash-key';
import { ok } from '#shared/http/reply';
import { verifyTotpBody } from '#shared/http/schemas/auth-requests';
import { signedHandler } from '#shared/http/signed-handler';
import { verifyTotp } from '#shared/use-cases/totp';
import { subjectService } from '#shared/use-cases/users';

/** POST /service/v3/totp: whether a code is the user's current one ({"valid"}); each code works once. */
export const handler = signedHandler({
  subject: 'svc',
  body: verifyTotpBody,
  handle: async ({ caller, body, receivedAt }) =>
    ok(
      await verifyTotp(subjectService(caller), body.identifier, body.otp, receivedAt, await currentHashKey()),
    ),
});
