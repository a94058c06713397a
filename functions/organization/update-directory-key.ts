import { updateKeyEndpoint, directoryKeys } from '#shared/http/endpoints/keys';

/** PATCH /organization/v3/directory/keys: change a key's active flag and expiry. */
export const handler = updateKeyEndpoint(directoryKeys);
