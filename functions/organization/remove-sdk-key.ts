import { noContent } from '#shared/http/reply';
import { removeSdkKeyBody } from '#shared/http/schemas/directories';
import { signedHandler } from '#shared/http/signed-handler';
import { deleteSdkKey } from '#shared/use-cases/sdk-keys';

/** DELETE /organization/v3/directory/sdk-keys: remove an SDK key (ORG-006 if foreign, ORG-005 if the last). */
export const handler = signedHandler({
  subject: 'org',
  body: removeSdkKeyBody,
  handle: async ({ caller, body }) => {
    await deleteSdkKey(caller.subject.id, body.directory_id, body.sdk_key);
    return noContent();
  },
});
