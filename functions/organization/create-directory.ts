import { created } from '#shared/http/reply';
import { createDirectoryBody } from '#shared/http/schemas/directories';
import { signedHandler } from '#shared/http/signed-handler';
import { createDirectory } from '#shared/use-cases/directories';

/** POST /organization/v3/directories: create a directory under a name unique in the organization; answers {"id"}. */
export const handler = signedHandler({
  subject: 'org',
  body: createDirectoryBody,
  handle: async ({ caller, body, receivedAt }) =>
    created({ id: await createDirectory(caller.subject.id, body.name, receivedAt) }),
});
