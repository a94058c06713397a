import { noContent } from '#shared/http/reply';
import { unlinkDeviceBody } from '#shared/http/schemas/devices';
import { signedHandler } from '#shared/http/signed-handler';
import { unlinkDevice } from '#shared/use-cases/devices';

/** DELETE /directory/v3/devices: unlink a device; an unknown user or device is 404. */
export const handler = signedHandler({
  subject: 'dir',
  body: unlinkDeviceBody,
  handle: async ({ caller, body, receivedAt }) => {
    await unlinkDevice(caller.subject.id, body.identifier, body.device_id, receivedAt);
    return noContent();
  },
});
