import { noContent } from '#shared/http/reply';
import { signedHandler } from '#shared/http/signed-handler';
import { deviceUserKey } from '#shared/use-cases/device-user-key';
import { removePushChannel } from '#shared/use-cases/push-channels';

/** DELETE /device/v3/push: the device stops receiving pushes; it still sees its requests on GET /device/v3/auths. */
export const handler = signedHandler({
  subject: 'dev',
  body: 'none',
  handle: async ({ caller }) => {
    await removePushChannel(deviceUserKey(caller.subjectHead), caller.subject.id);
    return noContent();
  },
});
