import { removeKeyEndpoint, serviceKeys } from '#shared/http/endpoints/keys';

/** DELETE /organization/v3/service/keys: remove a key (never the last). */
export const handler = removeKeyEndpoint(serviceKeys('org'));
