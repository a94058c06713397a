import { addKeyEndpoint, directoryKeys } from '#shared/http/endpoints/keys';

/** POST /organization/v3/directory/keys: add a public key to a directory; answers {"key_id"}. */
export const handler = addKeyEndpoint(directoryKeys);
