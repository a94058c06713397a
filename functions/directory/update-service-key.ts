import { updateKeyEndpoint, serviceKeys } from '#shared/http/endpoints/keys';

/** PATCH /directory/v3/service/keys: change a key's active flag and expiry. */
export const handler = updateKeyEndpoint(serviceKeys('dir'));
