import { ok } from '#shared/http/reply';
import { directoryIdBody } from '#shared/http/schemas/directories';
import { signedHandler } from '#shared/http/signed-handler';
import { listSdkKeys } from '#shared/use-cases/sdk-keys';

/** POST /organization/v3/directory/sdk-keys/list: a bare JSON array of the directory's SDK keys. */
export const handler = signedHandler({
  subject: 'org',
  body: directoryIdBody,
  handle: async ({ caller, body }) => ok(await listSdkKeys(caller.subject.id, body.directory_id)),
});
