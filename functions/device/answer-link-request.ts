import { noteForAudit } from '#shared/audit/audit-notes';
import { noContent } from '#shared/http/reply';
import { answerLinkRequestBody } from '#shared/http/schemas/devices';
import { signedHandler } from '#shared/http/signed-handler';
import { answerLinkRequest } from '#shared/use-cases/confirm-device-link';

/** POST /device/v3/link-requests/{device_id}: this device approves or refuses a new device of its user. */
export const handler = signedHandler({
  subject: 'dev',
  body: answerLinkRequestBody,
  handle: async ({ caller, body, pathParameters, receivedAt }) => {
    const newDeviceId = pathParameters.device_id ?? '';
    noteForAudit(caller, { target_id: newDeviceId });
    await answerLinkRequest(caller.subject, caller.subjectHead, newDeviceId, body.approve, receivedAt);
    return noContent();
  },
});
