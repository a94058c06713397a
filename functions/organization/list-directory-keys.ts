import { listKeysEndpoint, directoryKeys } from '#shared/http/endpoints/keys';

/** POST /organization/v3/directory/keys/list: a directory's public keys. */
export const handler = listKeysEndpoint(directoryKeys);
