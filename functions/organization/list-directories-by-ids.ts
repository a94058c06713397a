import { ok } from '#shared/http/reply';
import { listDirectoriesByIdsBody } from '#shared/http/schemas/directories';
import { signedHandler } from '#shared/http/signed-handler';
import { listDirectoriesByIds } from '#shared/use-cases/list-directories';

/**
 * POST /organization/v3/directories/list: the named directories, in the order asked. Any id the organization does
 * not own, or that does not exist, is 403 (docs/protocol.md#management-api).
 */
export const handler = signedHandler({
  subject: 'org',
  body: listDirectoriesByIdsBody,
  handle: async ({ caller, body }) => ok(await listDirectoriesByIds(caller.subject.id, body.directory_ids)),
});
