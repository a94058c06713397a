import { noContent } from '#shared/http/reply';
import { registerPushBody } from '#shared/http/schemas/devices';
import { signedHandler } from '#shared/http/signed-handler';
import { webAuthenticatorUrl } from '#shared/http/web-authenticator';
import { deviceUserKey } from '#shared/use-cases/device-user-key';
import { registerPushChannel } from '#shared/use-cases/push-channels';
import { destinationPolicyFromEnv } from '#shared/webhooks/destination';

const policy = destinationPolicyFromEnv();

/** PUT /device/v3/push: the device registers its push channel, replacing the one it had. */
export const handler = signedHandler({
  subject: 'dev',
  body: registerPushBody,
  handle: async ({ caller, body, receivedAt, baseUrl }) => {
    const key = deviceUserKey(caller.subjectHead);
    await registerPushChannel(key, caller.subject.id, body, policy, receivedAt, {
      page: webAuthenticatorUrl(baseUrl),
    });
    return noContent();
  },
});
