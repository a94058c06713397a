import { noContent } from '#shared/http/reply';
import { signedHandler } from '#shared/http/signed-handler';
import { deviceUserKey } from '#shared/use-cases/device-user-key';
import { unlinkDevice } from '#shared/use-cases/devices';

/** DELETE /device/v3/link: the device unlinks itself, awaiting confirmation or linked; it cannot sign again. */
export const handler = signedHandler({
  subject: 'dev',
  body: 'none',
  awaitingDevice: true,
  handle: async ({ caller }) => {
    const key = deviceUserKey(caller.subjectHead);
    await unlinkDevice(key.directoryId, key.identifier, caller.subject.id);
    return noContent();
  },
});
