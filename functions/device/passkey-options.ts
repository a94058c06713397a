import { ok } from '#shared/http/reply';
import { signedHandler } from '#shared/http/signed-handler';
import { deviceUserKey } from '#shared/use-cases/device-user-key';
import { passkeyRegistrationOptions } from '#shared/use-cases/passkeys';

/** POST /device/v3/passkey/options: the WebAuthn options the device registers its passkey with. */
export const handler = signedHandler({
  subject: 'dev',
  body: 'none',
  handle: async ({ caller, receivedAt, passkeyOrigin }) =>
    ok(
      await passkeyRegistrationOptions(
        deviceUserKey(caller.subjectHead),
        caller.subject.id,
        passkeyOrigin,
        receivedAt,
      ),
    ),
});
