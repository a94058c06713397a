import { removeKeyEndpoint, directoryKeys } from '#shared/http/endpoints/keys';

/** DELETE /organization/v3/directory/keys: remove a key (never the last). */
export const handler = removeKeyEndpoint(directoryKeys);
