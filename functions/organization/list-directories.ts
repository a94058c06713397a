import { ok } from '#shared/http/reply';
import { signedHandler } from '#shared/http/signed-handler';
import { listDirectories } from '#shared/use-cases/list-directories';

/** GET /organization/v3/directories: the organization's directories (docs/protocol.md#management-api, #objects). */
export const handler = signedHandler({
  subject: 'org',
  body: 'none',
  handle: async ({ caller }) => ok(await listDirectories(caller.subject.id)),
});
