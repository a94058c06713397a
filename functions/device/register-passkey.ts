import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { noContent } from '#shared/http/reply';
import { registerPasskeyBody } from '#shared/http/schemas/devices';
import { signedHandler } from '#shared/http/signed-handler';
import { deviceUserKey } from '#shared/use-cases/device-user-key';
import { registerPasskey } from '#shared/use-cases/passkeys';

/** PUT /device/v3/passkey: the device keeps the passkey it registered, replacing the one it had. */
export const handler = signedHandler({
  subject: 'dev',
  body: registerPasskeyBody,
  handle: async ({ caller, body, receivedAt, passkeyOrigin }) => {
    await registerPasskey(
      deviceUserKey(caller.subjectHead),
      caller.subject.id,
      body.registration as RegistrationResponseJSON,
      passkeyOrigin,
      receivedAt,
    );
    return noContent();
  },
});
