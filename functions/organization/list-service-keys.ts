import { listKeysEndpoint, serviceKeys } from '#shared/http/endpoints/keys';

/** POST /organization/v3/service/keys/list: a service's public keys. */
export const handler = listKeysEndpoint(serviceKeys('org'));
