import { noContent } from '#shared/http/reply';
import { endDeviceSessionBody } from '#shared/http/schemas/devices';
import { signedHandler } from '#shared/http/signed-handler';
import { deviceUserKey } from '#shared/use-cases/device-user-key';
import { endSessionFromDevice } from '#shared/use-cases/device-sessions';

/** DELETE /device/v3/sessions: the user logs out of a service on the device; the service gets a Session Ended event. */
export const handler = signedHandler({
  subject: 'dev',
  body: endDeviceSessionBody,
  handle: async ({ caller, body, receivedAt }) => {
    await endSessionFromDevice(
      deviceUserKey(caller.subjectHead),
      caller.subjectHead?.userId as string,
      body.service_id,
      receivedAt,
    );
    return noContent();
  },
});
