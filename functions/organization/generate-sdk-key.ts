import { created } from '#shared/http/reply';
import { directoryIdBody } from '#shared/http/schemas/directories';
import { signedHandler } from '#shared/http/signed-handler';
import { generateSdkKey } from '#shared/use-cases/sdk-keys';

/** POST /organization/v3/directory/sdk-keys: generate an SDK key for a directory; answers {"sdk_key"}. */
export const handler = signedHandler({
  subject: 'org',
  body: directoryIdBody,
  handle: async ({ caller, body }) =>
    created({ sdk_key: await generateSdkKey(caller.subject.id, body.directory_id) }),
});
