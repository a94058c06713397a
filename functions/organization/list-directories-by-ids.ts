import * as v from 'valibot';
import { forbidden } from '#shared/errors';
import { ok } from '#shared/http/reply';
import { uuid } from '#shared/http/schemas/common';
import { signedHandler } from '#shared/http/signed-handler';
import { getDirectories } from '#shared/store/directories';

const body = v.strictObject({
  directory_ids: v.pipe(v.array(uuid), v.maxLength(100, 'at most 100 ids per request')),
});

/**
 * POST /organization/v3/directories/list: the named directories, in the order asked. Any id the organization does
 * not own, or that does not exist, is 403 (sdk-compatibility §6.3).
 */
export const handler = signedHandler({
  subject: 'org',
  body,
  handle: async ({ caller, body: { directory_ids: ids } }) => {
    const directories = await getDirectories(caller.subject.id, ids);
    const missing = ids.find((id) => !directories.has(id));
    if (missing) throw forbidden(`Directory ${missing} is not a directory of this organization`);
    return ok([...new Set(ids)].map((id) => directories.get(id)));
  },
});
