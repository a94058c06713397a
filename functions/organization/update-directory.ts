import { noContent } from '#shared/http/reply';
import { updateDirectoryBody } from '#shared/http/schemas/directories';
import { signedHandler } from '#shared/http/signed-handler';
import { updateDirectory } from '#shared/use-cases/update-directory';

/** PATCH /organization/v3/directories: change the fields present; null clears android_key, ios_p12, webhook_url. */
export const handler = signedHandler({
  subject: 'org',
  body: updateDirectoryBody,
  handle: async ({ caller, body }) => {
    await updateDirectory(caller.subject.id, body.directory_id, {
      active: body.active,
      androidKey: body.android_key,
      iosP12: body.ios_p12,
      denialContextInquiryEnabled: body.denial_context_inquiry_enabled,
      webhookUrl: body.webhook_url,
    });
    return noContent();
  },
});
